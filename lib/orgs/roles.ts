import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { customRole, findRole, type EffectiveAccess } from '../access/effective.js';
import { allPermissions, isPermissionName, type PermissionName } from '../access/permissions.js';
import { allSystemRoles, isLibraryPermission, isSystemRoleId, systemLibraryRoleNamed, systemOrganizationRoleNamed, systemRoleFor, type Role, type RoleType } from '../access/roles.js';
import { AccessAdminError, AlreadyExistsError, InvalidInputError, NotFoundError, PermissionDeniedError } from '../errors.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite } from '../store/items.js';
import { getLibrary } from '../store/library.js';
import { findRoleIdByName, getRole, listRoles, roleDeleteItems, rolePuts, roleUpdateItems, type RoleRecord } from '../store/role.js';
import { parseInput } from '../input.js';
import { isUuid } from '../model/slugs.js';

/** Custom role ids are UUIDs; system role ids are names (SITE_ADMIN, LIBRARY_EDITOR...). */
export const isCustomRoleId = (id: string) => !isSystemRoleId(id);

/** Every role of an organization: the system roles, then its custom roles by name. */
export async function organizationRoles(store: Store, orgId: string): Promise<Role[]> {
  const custom = (await listRoles(store, orgId)).map(customRole).sort((a, b) => a.name.localeCompare(b.name));
  return [...allSystemRoles, ...custom];
}

/**
 * The role a client names, of the type required: a role id (system or custom), a system role name (with
 * the legacy names USER and APPROVER meaning EDITOR), or a custom role's name. Unknown: BAD_USER_INPUT.
 */
export async function resolveRole(store: Store, orgId: string, reference: string, type: RoleType, field: string): Promise<Role> {
  const trimmed = reference.trim();
  let role = await findRole(store, orgId, trimmed);
  role ??= type === 'ORG' ? systemOrganizationRoleNamed(trimmed) : systemLibraryRoleNamed(trimmed);
  if (!role && trimmed) {
    const id = await findRoleIdByName(store, orgId, trimmed);
    role = id ? await findRole(store, orgId, id) : undefined;
  }
  if (!role) throw new InvalidInputError(`${field}: no role "${reference}" in this organization`, { field });
  if (role.type !== type) {
    throw new InvalidInputError(`${field}: "${role.name}" is ${role.type === 'ORG' ? 'an organization' : 'a library'} role; a ${type === 'ORG' ? 'organization' : 'library'} role is needed here`, {
      field,
    });
  }
  return role;
}

/**
 * Nobody hands out more than they hold: granting or defining a role needs every permission in it
 * (403 FORBIDDEN naming the first one missing).
 */
export function assertHoldsAll(held: ReadonlySet<PermissionName>, wanted: Iterable<PermissionName>): void {
  for (const permission of wanted) if (!held.has(permission)) throw new PermissionDeniedError(permission);
}

/**
 * The library roles a grant names (an invitation's, a team's): each library of the organization once, each
 * role resolved as a library role (resolveRole) and within what the actor holds there (assertHoldsAll).
 * `roleField` is the input field naming the role (`roleName` for an invitation, `roleId` for a team).
 * Returns library id -> role id.
 */
export async function resolveLibraryRoles(
  store: Store,
  orgId: string,
  actor: EffectiveAccess,
  assignments: readonly { libraryId: string; role: string }[],
  roleField: string,
): Promise<Record<string, string>> {
  const resolved: Record<string, string> = {};
  for (const [index, assignment] of assignments.entries()) {
    const field = `input.libraryRoles[${index}]`;
    const library = isUuid(assignment.libraryId) ? await getLibrary(store, orgId, assignment.libraryId.toLowerCase()) : undefined;
    if (!library) throw new InvalidInputError(`${field}.libraryId: no library ${assignment.libraryId} in this organization`, { field: `${field}.libraryId` });
    // One role per library: a second entry for it replaced the first without a word.
    if (library.id in resolved) throw new InvalidInputError(`${field}.libraryId: library ${library.id} is named twice; give it one role`, { field: `${field}.libraryId` });
    const role = await resolveRole(store, orgId, assignment.role, 'LIBRARY', `${field}.${roleField}`);
    assertHoldsAll(new Set([...actor.organizationPermissions(), ...actor.libraryPermissions(library.id)]), role.permissions);
    resolved[library.id] = role.id;
  }
  return resolved;
}

const roleName = z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters');
const roleDescription = z.string().trim().max(500, 'description is at most 500 characters');

