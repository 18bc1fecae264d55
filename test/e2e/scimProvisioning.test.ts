import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newSession, sessionPutItem } from '../../lib/people/sessions.js';
import { createApiKey } from '../../lib/apikeys/apiKeys.js';
import { listSessionHashesOfUser } from '../../lib/store/account.js';
import { transactWrite } from '../../lib/store/items.js';
import { newUserRecord } from '../../lib/people/users.js';
import { verifyDomain } from '../../lib/orgs/operator.js';
import { getMembership } from '../../lib/store/membership.js';
import { findUserIdByEmail, getUser, userPuts } from '../../lib/store/user.js';
import { ok, testStore } from '../support/api.js';
import { refusal } from './accessHelpers.js';
import { errorSchema, listSchema, patchOp, scim, scimTenant, userSchema, enterpriseSchema, groupSchema, type ScimTenant } from './scimHelpers.js';

const filter = (text: string) => encodeURIComponent(text);

/** An API key acting as a provisioned user, to see what access the service gives them. */
async function keyOf(t: ScimTenant, userId: string): Promise<Record<string, string>> {
  const key = await createApiKey(testStore(), { organizationId: t.tenant.organization.id, libraryId: t.tenant.library.id, userId }, { name: 'scim test' });
  return { 'x-api-key': key.secret, 'x-organization': `@${t.tenant.organization.slug}`, 'x-library': t.tenant.library.path };
}

const setTeamRole = 'mutation($input: SetTeamRolesInput!) { organization { teams { setRoles(input: $input) { id orgRoleId } } } }';
const orgRead = '{ organization { current { id } } }';
const teamMembers = 'query($id: ID!) { organization { team(id: $id) { members { id } } } }';

describe('Okta provisioning, as Okta sends it', () => {
  let t: ScimTenant;
  beforeAll(async () => {
    t = await scimTenant();
  });

  it('creates, updates, deactivates and reactivates a user, and pushes a group with members', async () => {
    const userName = `okta.${randomUUID().slice(0, 8)}@acme.test`;
    // Okta first looks the user up by userName.
    const lookup = await scim(t.token, 'GET', `/Users?filter=${filter(`userName eq "${userName}"`)}&startIndex=1&count=100`);
    expect(lookup).toMatchObject({ status: 200, body: { schemas: [listSchema], totalResults: 0, Resources: [] } });
    expect(lookup.contentType).toBe('application/scim+json');

    const created = await scim(t.token, 'POST', '/Users', {
      schemas: [userSchema],
      userName,
      name: { givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: 'Grace Hopper',
      locale: 'en-US',
      externalId: '00u1abcd',
      groups: [],
      password: 'ignored-by-the-service',
      active: true,
    });
    expect(created).toMatchObject({ status: 201, body: { schemas: [userSchema], userName, active: true, externalId: '00u1abcd', name: { givenName: 'Grace', familyName: 'Hopper' } } });
    expect(created.body).not.toHaveProperty('password');
    const id = created.body.id as string;

    expect(await scim(t.token, 'GET', `/Users/${id}`)).toMatchObject({ status: 200, body: { id, userName, emails: [{ value: userName, primary: true, type: 'work' }] } });

    // Profile push: Okta PUTs the whole user.
    const updated = await scim(t.token, 'PUT', `/Users/${id}`, { ...created.body, name: { givenName: 'Grace', familyName: 'Brewster Hopper' }, displayName: 'Grace B. Hopper' });
    expect(updated).toMatchObject({ status: 200, body: { id, name: { familyName: 'Brewster Hopper' }, displayName: 'Grace B. Hopper' } });
    // The account this provisioning created follows the IdP's name.
    expect(await getUser(testStore(), id)).toMatchObject({ name: 'Grace B. Hopper', firstName: 'Grace', lastName: 'Brewster Hopper' });

    // Group push: create, add the user, rename.
    const groupName = `Okta Engineers ${randomUUID().slice(0, 6)}`;
    const group = await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: groupName, members: [] });
    expect(group).toMatchObject({ status: 201, body: { schemas: [groupSchema], displayName: groupName, members: [] } });
    const groupId = group.body.id as string;
    expect((await scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: userName }] }] })).status).toBe(204);
    expect((await scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { id: groupId, displayName: `${groupName} (renamed)` } }] })).status).toBe(
      204,
    );
    expect(await scim(t.token, 'GET', `/Groups/${groupId}`)).toMatchObject({ status: 200, body: { displayName: `${groupName} (renamed)`, members: [{ value: id, display: userName }] } });
    // The user's read-only groups attribute shows the pushed group.
    const inGroup = { value: groupId, display: `${groupName} (renamed)`, $ref: expect.stringMatching(new RegExp(`/scim/v2/Groups/${groupId}$`)) };
    expect((await scim(t.token, 'GET', `/Users/${id}`)).body.groups).toEqual([inGroup]);

    // The administrator gives the team a role in the service; the user now has access through it.
    await ok(t.admin, setTeamRole, { input: { id: groupId, orgRoleId: 'VIEWER' } });
    const asUser = await keyOf(t, id);
    await ok(asUser, orgRead);
    const store = testStore();
    const session = newSession(id);
    await transactWrite(store, [sessionPutItem(session)]);

    // Deactivation, as Okta sends it: replace with a value object.
    const deactivated = await scim(t.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(deactivated).toMatchObject({ status: 200, body: { id, active: false } });
    expect((await refusal(asUser, orgRead)).status).toBe(403);
    expect(await getMembership(store, t.tenant.organization.id, id, true)).toBeUndefined();
    expect(await listSessionHashesOfUser(store, id)).toEqual([]);
    // Still in the IdP's group (SCIM shows it), but no longer a member of the team in the service.
    expect((await scim(t.token, 'GET', `/Groups/${groupId}`)).body.members.map((m: { value: string }) => m.value)).toEqual([id]);
    expect((await ok(t.admin, teamMembers, { id: groupId })).organization.team.members).toEqual([]);
    expect((await scim(t.token, 'GET', `/Users/${id}`)).body.groups).toEqual([inGroup]);

    // Reactivation gives the team membership, and the access, back.
    const reactivated = await scim(t.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { active: true } }] });
    expect(reactivated).toMatchObject({ status: 200, body: { active: true } });
    await ok(asUser, orgRead);
    expect((await ok(t.admin, teamMembers, { id: groupId })).organization.team.members).toEqual([{ id }]);

    // Removal from the group, then the group's deletion (archive).
    expect((await scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }] })).status).toBe(204);
    expect((await refusal(asUser, orgRead)).status).toBe(403);
    expect((await scim(t.token, 'GET', `/Users/${id}`)).body).not.toHaveProperty('groups');
    expect((await scim(t.token, 'DELETE', `/Groups/${groupId}`)).status).toBe(204);
    expect((await scim(t.token, 'GET', `/Groups/${groupId}`)).status).toBe(404);
    const archived = await ok(t.admin, 'query($id: ID!) { organization { team(id: $id) { archived managedBy } } }', { id: groupId });
    expect(archived.organization.team).toEqual({ archived: true, managedBy: 'SCIM' });
  });
});

