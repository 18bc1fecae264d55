import { describe, expect, it } from 'vitest';
import { parseIdpMetadata } from '../../lib/saml/metadata.js';
import { ScimError } from '../../lib/scim/errors.js';
import { parseGroupInput } from '../../lib/scim/groups.js';
import { filterNames, listResponse, matches, parseFilter, parseListQuery, project } from '../../lib/scim/query.js';
import { userPatchSchema } from '../../lib/scim/patch.js';
import { linkingEmail, parseUserInput } from '../../lib/scim/users.js';
import { idpCertificate, idpMetadata } from '../support/saml.js';

const user = {
  id: 'u1',
  userName: 'Ada@Acme.test',
  externalId: 'Ext-1',
  displayName: 'Ada Lovelace',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [
    { value: 'ada@acme.test', type: 'work', primary: true },
    { value: 'ada@home.test', type: 'home' },
  ],
  active: true,
  meta: { created: '2026-01-02T03:04:05.000Z' },
};

const match = (filter: string) => matches(user, parseFilter(filter));

describe('SCIM filters (parsed by scim2-parse-filter, compared as RFC 7643 says)', () => {
  it('compares caseExact false attributes case-insensitively and caseExact ones exactly', () => {
    expect(match('userName eq "ada@acme.TEST"')).toBe(true);
    expect(match('USERNAME eq "ada@acme.test"')).toBe(true);
    expect(match('externalId eq "ext-1"')).toBe(false);
    expect(match('externalId eq "Ext-1"')).toBe(true);
  });

  it('supports co, sw, ew, pr, not, and, or, value paths, schema-qualified names and dates', () => {
    expect(match('emails.value co "home"')).toBe(true);
    expect(match('displayName sw "ada"')).toBe(true);
    expect(match('userName ew ".test"')).toBe(true);
    expect(match('name.familyName pr and title pr')).toBe(false);
    expect(match('name.familyName pr or title pr')).toBe(true);
    expect(match('emails[type eq "work" and value co "acme"]')).toBe(true);
    expect(match('emails[type eq "other"]')).toBe(false);
    expect(match('not (active eq false)')).toBe(true);
    expect(match('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "ada@acme.test"')).toBe(true);
    expect(match('meta.created gt "2025-12-31T00:00:00Z"')).toBe(true);
    expect(match('meta.created lt "2025-12-31T00:00:00Z"')).toBe(false);
  });

  it('refuses what it cannot parse with invalidFilter', () => {
    for (const filter of ['userName eq', 'userName eq Ada', '(userName eq "a"', 'x'.repeat(5000)]) {
      expect(() => parseFilter(filter), filter).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter' }));
    }
  });

  it('pages from a 1-based startIndex and projects attributes (id, schemas, meta always stay)', () => {
    const resources = [1, 2, 3].map((n) => ({ schemas: ['s'], id: `id${n}`, userName: `u${n}`, emails: [{ value: `u${n}@x.test`, type: 'work' }], meta: {} }));
    const page = listResponse(resources, parseListQuery(new URLSearchParams('startIndex=2&count=1&attributes=emails.value'), userPatchSchema));
    expect(page).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1, Resources: [{ id: 'id2', emails: [{ value: 'u2@x.test' }] }] });
    expect(Object.keys((page.Resources as object[])[0]!).sort()).toEqual(['emails', 'id', 'meta', 'schemas']);
    expect(project(resources[0]!, { excludedAttributes: ['emails'] })).not.toHaveProperty('emails');
    expect(() => parseListQuery(new URLSearchParams('count=lots'), userPatchSchema)).toThrow(ScimError);
  });
});

