import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ok } from './accessHelpers.js';
import { enterpriseSchema, errorSchema, groupSchema, listSchema, patchOp, scim, scimTenant, scimUrl, userSchema, type ScimTenant } from './scimHelpers.js';

const newUser = async (t: ScimTenant, extra: Record<string, unknown> = {}) => {
  const created = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `u.${randomUUID().slice(0, 8)}@acme.test`, ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; userName: string } & Record<string, unknown>;
};
const patch = (t: ScimTenant, path: string, Operations: unknown) => scim(t.token, 'PATCH', path, { schemas: [patchOp], Operations });

/**
 * scim-patch 0.8.3 (GHSA-9m6g-wc8r-q59c, GHSA-2mhw-wcx5-v3xj) walked PATCH paths into Object.prototype: one
 * organization's token polluted the process, and every later DynamoDB read of every tenant failed (500).
 */
describe('SCIM PATCH cannot reach an object prototype (one tenant cannot break the others)', () => {
  let attacker: ScimTenant;
  let victim: ScimTenant;
  beforeAll(async () => {
    [attacker, victim] = await Promise.all([scimTenant(), scimTenant()]);
  });

  it('refuses __proto__, constructor and prototype in paths and values with 400, and the other organization still answers 200', async () => {
    const { id } = await newUser(attacker);
    const victimUser = await newUser(victim, { displayName: 'Victim' });
    const attacks: [string, unknown[]][] = [
      ['invalidPath', [{ op: 'replace', path: '__proto__.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'add', path: '__proto__.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'toString.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'constructor.prototype.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'add', path: 'name.__proto__.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'emails[type eq "work"].__proto__', value: { polluted: 'x' } }]],
      ['invalidPath', [{ op: 'replace', path: `${enterpriseSchema}:__proto__.polluted`, value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:constructor.prototype.polluted', value: 'x' }]],
      ['invalidValue', [{ op: 'replace', value: JSON.parse('{"__proto__":{"polluted":"x"}}') }]],
      ['invalidValue', [{ op: 'add', value: { constructor: { prototype: { polluted: 'x' } } } }]],
      ['invalidValue', [{ op: 'replace', path: 'name', value: JSON.parse('{"givenName":"A","__proto__":{"polluted":"x"}}') }]],
      ['invalidValue', [{ op: 'add', path: 'emails', value: [JSON.parse('{"value":"a@b.test","__proto__":{"polluted":"x"}}')] }]],
    ];
    const answers = [];
    for (const [, Operations] of attacks) answers.push(await patch(attacker, `/Users/${id}`, Operations));
    // The same process still serves the other organization, whose reads go through DynamoDB (the marshaller
    // fails on a polluted Object.prototype: "Unsupported type passed").
    const read = await scim(victim.token, 'GET', `/Users/${victimUser.id}`);
    expect(read).toMatchObject({ status: 200, body: { id: victimUser.id, displayName: 'Victim' } });
    expect(read.body).not.toHaveProperty('polluted');
    expect((await scim(victim.token, 'GET', '/Users')).status).toBe(200);
    expect((await patch(victim, `/Users/${victimUser.id}`, [{ op: 'replace', path: 'displayName', value: 'Still here' }])).body.displayName).toBe('Still here');
    const org = await ok(victim.admin, '{ organization { current { id } } }');
    expect(org.organization.current.id).toBe(victim.tenant.organization.id);
    // A fresh object made by the stack carries no inherited `polluted` (a list response's keys are its own), and
    // a filter on it is one on an attribute no user has: 400 invalidFilter, not a 500.
    const list = await scim(victim.token, 'GET', '/Users');
    expect(list).toMatchObject({ status: 200, body: { schemas: [listSchema] } });
    expect(list.body.Resources.filter((user: object) => 'polluted' in user)).toEqual([]);
    const filtered = await scim(victim.token, 'GET', `/Users?filter=${encodeURIComponent('polluted eq "x"')}`);
    expect(filtered).toMatchObject({ status: 400, body: { schemas: [errorSchema], scimType: 'invalidFilter' } });
    // Each attack was refused, not applied.
    for (const [index, [scimType, Operations]] of attacks.entries()) {
      expect(answers[index]!.status, JSON.stringify(Operations)).toBe(400);
      expect(answers[index]!.body, JSON.stringify(Operations)).toMatchObject({ schemas: [errorSchema], status: '400', scimType });
    }
    // The raw body text too: JSON.parse makes "__proto__" an own key, which a naive merge would follow.
    const raw = await scim(attacker.token, 'PATCH', `/Users/${id}`, `{"schemas":["${patchOp}"],"Operations":[{"op":"add","value":{"name":{"__proto__":{"polluted":"x"}}}}]}`);
    expect(raw).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    // Group PATCH and POST/PUT bodies are checked the same way.
    const group = await scim(attacker.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `G ${randomUUID().slice(0, 6)}` });
    expect((await patch(attacker, `/Groups/${group.body.id}`, [{ op: 'replace', path: '__proto__.polluted', value: 'x' }])).body).toMatchObject({ scimType: 'invalidPath' });
    expect((await patch(attacker, `/Groups/${group.body.id}`, [{ op: 'add', path: 'members', value: [JSON.parse('{"value":"x","__proto__":{"polluted":"x"}}')] }])).body).toMatchObject({
      scimType: 'invalidValue',
    });
    const hostilePost = `{"schemas":["${userSchema}"],"userName":"p.${randomUUID().slice(0, 8)}@acme.test","name":{"constructor":{"prototype":{"polluted":"x"}}}}`;
    expect(await scim(attacker.token, 'POST', '/Users', hostilePost)).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    const hostilePut = `{"schemas":["${userSchema}"],"userName":"x@acme.test","${enterpriseSchema}":{"__proto__":{"polluted":"x"}}}`;
    expect(await scim(attacker.token, 'PUT', `/Users/${id}`, hostilePut)).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });

    // And the attacker's user is as it was.
    expect((await scim(attacker.token, 'GET', `/Users/${id}`)).body).not.toHaveProperty('polluted');
  });
});

describe('SCIM PATCH does what it says or refuses (RFC 7644 §3.5.2)', () => {
  let t: ScimTenant;
  beforeAll(async () => {
    t = await scimTenant();
  });

  it('refuses an unknown path (invalidPath), a read-only one (mutability) and the removal of active, changing nothing', async () => {
    const user = await newUser(t, { displayName: 'Before', active: true });
    const refusals: [number, string, unknown[]][] = [
      [400, 'invalidPath', [{ op: 'replace', path: 'nickname2', value: 'x' }]],
      [400, 'invalidPath', [{ op: 'add', path: 'name.middle', value: 'x' }]],
      [400, 'invalidPath', [{ op: 'replace', path: 'displayName.value', value: 'x' }]],
      [400, 'invalidPath', [{ op: 'replace', path: 'urn:example:params:scim:schemas:Custom:2.0:User:displayName', value: 'x' }]],
      [400, 'invalidPath', [{ op: 'replace', path: 'emails[nope eq "work"].value', value: 'x' }]],
      [400, 'mutability', [{ op: 'replace', path: 'id', value: randomUUID() }]],
      [400, 'mutability', [{ op: 'replace', path: 'meta.lastModified', value: '2020-01-01T00:00:00Z' }]],
      [400, 'mutability', [{ op: 'add', path: 'groups', value: [{ value: randomUUID() }] }]],
      [400, 'mutability', [{ op: 'replace', value: { id: randomUUID(), displayName: 'x' } }]],
      [400, 'invalidValue', [{ op: 'remove', path: 'active' }]],
      [400, 'noTarget', [{ op: 'remove' }]],
      [400, 'noTarget', [{ op: 'replace', path: 'emails[value co "nowhere"].type', value: 'home' }]],
      // An operation that would apply is not applied when a later one of the same request is refused.
      [
        400,
        'invalidPath',
        [
          { op: 'replace', path: 'displayName', value: 'Changed' },
          { op: 'replace', path: 'unknown', value: 'x' },
        ],
      ],
    ];
    for (const [status, scimType, Operations] of refusals) {
      const response = await patch(t, `/Users/${user.id}`, Operations);
      expect(response, JSON.stringify(Operations)).toMatchObject({ status, body: { schemas: [errorSchema], scimType } });
    }
    expect(await scim(t.token, 'GET', `/Users/${user.id}`)).toMatchObject({ status: 200, body: { id: user.id, displayName: 'Before', active: true } });
  });

  it('applies the enterprise extension addressed by its URN, in paths and in value objects', async () => {
    const user = await newUser(t);
    const byPath = await patch(t, `/Users/${user.id}`, [
      { op: 'replace', path: `${enterpriseSchema}:department`, value: 'R&D' },
      { op: 'Add', path: `${enterpriseSchema}:manager`, value: { value: 'boss-1' } },
      { op: 'add', path: `${enterpriseSchema}:employeeNumber`, value: '42' },
    ]);
    expect(byPath).toMatchObject({ status: 200, body: { schemas: [userSchema, enterpriseSchema], [enterpriseSchema]: { department: 'R&D', manager: { value: 'boss-1' }, employeeNumber: '42' } } });
    const byValue = await patch(t, `/Users/${user.id}`, [{ op: 'replace', value: { [enterpriseSchema]: { costCenter: 'CC-7' }, [`${enterpriseSchema}:division`]: 'Sales', 'name.givenName': 'Ada' } }]);
    expect(byValue.body).toMatchObject({ name: { givenName: 'Ada' }, [enterpriseSchema]: { department: 'R&D', costCenter: 'CC-7', division: 'Sales', employeeNumber: '42' } });
    const removed = await patch(t, `/Users/${user.id}`, [
      { op: 'remove', path: `${enterpriseSchema}:department` },
      { op: 'remove', path: `${enterpriseSchema}:manager.value` },
    ]);
    expect(removed.body[enterpriseSchema]).toEqual({ employeeNumber: '42', costCenter: 'CC-7', division: 'Sales' });
    expect((await scim(t.token, 'GET', `/Users/${user.id}`)).body[enterpriseSchema]).toEqual(removed.body[enterpriseSchema]);
  });

  it("takes the manager as Entra sends it, the manager's id as a bare string, and stores it as RFC 7643 §4.3 says ({ value })", async () => {
    const [boss, other] = [await newUser(t), await newUser(t)];
    const report = await newUser(t, { schemas: [userSchema, enterpriseSchema], [enterpriseSchema]: { manager: boss.id } });
    expect(report[enterpriseSchema]).toEqual({ manager: { value: boss.id } });
    // Entra's reference attribute, after each create: { op: Add, path: …:manager, value: "<id>" }.
    const added = await patch(t, `/Users/${report.id}`, [{ op: 'Add', path: `${enterpriseSchema}:manager`, value: other.id }]);
    expect(added).toMatchObject({ status: 200, body: { [enterpriseSchema]: { manager: { value: other.id } } } });
    const replaced = await patch(t, `/Users/${report.id}`, [{ op: 'Replace', value: { [`${enterpriseSchema}:manager`]: boss.id } }]);
    expect(replaced).toMatchObject({ status: 200, body: { [enterpriseSchema]: { manager: { value: boss.id } } } });
    const put = await scim(t.token, 'PUT', `/Users/${report.id}`, { schemas: [userSchema, enterpriseSchema], userName: report.userName, [enterpriseSchema]: { manager: other.id } });
    expect(put).toMatchObject({ status: 200, body: { [enterpriseSchema]: { manager: { value: other.id } } } });
    // Anything else that is not an object is still refused, changing nothing.
    for (const value of [[boss.id], 42, true]) {
      const refused = await patch(t, `/Users/${report.id}`, [{ op: 'replace', path: `${enterpriseSchema}:manager`, value }]);
      expect(refused, JSON.stringify(value)).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    }
    expect((await scim(t.token, 'GET', `/Users/${report.id}`)).body[enterpriseSchema]).toEqual({ manager: { value: other.id } });
    const removed = await patch(t, `/Users/${report.id}`, [{ op: 'Remove', path: `${enterpriseSchema}:manager` }]);
    expect(removed.status).toBe(200);
    expect(removed.body[enterpriseSchema]).toBeUndefined();
  });

  it('applies value-filtered paths as Entra sends them, adding the described value when none matches', async () => {
    const user = await newUser(t, { emails: [{ value: 'home@acme.test', type: 'home' }] });
    const patched = await patch(t, `/Users/${user.id}`, [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'work@acme.test' },
      { op: 'replace', path: 'emails[type eq "home"].primary', value: 'True' },
      { op: 'add', path: 'phoneNumbers', value: [{ value: '+1 555', type: 'mobile' }] },
    ]);
    expect(patched.body.emails).toEqual([
      { value: 'home@acme.test', type: 'home', primary: true },
      { type: 'work', value: 'work@acme.test' },
    ]);
    expect(patched.body.phoneNumbers).toEqual([{ value: '+1 555', type: 'mobile' }]);
    const removed = await patch(t, `/Users/${user.id}`, [
      { op: 'remove', path: 'emails[type eq "home"]' },
      { op: 'remove', path: 'phoneNumbers' },
    ]);
    expect(removed.body.emails).toEqual([{ type: 'work', value: 'work@acme.test' }]);
    expect(removed.body).not.toHaveProperty('phoneNumbers');
  });

  it('advertises exactly what it stores: no roles in /Schemas, every reference attribute with its referenceTypes', async () => {
    const schemas = (await scim(t.token, 'GET', '/Schemas')).body.Resources as { id: string; attributes: Record<string, any>[] }[];
    const user = schemas.find((schema) => schema.id === userSchema)!;
    expect(user.attributes.map((attribute) => attribute.name)).not.toContain('roles');
    const walk = (attributes: Record<string, any>[], at: string): string[] =>
      attributes.flatMap((attribute) => [
        ...(attribute.type === 'reference' && !(attribute.referenceTypes?.length > 0) ? [`${at}${attribute.name}`] : []),
        ...walk(attribute.subAttributes ?? [], `${at}${attribute.name}.`),
      ]);
    expect(schemas.flatMap((schema) => walk(schema.attributes, `${schema.id}:`))).toEqual([]);
    const photos = user.attributes.find((attribute) => attribute.name === 'photos')!;
    expect(photos.subAttributes.find((sub: { name: string }) => sub.name === 'value')).toMatchObject({ type: 'reference', referenceTypes: ['external'] });
  });
});

describe('POST .search (RFC 7644 §3.4.3)', () => {
  let t: ScimTenant;
  beforeAll(async () => {
    t = await scimTenant();
  });

  it('searches users and groups with filter, paging, attributes and sortBy, as the GET does', async () => {
    const tag = randomUUID().slice(0, 6);
    for (const name of ['carol', 'alice', 'bob']) await newUser(t, { userName: `${name}.${tag}@acme.test`, displayName: `${name} ${tag}` });
    const search = { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'], filter: `userName co "${tag}"`, startIndex: 1, count: 2, attributes: ['userName'], sortBy: 'userName' };
    const found = await scim(t.token, 'POST', '/Users/.search', search);
    expect(found).toMatchObject({ status: 200, body: { schemas: [listSchema], totalResults: 3, startIndex: 1, itemsPerPage: 2 } });
    expect(found.body.Resources.map((user: { userName: string }) => user.userName)).toEqual([`alice.${tag}@acme.test`, `bob.${tag}@acme.test`]);
    expect(Object.keys(found.body.Resources[0]).sort()).toEqual(['id', 'meta', 'schemas', 'userName']);
    const descending = await scim(t.token, 'POST', '/Users/.search', { ...search, sortOrder: 'descending', startIndex: 2, count: 5, attributes: undefined, excludedAttributes: ['emails'] });
    expect(descending.body.Resources.map((user: { userName: string }) => user.userName)).toEqual([`bob.${tag}@acme.test`, `alice.${tag}@acme.test`]);
    const viaGet = await scim(t.token, 'GET', `/Users?filter=${encodeURIComponent(search.filter)}&sortBy=userName&count=2&attributes=userName`);
    expect(viaGet.body.Resources).toEqual(found.body.Resources);

    await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `Searched ${tag}` });
    const groups = await scim(t.token, 'POST', '/Groups/.search', { filter: `displayName eq "searched ${tag}"`, excludedAttributes: ['members'] });
    expect(groups).toMatchObject({ status: 200, body: { totalResults: 1, Resources: [{ displayName: `Searched ${tag}` }] } });
    expect(groups.body.Resources[0]).not.toHaveProperty('members');
  });

  it('refuses a bad search body with 400, GET on .search with 405, and a root search with 501', async () => {
    expect(await scim(t.token, 'POST', '/Users/.search', { filter: 'userName eq' })).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    expect(await scim(t.token, 'POST', '/Users/.search', { count: 'ten' })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await scim(t.token, 'POST', '/Users/.search', [])).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect((await scim(t.token, 'GET', '/Users/.search')).status).toBe(405);
    expect(await scim(t.token, 'POST', '/.search', { filter: 'userName pr' })).toMatchObject({ status: 501, body: { schemas: [errorSchema] } });
  });
});

describe('filters name attributes of the resource (RFC 7644 §3.4.2.2, §3.12 invalidFilter)', () => {
  it('refuses a filter on an attribute the resource does not have with 400 invalidFilter, rather than answering no match', async () => {
    const t = await scimTenant();
    const user = await newUser(t, { schemas: [userSchema, enterpriseSchema], emails: [{ value: 'filtered@acme.test', type: 'work' }], [enterpriseSchema]: { department: 'R&D' } });
    const group = await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `Filtered ${randomUUID().slice(0, 6)}`, members: [{ value: user.id }] });
    expect(group.status).toBe(201);
    const list = (resource: string, filter: string) => scim(t.token, 'GET', `/${resource}?filter=${encodeURIComponent(filter)}`);
    // A misspelt matching attribute would read as "nobody", and the IdP would create the user again (409).
    for (const filter of [
      'usrName eq "x"',
      'name.nickname eq "x"',
      'emails[kind eq "work"]',
      'emails.nosuch co "x"',
      `${enterpriseSchema}:departement eq "R&D"`,
      'urn:example:schemas:Custom:2.0:User:userName eq "x"',
      'userName eq "x" or nosuch pr',
      'not (nosuch eq "x")',
    ]) {
      expect(await list('Users', filter), filter).toMatchObject({ status: 400, body: { schemas: [errorSchema], scimType: 'invalidFilter' } });
    }
    expect(await list('Groups', `userName eq "${user.userName}"`)).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    expect(await scim(t.token, 'POST', '/Users/.search', { filter: 'usrName eq "x"' })).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });

    // Every attribute /Schemas declares filters, in any case, with or without its schema URN.
    for (const filter of [
      `USERNAME eq "${user.userName}"`,
      `${userSchema}:userName eq "${user.userName}"`,
      `emails[type eq "work"].value co "filtered"`,
      'Emails.Value eq "filtered@acme.test"',
      `${enterpriseSchema}:department eq "R&D"`,
      `id eq "${user.id}" and meta.lastModified gt "2020-01-01T00:00:00Z"`,
      `groups.value eq "${group.body.id}"`,
    ]) {
      expect(await list('Users', filter), filter).toMatchObject({ status: 200, body: { totalResults: 1, Resources: [{ id: user.id }] } });
    }
    // roles is accepted and ignored (never stored): a filter on it matches nobody.
    expect(await list('Users', 'roles pr')).toMatchObject({ status: 200, body: { totalResults: 0 } });
    expect(await list('Groups', `externalId pr or displayName sw "filtered"`)).toMatchObject({ status: 200, body: { totalResults: 1, Resources: [{ id: group.body.id }] } });
  });
});

