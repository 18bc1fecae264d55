import { beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../lib/orgs/operator.js';
import { gqlOk, newTenant, ok, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';

const createPart = `mutation($name: String!) { component { create(inputs: [{ name: $name, categoryId: "mechanical" }]) { id } } }`;
const updateAccess = `mutation($input: UpdateLibraryAccessInput!) { organization { membership { updateLibraryAccess(input: $input) } } }`;
const setRole = `mutation($userId: String!, $roleId: String!) { organization { membership { update(userId: $userId, roleId: $roleId) { userId role hasDirectOrgRole rbacRole { id name } } } } }`;
const removeRole = `mutation($userId: String!) { organization { membership { removeOrgRole(userId: $userId) } } }`;

async function canCreate(headers: Record<string, string>): Promise<boolean | string> {
  const result = await refusal(headers, createPart, { name: `part ${Math.random()}` });
  if (!result.error) return true;
  expect(result.code).toBe('FORBIDDEN');
  expect(result.status).toBe(403);
  return result.error.extensions?.requiredPermission as string;
}

describe('effective roles: organization role, library overrides, teams', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let second: { id: string; path: string };

  beforeAll(async () => {
    tenant = await newTenant();
    admin = tenantHeaders(tenant);
    const created = await gqlOk<any>(tenant, 'mutation { library { create(input: { name: "Second", slug: "second" }) { id path } } }');
    second = created.library.create;
  });

  /** The member's key in the second library (same person, same role). */
  async function inSecond(member: Member, role: string): Promise<Record<string, string>> {
    const again = await addMember(testStore(), { orgSlug: tenant.organization.slug, email: member.email, role, apiKeyLibrary: 'second' });
    return { ...member.headers, 'x-api-key': again.apiKey!, 'x-library': second.path };
  }

  it('a library role narrows the organization role in that library only', async () => {
    const editor = await memberWithRole(tenant, 'EDITOR');
    const editorSecond = await inSecond(editor, 'EDITOR');
    expect(await canCreate(editor.headers)).toBe(true);
    await ok(admin, updateAccess, { input: { userId: editor.userId, libraryId: tenant.library.id, roleId: 'Viewer' } });
    expect(await canCreate(editor.headers)).toBe('components.create');
    expect(await canCreate(editorSecond)).toBe(true);
    // Reads still work where the override is Viewer.
    await ok(editor.headers, 'query { component { findAll { totalCount } } }');
    // Clearing the override gives the organization role back.
    await ok(admin, updateAccess, { input: { userId: editor.userId, libraryId: tenant.library.id, roleId: null } });
    expect(await canCreate(editor.headers)).toBe(true);
  });

  it('a library role widens the organization role in that library only', async () => {
    const viewer = await memberWithRole(tenant, 'VIEWER');
    const viewerSecond = await inSecond(viewer, 'VIEWER');
    expect(await canCreate(viewerSecond)).toBe('components.create');
    await ok(admin, updateAccess, { input: { userId: viewer.userId, libraryId: second.id, roleId: 'LIBRARY_EDITOR' } });
    expect(await canCreate(viewerSecond)).toBe(true);
    expect(await canCreate(viewer.headers)).toBe('components.create');
    const members = await ok(admin, 'query { organization { members { userId role hasDirectOrgRole rbacRole { id } libraryAccess { libraryId roleId source role { name type } } } } }');
    const me = members.organization.members.find((m: { userId: string }) => m.userId === viewer.userId);
    expect(me).toMatchObject({ role: 'VIEWER', hasDirectOrgRole: true, rbacRole: { id: 'VIEWER' } });
    expect(me.libraryAccess).toEqual([{ libraryId: second.id, roleId: 'LIBRARY_EDITOR', source: 'DIRECT', role: { name: 'Editor', type: 'LIBRARY' } }]);
  });

  it('a library override refuses organization roles and unknown libraries', async () => {
    const viewer = await memberWithRole(tenant, 'VIEWER');
    expect((await refusal(admin, updateAccess, { input: { userId: viewer.userId, libraryId: second.id, roleId: 'SITE_ADMIN' } })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(admin, updateAccess, { input: { userId: viewer.userId, libraryId: crypto.randomUUID(), roleId: 'Editor' } })).code).toBe('NOT_FOUND');
  });

  it('a team grant works while the person is in the team and stops on removal or archive', async () => {
    const viewer = await memberWithRole(tenant, 'VIEWER');
    expect(await canCreate(viewer.headers)).toBe('components.create');
    const team = await ok(admin, 'mutation($input: CreateTeamInput!) { organization { teams { create(input: $input) { id name orgRole { id } members { id } } } } }', {
      input: { name: `Mechanical ${Math.random()}`, orgRoleId: 'EDITOR', memberIds: [viewer.userId] },
    });
    const teamId = team.organization.teams.create.id;
    expect(team.organization.teams.create.members).toEqual([{ id: viewer.userId }]);
    expect(await canCreate(viewer.headers)).toBe(true);

    await ok(admin, 'mutation($id: ID!) { organization { teams { archive(id: $id) { archived } } } }', { id: teamId });
    expect(await canCreate(viewer.headers)).toBe('components.create');
    await ok(admin, 'mutation($id: ID!) { organization { teams { restore(id: $id) { archived } } } }', { id: teamId });
    expect(await canCreate(viewer.headers)).toBe(true);

    await ok(admin, 'mutation($id: ID!, $users: [ID!]!) { organization { teams { removeMembers(id: $id, userIds: $users) { id } } } }', { id: teamId, users: [viewer.userId] });
    expect(await canCreate(viewer.headers)).toBe('components.create');
  });

  it('a team-only member keeps access through the team, and leaves with it', async () => {
    const person = await memberWithRole(tenant, 'VIEWER');
    const team = await ok(admin, 'mutation($input: CreateTeamInput!) { organization { teams { create(input: $input) { id } } } }', {
      input: { name: `Team-only ${Math.random()}`, orgRoleId: 'EDITOR', memberIds: [person.userId] },
    });
    await ok(admin, removeRole, { userId: person.userId });
    expect(await canCreate(person.headers)).toBe(true);
    const members = await ok(admin, 'query { organization { members { userId hasDirectOrgRole rbacRole { id } teams { id } } } }');
    expect(members.organization.members.find((m: { userId: string }) => m.userId === person.userId)).toEqual({
      userId: person.userId,
      hasDirectOrgRole: false,
      rbacRole: { id: 'EDITOR' },
      teams: [{ id: team.organization.teams.create.id }],
    });
    await ok(admin, 'mutation($id: ID!, $users: [ID!]!) { organization { teams { removeMembers(id: $id, userIds: $users) { id } } } }', {
      id: team.organization.teams.create.id,
      users: [person.userId],
    });
    const gone = await refusal(person.headers, createPart, { name: 'x' });
    expect([gone.status, gone.code]).toEqual([403, 'ORGANIZATION_ACCESS_DENIED']);
  });

  it('a change of role takes effect on the next request', async () => {
    const viewer = await memberWithRole(tenant, 'VIEWER');
    expect(await canCreate(viewer.headers)).toBe('components.create');
    const updated = await ok(admin, setRole, { userId: viewer.userId, roleId: 'USER' });
    // The v1 name USER means EDITOR.
    expect(updated.organization.membership.update).toEqual({ userId: viewer.userId, role: 'EDITOR', hasDirectOrgRole: true, rbacRole: { id: 'EDITOR', name: 'Editor' } });
    expect(await canCreate(viewer.headers)).toBe(true);
  });

  it('keeps the last Site Admin', async () => {
    const other = await newTenant();
    const headers = tenantHeaders(other);
    const self = other.user.id;
    expect((await refusal(headers, setRole, { userId: self, roleId: 'EDITOR' })).code).toBe('LAST_SITE_ADMIN');
    expect((await refusal(headers, removeRole, { userId: self })).code).toBe('LAST_SITE_ADMIN');
    const second = await memberWithRole(other, 'SITE_ADMIN');
    await ok(headers, setRole, { userId: self, roleId: 'EDITOR' });
    // Now the other one is the last.
    expect((await refusal(second.headers, removeRole, { userId: second.userId })).code).toBe('LAST_SITE_ADMIN');
    expect((await refusal(second.headers, setRole, { userId: crypto.randomUUID(), roleId: 'EDITOR' })).code).toBe('NOT_A_MEMBER');
  });

  it('nobody grants more than they hold', async () => {
    const orgAdmin = await memberWithRole(tenant, 'ADMIN');
    const viewer = await memberWithRole(tenant, 'VIEWER');
    const refused = await refusal(orgAdmin.headers, setRole, { userId: viewer.userId, roleId: 'SITE_ADMIN' });
    expect([refused.status, refused.code, refused.error?.extensions?.requiredPermission]).toEqual([403, 'FORBIDDEN', 'integrations.configure']);
    await ok(orgAdmin.headers, setRole, { userId: viewer.userId, roleId: 'EDITOR' });
  });

  it('removing the organization role keeps library roles; with nothing left the person is out', async () => {
    const person = await memberWithRole(tenant, 'EDITOR');
    const personSecond = await inSecond(person, 'EDITOR');
    await ok(admin, updateAccess, { input: { userId: person.userId, libraryId: second.id, roleId: 'Editor' } });
    await ok(admin, removeRole, { userId: person.userId });
    expect(await canCreate(personSecond)).toBe(true);
    expect(await canCreate(person.headers)).toBe('components.create');
    const libraries = await ok(person.headers, 'query { libraries { id } }');
    expect(libraries.libraries).toEqual([{ id: second.id }]);
    await ok(admin, updateAccess, { input: { userId: person.userId, libraryId: second.id, roleId: null } });
    const out = await refusal(personSecond, createPart, { name: 'x' });
    expect([out.status, out.code]).toEqual([403, 'ORGANIZATION_ACCESS_DENIED']);
  });
});

describe('roles', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  beforeAll(async () => {
    tenant = await newTenant();
    admin = tenantHeaders(tenant);
  });
  const create = 'mutation($input: CreateRoleInput!) { roles { create(input: $input) { id name type isAdmin isSystemRole permissions { name resource action } } } }';

  it('lists the permission catalogue and the organization roles', async () => {
    const data = await ok(admin, 'query { roles { allPermissions { id name resource action description } } organization { current { roles { id name type isSystemRole isAdmin } } } }');
    expect(data.roles.allPermissions).toHaveLength(41);
    expect(data.roles.allPermissions).toContainEqual(expect.objectContaining({ id: 'components.revision.create', resource: 'components', action: 'revision.create' }));
    expect(data.organization.current.roles.map((r: { id: string }) => r.id)).toEqual([
      'SITE_ADMIN',
      'ADMIN',
      'EDITOR',
      'REVIEWER',
      'VIEWER',
      'SUPPLIER',
      'LIBRARY_ADMIN',
      'LIBRARY_EDITOR',
      'LIBRARY_REVIEWER',
      'LIBRARY_VIEWER',
    ]);
  });

  it('refuses to edit or delete system roles', async () => {
    expect((await refusal(admin, 'mutation { roles { update(input: { id: "EDITOR", name: "Writer" }) { id } } }')).code).toBe('SYSTEM_ROLE_IMMUTABLE');
    expect((await refusal(admin, 'mutation { roles { delete(input: { id: "LIBRARY_VIEWER" }) } }')).code).toBe('SYSTEM_ROLE_IMMUTABLE');
  });

  it('validates custom roles', async () => {
    const bad = (input: Record<string, unknown>) => refusal(admin, create, { input });
    expect((await bad({ name: 'X', type: 'ORG', permissions: ['components.fly'] })).code).toBe('BAD_USER_INPUT');
    expect((await bad({ name: 'X', type: 'LIBRARY', permissions: ['organization.users.invite'] })).code).toBe('BAD_USER_INPUT');
    expect((await bad({ name: 'Editor', type: 'ORG', permissions: ['components.read'] })).code).toBe('ALREADY_EXISTS');
    expect((await bad({ name: 'X', type: 'ORG', permissions: [] })).code).toBe('BAD_USER_INPUT');
    await ok(admin, create, { input: { name: 'Drafter', type: 'ORG', permissions: ['components.read'] } });
    expect((await bad({ name: 'drafter', type: 'LIBRARY', permissions: ['components.read'] })).code).toBe('ALREADY_EXISTS');
  });

  it('a role in use cannot be deleted until its holders are reassigned; edits reach holders on their next request', async () => {
    const role = (await ok(admin, create, { input: { name: 'Librarian', type: 'LIBRARY', permissions: ['library.read', 'components.read'] } })).roles.create;
    expect(role).toMatchObject({ type: 'LIBRARY', isAdmin: false, isSystemRole: false });
    const member = await memberWithRole(tenant, 'EDITOR');
    await ok(admin, updateAccess, { input: { userId: member.userId, libraryId: tenant.library.id, roleId: 'Librarian' } });
    expect(await canCreate(member.headers)).toBe('components.create');

    const inUse = await refusal(admin, 'mutation($id: ID!) { roles { delete(input: { id: $id }) } }', { id: role.id });
    expect([inUse.code, inUse.error?.extensions?.holders]).toEqual(['ROLE_IN_USE', 1]);

    await ok(admin, 'mutation($input: UpdateRoleInput!) { roles { update(input: $input) { id } } }', {
      input: { id: role.id, permissions: ['library.read', 'components.read', 'components.create'] },
    });
    expect(await canCreate(member.headers)).toBe(true);

    await ok(admin, updateAccess, { input: { userId: member.userId, libraryId: tenant.library.id, roleId: null } });
    expect(await ok(admin, 'mutation($id: ID!) { roles { delete(input: { id: $id }) } }', { id: role.id })).toEqual({ roles: { delete: true } });
    expect(await ok(admin, 'query($id: ID!) { roles { findById(id: $id) { id } } }', { id: role.id })).toEqual({ roles: { findById: null } });
  });

  it('a custom organization role is what its holder can do', async () => {
    const role = (await ok(admin, create, { input: { name: 'Reader plus', type: 'ORG', permissions: ['library.read', 'components.read', 'components.create'] } })).roles.create;
    const member = await memberWithRole(tenant, 'Reader plus');
    expect(await canCreate(member.headers)).toBe(true);
    const updated = await refusal(member.headers, 'mutation($input: UpdateComponentInput!) { component { update(inputs: [$input]) { id } } }', {
      input: { id: crypto.randomUUID(), name: 'x' },
    });
    expect([updated.code, updated.error?.extensions?.requiredPermission]).toEqual(['FORBIDDEN', 'components.update']);
    const found = await ok(admin, 'query($id: ID!) { roles { findById(id: $id) { id name permissions { name } } } }', { id: role.id });
    expect(found.roles.findById.permissions.map((p: { name: string }) => p.name)).toEqual(['components.create', 'components.read', 'library.read']);
  });
});
