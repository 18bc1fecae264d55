import { describe, expect, it } from 'vitest';
import { applyPatch, assertNoPrototypeKeys, groupPatchSchema, parsePatchBody, resolvePath, userPatchSchema, type PatchOperation } from '../../lib/scim/patch.js';
import { listResponse, parseListQuery, searchParameters } from '../../lib/scim/query.js';
import { allSchemas, enterpriseSchemaId, serviceProviderConfig, type AttributeDefinition } from '../../lib/scim/schemas.js';
import { parseUserInput } from '../../lib/scim/users.js';

const user = () => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  id: 'u1',
  userName: 'ada@acme.test',
  name: { givenName: 'Ada' },
  emails: [{ value: 'ada@acme.test', type: 'work', primary: true }],
  active: true,
  meta: { resourceType: 'User' },
});
const patchUser = (...operations: PatchOperation[]) => applyPatch(user(), operations, userPatchSchema);
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return { status: (error as { status?: number }).status, scimType: (error as { scimType?: string }).scimType };
  }
  return undefined;
};

describe('SCIM PATCH paths are resolved against the schema, never walked into objects', () => {
  it('refuses prototype keys and undeclared names in every position of a path (invalidPath)', () => {
    const paths = [
      '__proto__.polluted',
      'toString.polluted',
      'constructor.prototype.polluted',
      'name.__proto__',
      'name.constructor',
      'emails[type eq "work"].__proto__',
      'emails[constructor eq "x"].value',
      `${enterpriseSchemaId}:__proto__`,
      `${enterpriseSchemaId}:toString`,
      'urn:ietf:params:scim:schemas:core:2.0:User:__proto__.x',
      'hasOwnProperty',
      'valueOf',
      'nickname2',
      'name.middle',
      'displayName.value',
      'urn:other:thing',
      'emails[type eq "work"]x',
      'emails[type eq "work"',
      'userName[type eq "x"]',
    ];
    for (const path of paths)
      expect(
        refusal(() => resolvePath(userPatchSchema, path)),
        path,
      ).toEqual({ status: 400, scimType: 'invalidPath' });
    expect(refusal(() => resolvePath(userPatchSchema, 'emails[type eq]'))).toEqual({ status: 400, scimType: 'invalidFilter' });
    expect(resolvePath(userPatchSchema, 'ROLES[primary eq "True"].value')).toBeUndefined();
    expect(resolvePath(userPatchSchema, `${enterpriseSchemaId}:manager.value`)).toMatchObject({ extension: enterpriseSchemaId, attribute: { name: 'manager' }, sub: { name: 'value' } });
    expect(refusal(() => resolvePath(groupPatchSchema, 'roles'))).toEqual({ status: 400, scimType: 'invalidPath' });
  });

  it('refuses prototype keys anywhere in a body, and bodies nested deeper than any resource', () => {
    for (const body of [JSON.parse('{"__proto__":{"x":1}}'), { a: [{ b: { constructor: 1 } }] }, { Operations: [{ value: { PROTOTYPE: 1 } }] }]) {
      expect(
        refusal(() => assertNoPrototypeKeys(body)),
        JSON.stringify(body),
      ).toEqual({ status: 400, scimType: 'invalidValue' });
    }
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(refusal(() => assertNoPrototypeKeys(deep))).toEqual({ status: 400, scimType: 'invalidSyntax' });
    expect(() => assertNoPrototypeKeys({ userName: 'constructor', name: { givenName: '__proto__' } })).not.toThrow();
  });

  it("leaves Object.prototype alone whatever the operations (the advisories' payloads)", () => {
    const attempts: PatchOperation[][] = [
      [{ op: 'replace', path: '__proto__.polluted', value: 'x' }],
      [{ op: 'add', path: 'toString.polluted', value: 'x' }],
      [{ op: 'replace', path: 'constructor.prototype.polluted', value: 'x' }],
      [{ op: 'replace', value: JSON.parse('{"__proto__":{"polluted":"x"}}') }],
      [{ op: 'add', path: 'name', value: JSON.parse('{"__proto__":{"polluted":"x"}}') }],
      [{ op: 'replace', path: 'emails[type eq "work"]', value: JSON.parse('{"constructor":{"prototype":{"polluted":"x"}}}') }],
    ];
    for (const operations of attempts)
      expect(
        refusal(() => patchUser(...operations)),
        JSON.stringify(operations),
      ).toMatchObject({ status: 400 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('SCIM PATCH semantics', () => {
  it('reads the PatchOp body: ops case-insensitively, at least one, value required except for remove', () => {
    expect(parsePatchBody({ operations: [{ OP: 'Replace', Path: ' active ', Value: false }] })).toEqual([{ op: 'replace', path: 'active', value: false }]);
    for (const body of [
      {},
      { Operations: [] },
      { Operations: 'x' },
      { Operations: [{ op: 'frob' }] },
      { Operations: [{ op: 'add', path: 'x' }] },
      { Operations: [{ op: 'add', path: 7, value: 1 }] },
    ]) {
      expect(
        refusal(() => parsePatchBody(body)),
        JSON.stringify(body),
      ).toMatchObject({ status: 400 });
    }
  });

  it('replaces, adds and removes by path, and merges complex values', () => {
    const patched = patchUser(
      { op: 'replace', path: 'name', value: { familyName: 'Lovelace' } },
      { op: 'add', path: 'emails', value: [{ value: 'home@acme.test', type: 'home' }] },
      { op: 'add', path: 'emails', value: { value: 'ada@acme.test', type: 'work', primary: true } },
      { op: 'replace', path: 'emails[type eq "home"].value', value: 'h@acme.test' },
      { op: 'remove', path: 'emails[type eq "work"]' },
      { op: 'replace', path: 'Title', value: 'Countess' },
    );
    expect(parseUserInput(patched).attributes).toEqual({ name: { givenName: 'Ada', familyName: 'Lovelace' }, emails: [{ value: 'h@acme.test', type: 'home' }], title: 'Countess' });
  });

  it('refuses read-only and immutable targets with mutability, and an unmatched non-eq filter with noTarget', () => {
    expect(refusal(() => patchUser({ op: 'replace', path: 'id', value: 'u2' }))).toEqual({ status: 400, scimType: 'mutability' });
    expect(refusal(() => patchUser({ op: 'replace', path: 'meta.version', value: 'x' }))).toEqual({ status: 400, scimType: 'mutability' });
    expect(refusal(() => patchUser({ op: 'replace', value: { id: 'u2' } }))).toEqual({ status: 400, scimType: 'mutability' });
    expect(patchUser({ op: 'replace', value: { id: 'u1', meta: {}, schemas: [], active: false } }).active).toBe(false);
    expect(refusal(() => patchUser({ op: 'remove', path: 'active' }))).toEqual({ status: 400, scimType: 'invalidValue' });
    expect(refusal(() => patchUser({ op: 'remove' }))).toEqual({ status: 400, scimType: 'noTarget' });
    expect(refusal(() => patchUser({ op: 'replace', path: 'emails[value sw "zz"].type', value: 'x' }))).toEqual({ status: 400, scimType: 'noTarget' });
    const group = { id: 'g1', displayName: 'Eng', members: [{ value: 'a' }] };
    expect(refusal(() => applyPatch(group, [{ op: 'replace', path: 'members[value eq "a"].value', value: 'b' }], groupPatchSchema))).toEqual({ status: 400, scimType: 'mutability' });
  });

  it('removes the members an Entra value list names, and ignores roles', () => {
    const group = { id: 'g1', displayName: 'Eng', members: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] };
    expect(applyPatch(group, [{ op: 'Remove' as 'remove', path: 'members', value: [{ $ref: null, value: 'A' }, { value: 'c' }] }], groupPatchSchema).members).toEqual([{ value: 'b' }]);
    expect(patchUser({ op: 'add', path: 'roles', value: [{ value: 'SITE_ADMIN' }] }, { op: 'add', value: { roles: [{ value: 'x' }] } })).not.toHaveProperty('roles');
  });
});

describe('/Schemas conforms to RFC 7643 §7', () => {
  const types = ['string', 'boolean', 'decimal', 'integer', 'dateTime', 'binary', 'reference', 'complex'];
  const check = (attribute: AttributeDefinition, at: string, nested: boolean): string[] => {
    const problems: string[] = [];
    if (!types.includes(attribute.type)) problems.push(`${at}: type`);
    for (const key of ['multiValued', 'required', 'caseExact'] as const) if (typeof attribute[key] !== 'boolean') problems.push(`${at}: ${key}`);
    if (typeof attribute.description !== 'string' || !attribute.description) problems.push(`${at}: description`);
    if (!['readOnly', 'readWrite', 'immutable', 'writeOnly'].includes(attribute.mutability)) problems.push(`${at}: mutability`);
    if (!['always', 'never', 'default', 'request'].includes(attribute.returned)) problems.push(`${at}: returned`);
    if (!['none', 'server', 'global'].includes(attribute.uniqueness)) problems.push(`${at}: uniqueness`);
    if (attribute.type === 'reference' && !attribute.referenceTypes?.length) problems.push(`${at}: referenceTypes`);
    if (attribute.type === 'complex' && !attribute.subAttributes?.length) problems.push(`${at}: subAttributes`);
    if (attribute.type !== 'complex' && attribute.subAttributes) problems.push(`${at}: subAttributes of a ${attribute.type}`);
    if (nested && attribute.type === 'complex') problems.push(`${at}: complex sub-attribute`);
    return [...problems, ...(attribute.subAttributes ?? []).flatMap((sub) => check(sub, `${at}.${sub.name}`, true))];
  };

  it('declares every characteristic of every attribute, referenceTypes of every reference', () => {
    const schemas = JSON.parse(JSON.stringify(allSchemas('https://scim.test/scim/v2'))) as { id: string; attributes: AttributeDefinition[] }[];
    expect(schemas.flatMap((schema) => schema.attributes.flatMap((attribute) => check(attribute, `${schema.id}:${attribute.name}`, false)))).toEqual([]);
    expect(serviceProviderConfig('x')).toMatchObject({ patch: { supported: true }, sort: { supported: true }, filter: { supported: true } });
  });
});

describe('POST .search bodies and sortBy', () => {
  it('reads a SearchRequest as the equivalent query, refusing wrong types', () => {
    const params = searchParameters({
      schemas: ['x'],
      Filter: 'userName pr',
      startIndex: 2,
      COUNT: 5,
      attributes: ['userName', 'emails'],
      excludedAttributes: 'groups',
      sortBy: 'userName',
      sortOrder: 'descending',
    });
    expect(Object.fromEntries(params)).toEqual({
      filter: 'userName pr',
      startIndex: '2',
      count: '5',
      attributes: 'userName,emails',
      excludedAttributes: 'groups',
      sortBy: 'userName',
      sortOrder: 'descending',
    });
    expect(refusal(() => searchParameters({ count: '5' }))).toEqual({ status: 400, scimType: 'invalidValue' });
    expect(refusal(() => searchParameters({ filter: 3 }))).toEqual({ status: 400, scimType: 'invalidFilter' });
    expect(refusal(() => searchParameters({ attributes: [1] }))).toEqual({ status: 400, scimType: 'invalidValue' });
    expect(refusal(() => parseListQuery(new URLSearchParams('sortOrder=sideways'), userPatchSchema))).toEqual({ status: 400, scimType: 'invalidValue' });
  });

  it('sorts case-insensitively, by the primary value of a multi-valued attribute, unassigned last ascending', () => {
    const resources = [
      { id: '1', userName: 'bob', emails: [{ value: 'z@x' }, { value: 'a@x', primary: true }] },
      { id: '2', userName: 'Alice', emails: [{ value: 'm@x' }] },
      { id: '3', emails: [] },
    ];
    const order = (query: string) => (listResponse(resources, parseListQuery(new URLSearchParams(query), userPatchSchema)).Resources as { id: string }[]).map((r) => r.id);
    expect(order('sortBy=userName')).toEqual(['2', '1', '3']);
    expect(order('sortBy=userName&sortOrder=descending')).toEqual(['3', '1', '2']);
    expect(order('sortBy=emails')).toEqual(['1', '2', '3']);
    expect(order('')).toEqual(['1', '2', '3']);
  });
});
