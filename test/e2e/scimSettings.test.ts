import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { setPlan } from '../../lib/orgs/operator.js';
import { newTenant, ok, tenantHeaders, testStore } from '../support/api.js';
import { memberWithRole, refusal } from './accessHelpers.js';
import { configureSaml, configureScim, createToken, groupSchema, idpMetadata, patchOp, revokeToken, scim, scimTenant, userSchema, verifiedDomainOf, type ScimTenant } from './scimHelpers.js';

const tokens = '{ scimToken { tokens { id status displayPrefix createdBy retiresAt } } }';

describe('SCIM token and setting: 401 at once', () => {
  let t: ScimTenant;
  beforeAll(async () => {
    t = await scimTenant();
  });

  it('refuses a request without a token, or with an unknown or altered one', async () => {
    expect(await scim(undefined, 'GET', '/Users')).toMatchObject({ status: 401, body: { status: '401', schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'] } });
    expect((await scim('scim_nope', 'GET', '/Users')).status).toBe(401);
    const altered = `${t.token.slice(0, 10)}${t.token[10] === 'A' ? 'B' : 'A'}${t.token.slice(11)}`;
    expect((await scim(altered, 'GET', '/Users')).status).toBe(401);
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(200);
  });

  it('gives 401 on the very next request after SCIM is disabled, and serves again once enabled', async () => {
    await ok(t.admin, configureScim, { enabled: false });
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(401);
    await ok(t.admin, configureScim, { enabled: true });
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(200);
  });

  it('rotates: the new token is active, the old one works until revoked, then 401 at once', async () => {
    const rotated = await ok(t.admin, createToken);
    const fresh = rotated.scimToken.create;
    expect(fresh.token.status).toBe('ACTIVE');
    expect(fresh.secret).toMatch(/^scim_/);
    const listed = (await ok(t.admin, tokens)).scimToken.tokens;
    expect(listed.map((token: { id: string; status: string }) => [token.id, token.status])).toEqual([
      [fresh.token.id, 'ACTIVE'],
      [t.tokenId, 'RETIRING'],
    ]);
    expect(listed[1].retiresAt).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(fresh.secret.slice(12));
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(200);
    expect((await scim(fresh.secret, 'GET', '/Users')).status).toBe(200);
    expect((await ok(t.admin, revokeToken, { id: t.tokenId })).scimToken.revoke).toBe(true);
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(401);
    expect((await scim(fresh.secret, 'GET', '/Users')).status).toBe(200);
    // Revoking the active token leaves none: 401 at once.
    await ok(t.admin, revokeToken, { id: fresh.token.id });
    expect((await scim(fresh.secret, 'GET', '/Users')).status).toBe(401);
    expect((await ok(t.admin, tokens)).scimToken.tokens).toEqual([]);
    const again = await ok(t.admin, createToken);
    t = { ...t, token: again.scimToken.create.secret, tokenId: again.scimToken.create.token.id };
  });

  it('stores only the hash of a token', async () => {
    const store = testStore();
    // The organization's token records, read by key: a Scan's first page need not hold them once the table is large.
    const records = await store.ddb.send(
      new QueryCommand({
        TableName: store.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': `ORG#${t.tenant.organization.id}`, ':sk': 'SCIMTOKEN#' },
      }),
    );
    expect(records.Items!.map((item) => item.id)).toContain(t.tokenId);
    const hashes = await store.ddb.send(
      new GetCommand({ TableName: store.tableName, Key: { PK: `SCIMTOKENHASH#${records.Items!.find((item) => item.id === t.tokenId)!.hash}`, SK: 'SCIMTOKENHASH' } }),
    );
    expect(hashes.Item).toMatchObject({ tokenId: t.tokenId });
    const random = t.token.slice(5, 48);
    expect(JSON.stringify([records.Items, hashes.Item])).not.toContain(random);
  });

  it('gives 401 at once when the plan loses the scim entitlement', async () => {
    await setPlan(testStore(), t.tenant.organization.slug, 'team');
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(401);
    await setPlan(testStore(), t.tenant.organization.slug, 'enterprise');
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(200);
  });

  it('disabling SAML disables SCIM too (401 at once), and SCIM stays off when SAML returns', async () => {
    await ok(t.admin, configureSaml, { input: { enabled: false } });
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(401);
    expect((await ok(t.admin, '{ saml { configuration { enabled } } }')).saml.configuration.enabled).toBe(false);
    await ok(t.admin, configureSaml, { input: { enabled: true } });
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(401);
    expect((await ok(t.admin, configureScim, { enabled: true })).configureScim).toMatchObject({ enabled: true, samlEnabled: true });
    expect((await scim(t.token, 'GET', '/Users')).status).toBe(200);
  });
});

describe('enabling SCIM', () => {
  it('needs SAML first, then the plan entitlement, and a Site Admin', async () => {
    const tenant = await newTenant();
    const admin = tenantHeaders(tenant);
    expect((await refusal(admin, configureScim, { enabled: true })).code).toBe('SAML_NOT_ENABLED');
    const unverified = await refusal(admin, configureSaml, { input: { enabled: true, idpMetadataXml: idpMetadata(), domains: [`${tenant.organization.slug}.test`] } });
    expect(unverified).toMatchObject({ code: 'SAML_DOMAIN_NOT_VERIFIED', error: { extensions: { field: 'input.domains[0]' } } });
    const domain = await verifiedDomainOf(tenant);
    const saml = await ok(admin, configureSaml, { input: { enabled: true, idpMetadataXml: idpMetadata(), domains: [domain] } });
    expect(saml.saml.configure).toMatchObject({
      enabled: true,
      entityId: 'http://www.okta.com/exk1test',
      ssoUrl: 'https://acme.okta.com/app/plm/exk1test/sso/saml',
      domains: [domain],
      registration: 'RECORDED',
    });
    const orgAdmin = await memberWithRole(tenant, 'ADMIN');
    expect(await refusal(orgAdmin.headers, configureScim, { enabled: true })).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      error: { extensions: { requiredPermission: 'integrations.configure' } },
    });
    // A custom role with the permission is not a Site Admin.
    const custom = await ok(admin, 'mutation($input: CreateRoleInput!) { roles { create(input: $input) { id } } }', {
      input: { name: `Auth settings ${randomUUID().slice(0, 6)}`, type: 'ORG', permissions: ['organization.read', 'integrations.configure'] },
    });
    const integrator = await memberWithRole(tenant, custom.roles.create.id);
    expect(await refusal(integrator.headers, configureScim, { enabled: true })).toMatchObject({ status: 403, code: 'FORBIDDEN', error: { extensions: { requiredRole: 'SITE_ADMIN' } } });
    await setPlan(testStore(), tenant.organization.slug, 'team');
    expect((await refusal(admin, configureScim, { enabled: true })).code).toBe('FEATURE_NOT_IN_PLAN');
    await setPlan(testStore(), tenant.organization.slug, 'enterprise');
    expect((await ok(admin, configureScim, { enabled: true })).configureScim.enabled).toBe(true);
  });

  it('validates the IdP metadata: entity id, https SSO URL, signing certificate', async () => {
    const admin = tenantHeaders(await newTenant());
    const configure = (xml: string) => refusal(admin, configureSaml, { input: { enabled: true, idpMetadataXml: xml } });
    expect((await configure('<not xml')).code).toBe('SAML_METADATA_INVALID');
    expect((await configure(idpMetadata({ entityId: '' }))).code).toBe('SAML_METADATA_INVALID');
    expect((await configure(idpMetadata({ ssoUrl: 'http://insecure.test/sso' }))).code).toBe('SAML_METADATA_INVALID');
    expect((await configure(idpMetadata({ certificate: 'bm90IGEgY2VydGlmaWNhdGU=' }))).code).toBe('SAML_METADATA_INVALID');
    expect((await configure('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>')).code).toBe('SAML_METADATA_INVALID');
    expect((await refusal(admin, configureSaml, { input: { enabled: true } })).code).toBe('BAD_USER_INPUT');
  });
});

describe('tenancy: a token reads and writes only its own organization', () => {
  it("never reaches another organization's users or teams", async () => {
    const [a, b] = [await scimTenant(), await scimTenant()];
    const userOfB = (await scim(b.token, 'POST', '/Users', { schemas: [userSchema], userName: `b.${randomUUID().slice(0, 8)}@b.test` })).body.id as string;
    const groupOfB = (await scim(b.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: 'B team', members: [{ value: userOfB }] })).body.id as string;
    const groupOfA = (await scim(a.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: 'A team' })).body.id as string;
    expect((await scim(a.token, 'GET', `/Users/${userOfB}`)).status).toBe(404);
    expect((await scim(a.token, 'GET', `/Groups/${groupOfB}`)).status).toBe(404);
    expect((await scim(a.token, 'PUT', `/Users/${userOfB}`, { schemas: [userSchema], userName: 'stolen' })).status).toBe(404);
    expect((await scim(a.token, 'PATCH', `/Users/${userOfB}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { active: false } }] })).status).toBe(404);
    expect((await scim(a.token, 'DELETE', `/Users/${userOfB}`)).status).toBe(404);
    expect((await scim(a.token, 'DELETE', `/Groups/${groupOfB}`)).status).toBe(404);
    expect((await scim(a.token, 'PATCH', `/Groups/${groupOfA}`, { schemas: [patchOp], Operations: [{ op: 'add', path: 'members', value: [{ value: userOfB }] }] })).status).toBe(400);
    expect((await scim(a.token, 'GET', '/Users')).body.totalResults).toBe(0);
    expect((await scim(a.token, 'GET', '/Groups')).body.Resources.map((g: { id: string }) => g.id)).toEqual([groupOfA]);
    // B's user and team are untouched.
    expect(await scim(b.token, 'GET', `/Users/${userOfB}`)).toMatchObject({ status: 200, body: { active: true } });
    expect((await scim(b.token, 'GET', `/Groups/${groupOfB}`)).body.members.map((m: { value: string }) => m.value)).toEqual([userOfB]);
    // Nothing of B's is keyed under A's partition.
    const store = testStore();
    const inA = await store.ddb.send(new QueryCommand({ TableName: store.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ORG#${a.tenant.organization.id}` } }));
    expect(JSON.stringify(inA.Items)).not.toContain(userOfB);
  });
});