describe('which attributes a filter tests (the groups of users are read only for filters that need them)', () => {
  it('finds an attribute anywhere in the filter, by its first path step', () => {
    expect(filterNames(parseFilter('userName eq "ada@acme.test"'), 'groups')).toBe(false);
    expect(filterNames(parseFilter('groups.value eq "g1"'), 'groups')).toBe(true);
    expect(filterNames(parseFilter('GROUPS[value eq "g1"]'), 'groups')).toBe(true);
    expect(filterNames(parseFilter('userName sw "a" and not (groups pr)'), 'groups')).toBe(true);
    expect(filterNames(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:groups.display co "eng" or active eq true'), 'groups')).toBe(true);
    expect(filterNames(parseFilter('emails[type eq "work" and value co "groups"]'), 'groups')).toBe(false);
  });
});

describe('SCIM user and group bodies', () => {
  it('reads attribute names case-insensitively, Entra string booleans, and drops roles, groups and unknown attributes', () => {
    const input = parseUserInput({
      UserName: ' grace@acme.test ',
      Active: 'False',
      Emails: [{ Primary: 'True', Value: 'grace@acme.test', Type: 'work' }],
      roles: [{ value: 'SITE_ADMIN' }],
      groups: [{ value: 'g1' }],
      adreses: [{ country: 'Germany' }],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { Department: 'R&D' },
    });
    expect(input).toEqual({
      userName: 'grace@acme.test',
      externalId: null,
      active: false,
      attributes: { emails: [{ primary: true, value: 'grace@acme.test', type: 'work' }] },
      enterprise: { department: 'R&D' },
    });
    expect(linkingEmail(input)).toBe('grace@acme.test');
  });

  it('leaves active unset when the body does not carry it', () => {
    expect(parseUserInput({ userName: 'a' }).active).toBeUndefined();
  });

  it('refuses a missing userName, wrong types and a non-object body', () => {
    expect(() => parseUserInput({ name: { givenName: 'x' } })).toThrow(expect.objectContaining({ scimType: 'invalidValue' }));
    expect(() => parseUserInput({ userName: 'a', active: 'maybe' })).toThrow(expect.objectContaining({ scimType: 'invalidValue' }));
    expect(() => parseUserInput({ userName: 'a', name: 'not an object' })).toThrow(expect.objectContaining({ scimType: 'invalidValue' }));
    expect(() => parseUserInput([])).toThrow(expect.objectContaining({ scimType: 'invalidSyntax' }));
  });

  it('links by the primary address, else the first, else a userName that is an address', () => {
    expect(linkingEmail(parseUserInput({ userName: 'x', emails: [{ value: 'a@x.test' }, { value: 'b@x.test', primary: true }] }))).toBe('b@x.test');
    expect(linkingEmail(parseUserInput({ userName: 'Bob@X.test' }))).toBe('bob@x.test');
    expect(linkingEmail(parseUserInput({ userName: 'bob', emails: [{ value: 'emailName357' }] }))).toBeUndefined();
  });

  it('reads group members, deduplicated, and refuses members without a value', () => {
    expect(parseGroupInput({ displayName: ' Eng ', members: [{ value: 'A' }, { value: 'a', display: 'Ada' }] })).toEqual({
      displayName: 'Eng',
      externalId: null,
      members: [{ value: 'a', display: 'Ada' }],
    });
    expect(() => parseGroupInput({ displayName: 'Eng', members: ['string id 1'] })).toThrow(expect.objectContaining({ scimType: 'invalidValue' }));
    expect(() => parseGroupInput({ members: [] })).toThrow(expect.objectContaining({ scimType: 'invalidValue' }));
  });
});

describe('SAML IdP metadata', () => {
  it('reads the entity id, the SSO URL (Redirect first) and the signing certificate', () => {
    const parsed = parseIdpMetadata(idpMetadata({ entityId: 'https://sts.windows.net/tenant/' }));
    expect(parsed).toMatchObject({ entityId: 'https://sts.windows.net/tenant/', ssoUrl: 'https://acme.okta.com/app/plm/exk1test/sso/saml' });
    expect(parsed.certificateSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses an expired certificate', () => {
    expect(() => parseIdpMetadata(idpMetadata({ certificate: idpCertificate }), new Date('2200-01-01'))).toThrow(/expired/);
  });
});
