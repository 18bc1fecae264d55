import { describe, expect, it } from 'vitest';
import { customRole, EffectiveAccess, grantsOf } from '../../lib/access/effective.js';
import { systemLibraryRoleNamed, systemLibraryRoles, systemOrganizationRoleNamed, systemRoleFor, systemRoles } from '../../lib/access/roles.js';
import { defaultIntegrationKeyPermissions } from '../../lib/access/keyRole.js';
import type { MembershipRecord } from '../../lib/store/membership.js';
import type { TeamRecord } from '../../lib/store/team.js';

const lib = { a: '00000000-0000-4000-8000-00000000000a', b: '00000000-0000-4000-8000-00000000000b' };
const custom = customRole({
  id: '00000000-0000-4000-8000-0000000000cc',
  organizationId: '00000000-0000-4000-8000-000000000001',
  name: 'Release manager',
  description: '',
  type: 'LIBRARY',
  permissions: ['components.read', 'change_orders.release', 'not.a.permission'],
  holders: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});
const roleOf = (id: string) => systemRoleFor(id) ?? (id === custom.id ? custom : undefined);

function membership(fields: Partial<MembershipRecord>): MembershipRecord {
  return {
    organizationId: '00000000-0000-4000-8000-000000000001',
    userId: '00000000-0000-4000-8000-000000000002',
    role: null,
    libraryRoles: {},
    teamIds: [],
    createdAt: '',
    rev: 0,
    ...fields,
  } as MembershipRecord;
}
function team(id: string, fields: Partial<TeamRecord>): TeamRecord {
  return { id, organizationId: '', name: id, orgRoleId: null, libraryRoles: {}, archived: false, managedBy: null, externalId: null, rev: 0, createdAt: '', updatedAt: '', ...fields };
}

describe('effective access', () => {
  it('a library role replaces the organization role in its library only', () => {
    const access = new EffectiveAccess(grantsOf(membership({ role: 'EDITOR', libraryRoles: { [lib.a]: 'LIBRARY_VIEWER' } }), new Map()), roleOf);
    expect(access.libraryPermissions(lib.a).has('components.create')).toBe(false);
    expect(access.libraryPermissions(lib.a).has('components.read')).toBe(true);
    expect(access.libraryPermissions(lib.b).has('components.create')).toBe(true);
    expect(access.organizationPermissions()).toEqual(systemRoles.EDITOR.permissions);
  });

  it('is the union of direct and team grants, each with its own overrides; archived teams give nothing', () => {
    const teams = new Map([
      ['t1', team('t1', { orgRoleId: 'VIEWER', libraryRoles: { [lib.b]: custom.id } })],
      ['t2', team('t2', { orgRoleId: 'ADMIN', archived: true })],
    ]);
    const access = new EffectiveAccess(grantsOf(membership({ role: null, libraryRoles: { [lib.a]: 'LIBRARY_EDITOR' }, teamIds: ['t1', 't2', 'gone'] }), teams), roleOf);
    expect(access.hasAnyGrant).toBe(true);
    expect(access.libraryPermissions(lib.a).has('components.create')).toBe(true);
    expect(access.libraryPermissions(lib.b).has('change_orders.release')).toBe(true);
    expect(access.libraryPermissions(lib.b).has('library.read')).toBe(false);
    expect(access.organizationPermissions()).toEqual(systemRoles.VIEWER.permissions);
    expect(access.isSiteAdmin).toBe(false);
  });

  it('a membership with nothing in it grants nothing', () => {
    const access = new EffectiveAccess(grantsOf(membership({}), new Map()), roleOf);
    expect(access.hasAnyGrant).toBe(false);
    expect(access.libraryPermissions(lib.a).size).toBe(0);
  });

  it("an API key's role caps its owner's permissions: the intersection, never more than either", () => {
    const owner = new EffectiveAccess(grantsOf(membership({ role: 'SITE_ADMIN', libraryRoles: { [lib.a]: 'LIBRARY_VIEWER' } }), new Map()), roleOf);
    expect(owner.isSiteAdmin).toBe(true);
    const key = owner.capped(defaultIntegrationKeyPermissions);
    expect(key.organizationPermissions()).toEqual(defaultIntegrationKeyPermissions);
    expect(key.organizationPermissions().has('integrations.configure')).toBe(false);
    expect([...key.organizationPermissions()].some((p) => p.startsWith('roles.'))).toBe(false);
    expect(key.organizationPermissions().has('components.update')).toBe(true);
    // In lib.a the owner is only a Viewer: the key's Editor-like role adds nothing there.
    expect(key.libraryPermissions(lib.a)).toEqual(systemLibraryRoles.LIBRARY_VIEWER.permissions);
    expect(key.isSiteAdmin).toBe(false);
    // A Site Admin role given explicitly keeps the owner's Site Admin; a second cap narrows further.
    expect(owner.capped(systemRoles.SITE_ADMIN.permissions).isSiteAdmin).toBe(true);
    expect([...key.capped(systemRoles.VIEWER.permissions).organizationPermissions()].every((p) => p.endsWith('.read'))).toBe(true);
  });

  it('drops unknown permission names from stored roles and derives isAdmin', () => {
    expect([...custom.permissions].sort()).toEqual(['change_orders.release', 'components.read']);
    expect(custom.isAdmin).toBe(false);
  });

  it('maps role names, legacy ones included', () => {
    expect(systemOrganizationRoleNamed('USER')?.id).toBe('EDITOR');
    expect(systemOrganizationRoleNamed('approver')?.id).toBe('EDITOR');
    expect(systemOrganizationRoleNamed('Site Admin')?.id).toBe('SITE_ADMIN');
    expect(systemLibraryRoleNamed('Editor')?.id).toBe('LIBRARY_EDITOR');
    expect(systemLibraryRoleNamed('LIBRARY_VIEWER')?.id).toBe('LIBRARY_VIEWER');
    expect(systemLibraryRoleNamed('Site Admin')).toBeUndefined();
    expect([...systemRoles.REVIEWER.permissions].filter((p) => !p.endsWith('.read'))).toEqual(['change_orders.approve', 'change_orders.reject', 'comments.create', 'comments.update']);
  });
});