describe('SCIM-managed teams in the GraphQL API', () => {
  it('are locked against structural edits; their roles are still assigned by administrators', async () => {
    const t = await scimTenant();
    const userId = (await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `lock.${randomUUID().slice(0, 8)}@acme.test` })).body.id as string;
    const teamId = (await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: 'Provisioned', members: [{ value: userId }] })).body.id as string;
    const attempts: [string, Record<string, unknown>][] = [
      ['mutation($id: ID!) { organization { teams { rename(id: $id, name: "Renamed") { id } } } }', { id: teamId }],
      ['mutation($id: ID!) { organization { teams { archive(id: $id) { id } } } }', { id: teamId }],
      ['mutation($id: ID!) { organization { teams { restore(id: $id) { id } } } }', { id: teamId }],
      ['mutation($id: ID!, $u: [ID!]!) { organization { teams { addMembers(id: $id, userIds: $u) { id } } } }', { id: teamId, u: [t.tenant.user.id] }],
      ['mutation($id: ID!, $u: [ID!]!) { organization { teams { removeMembers(id: $id, userIds: $u) { id } } } }', { id: teamId, u: [userId] }],
    ];
    for (const [query, variables] of attempts) {
      const refused = await refusal(t.admin, query, variables);
      expect(refused.code, query).toBe('TEAM_MANAGED_BY_SCIM');
      expect(refused.error?.message).toContain('identity provider');
    }
    const set = await ok(t.admin, 'mutation($input: SetTeamRolesInput!) { organization { teams { setRoles(input: $input) { orgRoleId managedBy name members { id } } } } }', {
      input: { id: teamId, orgRoleId: 'EDITOR' },
    });
    expect(set.organization.teams.setRoles).toEqual({ orgRoleId: 'EDITOR', managedBy: 'SCIM', name: 'Provisioned', members: [{ id: userId }] });
  });
});
