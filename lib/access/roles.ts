import { allPermissions, type PermissionName } from './permissions.js';

/** OrganizationRoleEnum of the spec. */
export const organizationRoles = ['SITE_ADMIN', 'ADMIN', 'EDITOR', 'REVIEWER', 'VIEWER', 'SUPPLIER'] as const;
export type OrganizationRoleName = (typeof organizationRoles)[number];

export interface SystemRole {
  id: OrganizationRoleName;
  name: string;
  description: string;
  isAdmin: boolean;
  permissions: ReadonlySet<PermissionName>;
}

function permissionsWhere(test: (name: PermissionName) => boolean): ReadonlySet<PermissionName> {
  return new Set(allPermissions.map((p) => p.name).filter(test));
}

const readActions = (name: PermissionName) => name.endsWith('.read');

/**
 * System roles. The bootstrap Site Admin holds every permission. The others are sensible defaults that the
 * roles work (custom roles, library overrides) builds on.
 */
export const systemRoles: Record<OrganizationRoleName, SystemRole> = {
  SITE_ADMIN: {
    id: 'SITE_ADMIN',
    name: 'Site Admin',
    description: 'Every permission in the organization and all its libraries',
    isAdmin: true,
    permissions: permissionsWhere(() => true),
  },
  ADMIN: {
    id: 'ADMIN',
    name: 'Admin',
    description: 'Manages libraries, users and roles; cannot configure integrations',
    isAdmin: true,
    permissions: permissionsWhere((name) => name !== 'integrations.configure'),
  },
  EDITOR: {
    id: 'EDITOR',
    name: 'Editor',
    description: 'Creates and edits components, assemblies and change orders',
    isAdmin: false,
    permissions: permissionsWhere(
      (name) =>
        readActions(name) ||
        name.startsWith('components.') ||
        name.startsWith('assemblies.') ||
        (name.startsWith('change_orders.') && name !== 'change_orders.reset') ||
        (name.startsWith('comments.') && name !== 'comments.moderate'),
    ),
  },
  REVIEWER: {
    id: 'REVIEWER',
    name: 'Reviewer',
    description: 'Viewer-level read access, plus approving change orders and commenting',
    isAdmin: false,
    permissions: permissionsWhere(
      (name) =>
        readActions(name) ||
        name === 'change_orders.approve' ||
        name === 'change_orders.reject' ||
        name === 'comments.create' ||
        name === 'comments.update',
    ),
  },
  VIEWER: {
    id: 'VIEWER',
    name: 'Viewer',
    description: 'Reads everything in the libraries it can see',
    isAdmin: false,
    permissions: permissionsWhere((name) => readActions(name) && name !== 'roles.read'),
  },
  SUPPLIER: {
    id: 'SUPPLIER',
    name: 'Supplier',
    description: 'External supplier: reads components and assemblies and comments on them',
    isAdmin: false,
    permissions: permissionsWhere(
      (name) => name === 'components.read' || name === 'assemblies.read' || name === 'library.read' || name === 'comments.read' || name === 'comments.create',
    ),
  },
};