describe('Entra ID provisioning, as Entra sends it', () => {
  let t: ScimTenant;
  beforeAll(async () => {
    t = await scimTenant();
  });

  it('creates, updates, disables, enables and deletes a user, and provisions a group with members', async () => {
    const userName = `Test_User_${randomUUID().slice(0, 8)}@acme.test`;
    expect(await scim(t.token, 'GET', `/Users?filter=${filter(`userName eq "${userName}"`)}`)).toMatchObject({ status: 200, body: { totalResults: 0 } });
    const externalId = randomUUID();
    const created = await scim(t.token, 'POST', '/Users', {
      schemas: [userSchema, enterpriseSchema],
      externalId,
      userName,
      active: true,
      emails: [{ primary: true, type: 'work', value: `Test_User_${externalId}@testuser.com` }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [{ primary: 'True', type: 'WindowsAzureActiveDirectoryRole', value: 'SITE_ADMIN' }],
      [enterpriseSchema]: { department: 'Engineering', manager: { value: 'someone' } },
    });
    expect(created).toMatchObject({ status: 201, body: { userName, externalId, active: true, [enterpriseSchema]: { department: 'Engineering' } } });
    // The roles attribute is ignored: never stored, never a grant.
    expect(created.body).not.toHaveProperty('roles');
    const id = created.body.id as string;
    expect(await getMembership(testStore(), t.tenant.organization.id, id, true)).toBeUndefined();

    expect(await scim(t.token, 'GET', `/Users?filter=${filter(`externalId eq "${externalId}"`)}`)).toMatchObject({ body: { totalResults: 1, Resources: [{ id }] } });

    const patched = await scim(t.token, 'PATCH', `/Users/${id}`, {
      schemas: [patchOp],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        { op: 'Add', path: 'roles', value: [{ value: 'SITE_ADMIN' }] },
      ],
    });
    expect(patched).toMatchObject({ status: 200, body: { emails: [{ type: 'work', value: 'updatedEmail@microsoft.com' }], name: { familyName: 'updatedFamilyName' } } });
    expect(patched.body).not.toHaveProperty('roles');

    // Group: created without members, looked up by displayName, then members added (Entra's capitalized ops).
    const displayName = `Entra Group ${randomUUID().slice(0, 6)}`;
    const group = await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], externalId: randomUUID(), displayName, meta: { resourceType: 'Group' } });
    expect(group.status).toBe(201);
    const groupId = group.body.id as string;
    expect(await scim(t.token, 'GET', `/Groups?excludedAttributes=members&filter=${filter(`displayName eq "${displayName}"`)}`)).toMatchObject({
      status: 200,
      body: { totalResults: 1, Resources: [{ id: groupId, displayName }] },
    });
    expect((await scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: id }] }] })).status).toBe(204);
    await ok(t.admin, setTeamRole, { input: { id: groupId, orgRoleId: 'VIEWER' } });
    const asUser = await keyOf(t, id);
    await ok(asUser, orgRead);

    // Disable with Entra's string boolean, enable again.
    expect(await scim(t.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] })).toMatchObject({
      status: 200,
      body: { active: false },
    });
    expect((await refusal(asUser, orgRead)).status).toBe(403);
    expect(await scim(t.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] })).toMatchObject({ status: 200, body: { active: true } });
    await ok(asUser, orgRead);

    // Member removal the Entra way (value list), rename, then the user's deletion.
    expect((await scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: id }] }] })).status).toBe(204);
    expect((await scim(t.token, 'GET', `/Groups/${groupId}`)).body.members).toEqual([]);
    expect((await scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'Replace', path: 'displayName', value: `${displayName} 2` }] })).status).toBe(204);
    expect((await scim(t.token, 'GET', `/Groups/${groupId}`)).body.displayName).toBe(`${displayName} 2`);
    expect((await scim(t.token, 'DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await scim(t.token, 'GET', `/Users/${id}`)).status).toBe(404);
  });
});

