import { allPermissions, type PermissionName } from './permissions.js';

/** OrganizationRoleEnum of the spec: the system organization roles. Their ids are these names. */
export const organizationRoles = ['SITE_ADMIN', 'ADMIN', 'EDITOR', 'REVIEWER', 'VIEWER', 'SUPPLIER'] as const;
export type OrganizationRoleName = (typeof organizationRoles)[number];

/** System library roles (Admin, Editor, Reviewer, Viewer); their ids are these names. */
export const libraryRoleIds = ['LIBRARY_ADMIN', 'LIBRARY_EDITOR', 'LIBRARY_REVIEWER', 'LIBRARY_VIEWER'] as const;
export type LibraryRoleId = (typeof libraryRoleIds)[number];

export type RoleType = 'ORG' | 'LIBRARY';

/**
 * A role: a named set of permissions. System roles are the same in every organization (their ids are
 * stable names such as SITE_ADMIN or LIBRARY_EDITOR) and cannot be edited or deleted; custom roles belong
 * to one organization and have UUIDs.
 */
export interface Role {
  id: string;
  name: string;
  description: string;
  type: RoleType;
  isAdmin: boolean;
  isSystemRole: boolean;
  permissions: ReadonlySet<PermissionName>;
  createdAt: string | null;
  updatedAt: string | null;
}

/**
 * The resources a library role can carry: what is checked inside a library. Organization, roles and user
 * management stay with organization roles.
 */
export const libraryResources: ReadonlySet<string> = new Set(['components', 'assemblies', 'change_orders', 'library', 'comments', 'integrations']);

export function isLibraryPermission(name: PermissionName): boolean {
  return libraryResources.has(name.split('.')[0]!);
}

function permissionsWhere(test: (name: PermissionName) => boolean): ReadonlySet<PermissionName> {
  return new Set(allPermissions.map((p) => p.name).filter(test));
}

const readActions = (name: PermissionName) => name.endsWith('.read');

const editorPermissions = (name: PermissionName) =>
  readActions(name) ||
  name.startsWith('components.') ||
  name.startsWith('assemblies.') ||
  (name.startsWith('change_orders.') && name !== 'change_orders.reset') ||
  (name.startsWith('comments.') && name !== 'comments.moderate');

/** REVIEWER keeps Viewer-level reads (the spec's legacy mapping) and adds reviewing and commenting. */
const reviewerPermissions = (name: PermissionName) =>
  readActions(name) || name === 'change_orders.approve' || name === 'change_orders.reject' || name === 'comments.create' || name === 'comments.update';

const viewerPermissions = (name: PermissionName) => readActions(name) && name !== 'roles.read';

function systemRole(id: string, type: RoleType, name: string, description: string, isAdmin: boolean, permissions: ReadonlySet<PermissionName>): Role {
  return { id, name, description, type, isAdmin, isSystemRole: true, permissions, createdAt: null, updatedAt: null };
}

/** The system organization roles. */
export const systemRoles: Record<OrganizationRoleName, Role> = {
  SITE_ADMIN: systemRole(
    'SITE_ADMIN',
    'ORG',
    'Site Admin',
    'Every permission in the organization and all its libraries',
    true,
    permissionsWhere(() => true),
  ),
  ADMIN: systemRole(
    'ADMIN',
    'ORG',
    'Admin',
    'Manages libraries, users and roles; cannot configure integrations',
    true,
    permissionsWhere((name) => name !== 'integrations.configure'),
  ),
  EDITOR: systemRole('EDITOR', 'ORG', 'Editor', 'Creates and edits components, assemblies and change orders', false, permissionsWhere(editorPermissions)),
  REVIEWER: systemRole('REVIEWER', 'ORG', 'Reviewer', 'Viewer-level read access, plus approving change orders and commenting', false, permissionsWhere(reviewerPermissions)),
  VIEWER: systemRole('VIEWER', 'ORG', 'Viewer', 'Reads everything in the libraries it can see', false, permissionsWhere(viewerPermissions)),
  SUPPLIER: systemRole(
    'SUPPLIER',
    'ORG',
    'Supplier',
    'External supplier: reads components and assemblies and comments on them',
    false,
    permissionsWhere((name) => ['components.read', 'assemblies.read', 'library.read', 'comments.read', 'comments.create'].includes(name)),
  ),
};

const inLibrary = (test: (name: PermissionName) => boolean) => permissionsWhere((name) => isLibraryPermission(name) && test(name));

/** The system library roles: an override of the organization role in one library. */
export const systemLibraryRoles: Record<LibraryRoleId, Role> = {
  LIBRARY_ADMIN: systemRole(
    'LIBRARY_ADMIN',
    'LIBRARY',
    'Admin',
    'Everything in this library: settings, categories, statuses, components, change orders; not integrations',
    true,
    inLibrary((name) => name !== 'integrations.configure'),
  ),
  LIBRARY_EDITOR: systemRole('LIBRARY_EDITOR', 'LIBRARY', 'Editor', 'Creates and edits components, assemblies and change orders in this library', false, inLibrary(editorPermissions)),
  LIBRARY_REVIEWER: systemRole('LIBRARY_REVIEWER', 'LIBRARY', 'Reviewer', 'Reads this library, approves or rejects change orders and comments', false, inLibrary(reviewerPermissions)),
  LIBRARY_VIEWER: systemRole('LIBRARY_VIEWER', 'LIBRARY', 'Viewer', 'Reads this library', false, inLibrary(viewerPermissions)),
};

/** Every system role, organization roles first. */
export const allSystemRoles: readonly Role[] = [...Object.values(systemRoles), ...Object.values(systemLibraryRoles)];

const systemRoleById = new Map<string, Role>(allSystemRoles.map((role) => [role.id, role]));

export function systemRoleFor(id: string): Role | undefined {
  return systemRoleById.get(id);
}

export function isSystemRoleId(id: string): boolean {
  return systemRoleById.has(id);
}

/**
 * v1 role names a client may still send (spec Versioning): USER became EDITOR; APPROVER was removed (use
 * EDITOR). REVIEWER keeps its name with Viewer-level reads. Matching is case-insensitive.
 */
const legacyRoleNames: Record<string, OrganizationRoleName> = { USER: 'EDITOR', APPROVER: 'EDITOR' };

/** The system organization role a name or id means (SITE_ADMIN, "Site Admin", legacy USER...), if any. */
export function systemOrganizationRoleNamed(value: string): Role | undefined {
  const key = value
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
  const legacy = legacyRoleNames[key];
  if (legacy) return systemRoles[legacy];
  return Object.hasOwn(systemRoles, key) ? systemRoles[key as OrganizationRoleName] : undefined;
}

/** The system library role a name or id means ("Editor", LIBRARY_EDITOR, EDITOR, legacy USER...), if any. */
export function systemLibraryRoleNamed(value: string): Role | undefined {
  const key = value
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
  const bare = key.startsWith('LIBRARY_') ? key.slice('LIBRARY_'.length) : key;
  const mapped = legacyRoleNames[bare] ?? bare;
  const id = `LIBRARY_${mapped}`;
  return Object.hasOwn(systemLibraryRoles, id) ? systemLibraryRoles[id as LibraryRoleId] : undefined;
}

/**
 * Whether a custom role counts as an administrator's: an organization role that can change other people's
 * roles, or a library role that can change the library's settings.
 */
export function isAdminPermissionSet(type: RoleType, permissions: ReadonlySet<PermissionName>): boolean {
  return type === 'ORG' ? permissions.has('organization.users.update_role') : permissions.has('library.settings.update');
}