export const createRoleInput = z.object({
  name: roleName,
  description: roleDescription.nullish(),
  type: z.enum(['ORG', 'LIBRARY']),
  permissions: z
    .array(z.string())
    .min(1, 'permissions must name at least one permission')
    .max(allPermissions.length * 2),
});
/** An update: omitted fields stay; null empties the description and is refused for name and permissions, never ignored. */
export const updateRoleInput = z.object({
  id: z.string(),
  name: roleName.optional(),
  description: roleDescription.nullish(),
  permissions: z
    .array(z.string())
    .min(1, 'permissions must name at least one permission')
    .max(allPermissions.length * 2)
    .optional(),
});

/** Permission names of a role definition: known ones only, and only library resources in a library role. */
function checkedPermissions(type: RoleType, names: readonly string[]): PermissionName[] {
  const unknown = names.filter((name) => !isPermissionName(name));
  if (unknown.length) {
    throw new InvalidInputError(`input.permissions: unknown permission${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (roles.allPermissions lists them)`, {
      field: 'input.permissions',
    });
  }
  const permissions = [...new Set(names as PermissionName[])].sort();
  const outside = type === 'LIBRARY' ? permissions.filter((name) => !isLibraryPermission(name)) : [];
  if (outside.length) {
    throw new InvalidInputError(`input.permissions: a library role carries library permissions only, not ${outside.join(', ')}`, { field: 'input.permissions' });
  }
  return permissions;
}

function assertNotSystemName(name: string): void {
  const taken = allSystemRoles.find((role) => role.name.toLowerCase() === name.trim().toLowerCase() || role.id.toLowerCase() === name.trim().toLowerCase());
  if (taken) throw new AlreadyExistsError(`"${name}" is the name of a system role`, { field: 'input.name' });
}

export async function createRole(store: Store, orgId: string, held: ReadonlySet<PermissionName>, rawInput: unknown): Promise<Role> {
  const input = parseInput(createRoleInput, rawInput);
  const permissions = checkedPermissions(input.type, input.permissions);
  assertHoldsAll(held, permissions);
  assertNotSystemName(input.name);
  const at = nowIso();
  const record: RoleRecord = {
    id: randomUUID(),
    organizationId: orgId,
    name: input.name,
    description: input.description ?? '',
    type: input.type,
    permissions,
    holders: 0,
    createdAt: at,
    updatedAt: at,
  };
  await transactWrite(store, rolePuts(record));
  return customRole(record);
}

async function customRoleForChange(store: Store, orgId: string, id: string): Promise<RoleRecord> {
  if (isSystemRoleId(id)) throw new AccessAdminError('SYSTEM_ROLE_IMMUTABLE', `${systemRoleFor(id)!.name} is a system role: it cannot be edited or deleted`, { id });
  const record = isUuid(id) ? await getRole(store, orgId, id.toLowerCase()) : undefined;
  if (!record) throw new NotFoundError('Role', id);
  return record;
}

export async function updateRole(store: Store, orgId: string, held: ReadonlySet<PermissionName>, rawInput: unknown): Promise<Role> {
  const input = parseInput(updateRoleInput, rawInput);
  const before = await customRoleForChange(store, orgId, input.id);
  const permissions = input.permissions ? checkedPermissions(before.type, input.permissions) : before.permissions;
  // Changing a role changes what its holders can do: the editor must hold what it had and what it gets.
  assertHoldsAll(held, [...new Set([...(before.permissions as PermissionName[]), ...(permissions as PermissionName[])])]);
  if (input.name) assertNotSystemName(input.name);
  const after: RoleRecord = {
    ...before,
    name: input.name ?? before.name,
    description: input.description === undefined ? before.description : (input.description ?? ''),
    permissions,
    updatedAt: nowIso(),
  };
  if (after.updatedAt === before.updatedAt) after.updatedAt = new Date(Date.parse(before.updatedAt) + 1).toISOString();
  await transactWrite(store, roleUpdateItems(before, after));
  return customRole(after);
}

/** Deletes a custom role nobody holds (people, teams and pending invitations count); ROLE_IN_USE otherwise. */
export async function deleteRole(store: Store, orgId: string, held: ReadonlySet<PermissionName>, id: string): Promise<boolean> {
  const record = await customRoleForChange(store, orgId, id);
  assertHoldsAll(held, record.permissions as PermissionName[]);
  await transactWrite(store, roleDeleteItems(record, id));
  return true;
}