describe('filters /Groups by their members', () => {
  it('finds the groups a user is a member of, as a value filter or a sub-attribute, members excluded or not', async () => {
    const t = await scimTenant();
    const [member, outsider] = [await newUser(t), await newUser(t)];
    const tag = randomUUID().slice(0, 6);
    const group = await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `With ${tag}`, members: [{ value: member.id }] });
    const other = await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `Without ${tag}` });
    expect([group.status, other.status]).toEqual([201, 201]);
    const list = (filter: string, extra = '') => scim(t.token, 'GET', `/Groups?filter=${encodeURIComponent(filter)}${extra}`);
    // How an IdP checks one membership: the group by id, and the member in it, without the member list.
    const checked = await list(`id eq "${group.body.id}" and members[value eq "${member.id}"]`, '&excludedAttributes=members');
    expect(checked).toMatchObject({ status: 200, body: { totalResults: 1, Resources: [{ id: group.body.id, displayName: `With ${tag}` }] } });
    expect(checked.body.Resources[0]).not.toHaveProperty('members');
    const bySub = await list(`members.value eq "${member.id}"`);
    expect(bySub).toMatchObject({ status: 200, body: { totalResults: 1, Resources: [{ id: group.body.id, members: [{ value: member.id }] }] } });
    expect(await list(`id eq "${group.body.id}" and members[value eq "${outsider.id}"]`)).toMatchObject({ status: 200, body: { totalResults: 0 } });
    expect((await list(`not (members pr) and displayName ew "${tag}"`)).body.Resources.map((found: { id: string }) => found.id)).toEqual([other.body.id]);
  });
});

describe('Location and meta.location use the scheme the client used', () => {
  it('answers http URLs on the plain-HTTP local stack (https behind API Gateway)', async () => {
    const t = await scimTenant();
    const response = await fetch(`${scimUrl()}/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({ schemas: [userSchema], userName: `loc.${randomUUID().slice(0, 8)}@acme.test` }),
    });
    const body = (await response.json()) as { id: string; meta: { location: string } };
    expect(scimUrl()).toMatch(/^http:\/\//);
    expect(response.headers.get('location')).toBe(`${scimUrl()}/Users/${body.id}`);
    expect(body.meta.location).toBe(`${scimUrl()}/Users/${body.id}`);
    const behindTls = await fetch(`${scimUrl()}/Users/${body.id}`, { headers: { authorization: `Bearer ${t.token}`, 'x-forwarded-proto': 'https' } });
    expect(((await behindTls.json()) as { meta: { location: string } }).meta.location).toBe(`${scimUrl().replace(/^http:/, 'https:')}/Users/${body.id}`);
  });
});