describe('SCIM errors', () => {
  let t: ScimTenant;
  beforeAll(async () => {
    t = await scimTenant();
  });

  it('answers RFC 7644 error bodies with scimType', async () => {
    const userName = `dup.${randomUUID().slice(0, 8)}@acme.test`;
    expect((await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName })).status).toBe(201);
    const duplicate = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: userName.toUpperCase() });
    expect(duplicate).toMatchObject({ status: 409, body: { schemas: [errorSchema], status: '409', scimType: 'uniqueness' } });
    expect(duplicate.contentType).toBe('application/scim+json');
    expect(await scim(t.token, 'GET', `/Users?filter=${filter('userName eq')}`)).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    expect(await scim(t.token, 'POST', '/Users', '{"userName": tre')).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect(await scim(t.token, 'POST', '/Users', { schemas: [userSchema] })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await scim(t.token, 'PATCH', `/Users/${randomUUID()}`, { schemas: [patchOp], Operations: [] })).toMatchObject({ status: 404 });
    expect(await scim(t.token, 'GET', '/Users/not-a-uuid')).toMatchObject({ status: 404, body: { schemas: [errorSchema] } });
    const group = `Dup ${randomUUID().slice(0, 6)}`;
    expect((await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: group })).status).toBe(201);
    expect(await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: group.toLowerCase() })).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    expect(await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: 'x', members: [{ value: randomUUID() }] })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });

  it('filters with eq, co, sw, pr, and, or on userName, externalId, emails.value and displayName', async () => {
    const tag = randomUUID().slice(0, 8);
    const make = (name: string, email: string, extra: Record<string, unknown> = {}) =>
      scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `${name}.${tag}`, displayName: `${name} ${tag}`, emails: [{ value: email, primary: true }], ...extra });
    await make('alpha', `alpha.${tag}@one.test`, { externalId: `ext-${tag}` });
    await make('beta', `beta.${tag}@two.test`);
    const count = async (text: string) => (await scim(t.token, 'GET', `/Users?filter=${filter(text)}`)).body.totalResults as number;
    expect(await count(`userName eq "ALPHA.${tag}"`)).toBe(1);
    expect(await count(`externalId eq "ext-${tag}"`)).toBe(1);
    expect(await count(`externalId eq "EXT-${tag}"`)).toBe(0);
    expect(await count(`emails.value co "${tag}@two"`)).toBe(1);
    expect(await count(`displayName sw "beta ${tag}"`)).toBe(1);
    expect(await count(`userName sw "alpha.${tag}" or userName sw "beta.${tag}"`)).toBe(2);
    expect(await count(`userName co "${tag}" and externalId pr`)).toBe(1);
    const page = await scim(t.token, 'GET', `/Users?filter=${filter(`userName co "${tag}"`)}&startIndex=2&count=1&attributes=userName`);
    expect(page.body).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1 });
    expect(Object.keys(page.body.Resources[0]).sort()).toEqual(['id', 'meta', 'schemas', 'userName']);
  });

  it('ignores the roles attribute, also in PATCH paths', async () => {
    const id = (await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `roles.${randomUUID().slice(0, 8)}@acme.test`, roles: 'not even a list' })).body.id as string;
    const patched = await scim(t.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'Replace', path: 'roles[primary eq "True"].value', value: 'SITE_ADMIN' }] });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('roles');
    expect(await getMembership(testStore(), t.tenant.organization.id, id, true)).toBeUndefined();
  });

  it('refuses PATCH bodies it cannot apply with 400, never 500', async () => {
    const id = (await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `bad.${randomUUID().slice(0, 8)}@acme.test` })).body.id as string;
    for (const Operations of [
      [{ op: 'frob', path: 'userName' }],
      [{ op: 'replace', path: 'emails[type eq]', value: 'x' }],
      [{ op: 'remove' }],
      [{ op: 'replace', path: 'active', value: 'maybe' }],
      'nope',
    ]) {
      const response = await scim(t.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations });
      expect(response.status, JSON.stringify(Operations)).toBe(400);
      expect(response.body.schemas).toEqual([errorSchema]);
    }
    expect((await scim(t.token, 'GET', '/Users/%E0%A4%A')).status).toBe(404);
  });

  it('lands parallel group pushes that add the same people (as Okta sends them)', async () => {
    const tag = randomUUID().slice(0, 6);
    const people = await Promise.all([1, 2, 3].map(async (n) => (await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `par${n}.${tag}@acme.test` })).body.id as string));
    const groups = await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `Parallel ${n} ${tag}` })).body.id as string));
    const statuses = await Promise.all(
      groups.map((groupId) =>
        scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'add', path: 'members', value: people.map((value) => ({ value })) }] }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual([204, 204, 204, 204, 204]);
    for (const person of people) {
      const membership = await getMembership(testStore(), t.tenant.organization.id, person, true);
      expect([...(membership?.teamIds ?? [])].sort()).toEqual([...groups].sort());
    }
  });

  it('deprovisions a user removed from every group they were pushed in, and gives it all back with a new group', async () => {
    const tag = randomUUID().slice(0, 6);
    const id = (await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `ungrouped.${tag}@acme.test` })).body.id as string;
    const [a, b] = (await Promise.all(
      ['A', 'B'].map(async (name) => (await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `${name} ${tag}`, members: [{ value: id }] })).body.id),
    )) as [string, string];
    // An administrator also gives the person a direct role.
    await ok(t.admin, 'mutation($u: String!) { organization { membership { update(userId: $u, roleId: "EDITOR") { rbacRole { id } } } } }', { u: id });
    const asUser = await keyOf(t, id);
    const session = newSession(id);
    await transactWrite(testStore(), [sessionPutItem(session)]);
    const remove = (groupId: string) => scim(t.token, 'PATCH', `/Groups/${groupId}`, { schemas: [patchOp], Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }] });

    expect((await remove(a)).status).toBe(204);
    await ok(asUser, orgRead);
    expect(await listSessionHashesOfUser(testStore(), id)).toHaveLength(1);

    expect((await remove(b)).status).toBe(204);
    expect((await refusal(asUser, orgRead)).status).toBe(403);
    expect(await getMembership(testStore(), t.tenant.organization.id, id, true)).toBeUndefined();
    expect(await listSessionHashesOfUser(testStore(), id)).toEqual([]);
    // The IdP still sees an active user: only the service's access is held aside.
    expect((await scim(t.token, 'GET', `/Users/${id}`)).body.active).toBe(true);

    expect((await scim(t.token, 'PATCH', `/Groups/${a}`, { schemas: [patchOp], Operations: [{ op: 'add', path: 'members', value: [{ value: id }] }] })).status).toBe(204);
    const restored = await getMembership(testStore(), t.tenant.organization.id, id, true);
    expect({ role: restored?.role, teamIds: restored?.teamIds }).toEqual({ role: 'EDITOR', teamIds: [a] });
    await ok(asUser, orgRead);
    expect((await scim(t.token, 'GET', `/Groups/${a}`)).body.members.map((m: { value: string }) => m.value)).toEqual([id]);
  });

  it('links an account by verified address only, and vouches only for addresses in its verified domains', async () => {
    const store = testStore();
    const tag = randomUUID().slice(0, 8);
    const domain = `verified-${tag}.test`;
    await verifyDomain(store, t.tenant.organization.slug, domain);
    const inDomain = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `ada@${domain}`, emails: [{ value: `ada@${domain}`, primary: true }] });
    expect((await getUser(store, inDomain.body.id))?.emailVerified).toBe(true);
    // Outside its verified domains the organization does not claim the address (nobody else could then sign up with it).
    const elsewhere = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `bob.${tag}@elsewhere.test` });
    expect(await getUser(store, elsewhere.body.id)).toMatchObject({ primaryEmail: `bob.${tag}@elsewhere.test`, emails: [], emailVerified: false });
    expect(await findUserIdByEmail(store, `bob.${tag}@elsewhere.test`)).toBeUndefined();
    // An account whose address nobody verified is not taken over: the SCIM user gets an account of its own.
    const unverified = newUserRecord({ email: `carol.${tag}@elsewhere.test`, emailVerified: false });
    await transactWrite(store, userPuts(unverified));
    const carol = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `carol.${tag}@elsewhere.test` });
    expect(carol.body.id).not.toBe(unverified.id);
    expect(await findUserIdByEmail(store, `carol.${tag}@elsewhere.test`)).toBe(unverified.id);
    // Two SCIM users with one verified address (Entra's test data does this) are two accounts.
    const twin = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `twin.${tag}`, emails: [{ value: `ada@${domain}` }] });
    expect(twin.status).toBe(201);
    expect(twin.body.id).not.toBe(inDomain.body.id);
    expect(await findUserIdByEmail(store, `ada@${domain}`)).toBe(inDomain.body.id);
  });

  it('keeps a deactivated user in their groups as the IdP sees them: removal, PUT and reactivation follow', async () => {
    const tag = randomUUID().slice(0, 6);
    const [x, y] = (await Promise.all(['x', 'y'].map(async (n) => (await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `${n}.held.${tag}@acme.test` })).body.id as string))) as [
      string,
      string,
    ];
    const group = (await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `Held ${tag}`, members: [{ value: x }, { value: y }] })).body.id as string;
    const deactivate = (id: string, active: boolean) => scim(t.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'replace', path: 'active', value: active }] });
    await deactivate(x, false);
    await deactivate(y, false);
    // The IdP replaces the membership with y only: x leaves the group while deactivated.
    expect((await scim(t.token, 'PUT', `/Groups/${group}`, { schemas: [groupSchema], displayName: `Held ${tag}`, members: [{ value: y }] })).status).toBe(200);
    expect((await scim(t.token, 'GET', `/Groups/${group}`)).body.members.map((m: { value: string }) => m.value)).toEqual([y]);
    await deactivate(x, true);
    await deactivate(y, true);
    expect(await getMembership(testStore(), t.tenant.organization.id, x, true)).toBeUndefined();
    expect((await getMembership(testStore(), t.tenant.organization.id, y, true))?.teamIds).toEqual([group]);
    expect((await ok(t.admin, teamMembers, { id: group })).organization.team.members).toEqual([{ id: y }]);
  });

  it('keeps the activation state when a PUT leaves active out', async () => {
    const created = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `put.${randomUUID().slice(0, 8)}@acme.test`, active: false });
    expect(created.body.active).toBe(false);
    const put = await scim(t.token, 'PUT', `/Users/${created.body.id}`, { schemas: [userSchema], userName: created.body.userName, displayName: 'Still dormant' });
    expect(put).toMatchObject({ status: 200, body: { active: false, displayName: 'Still dormant' } });
  });

  it('deprovisioning the last Site Admin is refused, not half done', async () => {
    const userName = `owner.${randomUUID().slice(0, 8)}@acme.test`;
    const bootstrapEmail = (await ok(t.admin, '{ user { me { user { primaryEmail } } } }')).user.me.user.primaryEmail as string;
    // The IdP provisions the organization's only Site Admin (matched by verified address).
    const admin = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName, emails: [{ value: bootstrapEmail, primary: true }] });
    expect(admin.body.id).toBe(t.tenant.user.id);
    const refused = await scim(t.token, 'PATCH', `/Users/${admin.body.id}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(refused).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(refused.body.detail).toContain('last Site Admin');
    expect((await scim(t.token, 'GET', `/Users/${admin.body.id}`)).body.active).toBe(true);
    await ok(t.admin, orgRead);
  });

  it('brings a deleted group back, with its roles, when the IdP creates it again', async () => {
    const displayName = `Comeback ${randomUUID().slice(0, 6)}`;
    const first = (await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName })).body.id as string;
    await ok(t.admin, setTeamRole, { input: { id: first, orgRoleId: 'REVIEWER' } });
    expect((await scim(t.token, 'DELETE', `/Groups/${first}`)).status).toBe(204);
    const again = await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName, externalId: 'ext-2' });
    expect(again).toMatchObject({ status: 201, body: { id: first, displayName, externalId: 'ext-2' } });
    const team = await ok(t.admin, 'query($id: ID!) { organization { team(id: $id) { archived orgRoleId } } }', { id: first });
    expect(team.organization.team).toEqual({ archived: false, orgRoleId: 'REVIEWER' });
  });

  it('lists users with their groups; groups sent by the IdP are ignored, as read-only attributes are', async () => {
    const tag = randomUUID().slice(0, 8);
    const [a, b] = await Promise.all(
      ['a', 'b'].map(async (n) => (await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `${n}.${tag}@acme.test`, groups: [{ value: randomUUID() }] })).body),
    );
    expect(a).not.toHaveProperty('groups');
    const group = (await scim(t.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `Listed ${tag}`, members: [{ value: a.id }] })).body;
    const listed = await scim(t.token, 'GET', `/Users?filter=${filter(`userName sw "a.${tag}" or userName sw "b.${tag}"`)}`);
    const groupsById = Object.fromEntries(listed.body.Resources.map((user: { id: string; groups?: { value: string }[] }) => [user.id, user.groups?.map((g) => g.value) ?? []]));
    expect(groupsById).toEqual({ [a.id]: [group.id], [b.id]: [] });
    // A filter on the groups attribute sees them too; excludedAttributes leaves them out.
    const byGroup = await scim(t.token, 'GET', `/Users?filter=${filter(`groups.value eq "${group.id}"`)}`);
    expect(byGroup.body.Resources.map((user: { id: string }) => user.id)).toEqual([a.id]);
    const without = await scim(t.token, 'GET', `/Users/${a.id}?excludedAttributes=groups`);
    expect(without.body).not.toHaveProperty('groups');
    // A PUT carrying groups changes no membership.
    const put = await scim(t.token, 'PUT', `/Users/${b.id}`, { schemas: [userSchema], userName: b.userName, groups: [{ value: group.id }] });
    expect(put.status).toBe(200);
    expect(put.body).not.toHaveProperty('groups');
    expect((await scim(t.token, 'GET', `/Groups/${group.id}`)).body.members.map((m: { value: string }) => m.value)).toEqual([a.id]);
  });

  it('does not rename an account the person made themselves when the IdP renames its SCIM user', async () => {
    // In a domain the organization verified: only there (or for its members) does SCIM bind an existing account.
    const userName = `self.${randomUUID().slice(0, 8)}@${t.tenant.organization.slug}.test`;
    const store = testStore();
    const own = newUserRecord({ email: userName, name: 'Ada Lovelace', emailVerified: true });
    await transactWrite(store, userPuts(own));
    const created = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName, emails: [{ value: userName, primary: true }], displayName: 'Ada L.' });
    expect(created.body.id).toBe(own.id);
    expect((await scim(t.token, 'PATCH', `/Users/${own.id}`, { schemas: [patchOp], Operations: [{ op: 'replace', path: 'displayName', value: 'Countess of Lovelace' }] })).body.displayName).toBe(
      'Countess of Lovelace',
    );
    expect(await getUser(store, own.id)).toMatchObject({ name: 'Ada Lovelace' });
  });

  it('serves the discovery endpoints', async () => {
    expect(await scim(t.token, 'GET', '/ServiceProviderConfig')).toMatchObject({ status: 200, body: { patch: { supported: true }, filter: { supported: true } } });
    expect((await scim(t.token, 'GET', '/ResourceTypes')).body.Resources.map((r: { endpoint: string }) => r.endpoint)).toEqual(['/Users', '/Groups']);
    expect((await scim(t.token, 'GET', '/Schemas')).body.Resources.map((r: { id: string }) => r.id)).toEqual([userSchema, enterpriseSchema, groupSchema]);
  });
});
