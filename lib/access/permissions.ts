/** The spec's permission catalogue: resource -> actions. A permission is named `resource.action`. */
export const permissionCatalogue = {
  components: ['create', 'read', 'update', 'delete', 'revision.create'],
  assemblies: ['create', 'read', 'update', 'delete'],
  change_orders: ['create', 'read', 'update', 'delete', 'submit', 'approve', 'reject', 'release', 'withdraw', 'reset'],
  library: ['read', 'settings.update', 'categories.manage', 'statuses.manage', 'features.manage'],
  organization: ['read', 'settings.update', 'users.read', 'users.invite', 'users.remove', 'users.update_role'],
  roles: ['read', 'create', 'update', 'delete', 'assign'],
  comments: ['create', 'read', 'update', 'delete', 'moderate'],
  integrations: ['configure'],
} as const;

type Catalogue = typeof permissionCatalogue;
export type PermissionName = {
  [R in keyof Catalogue]: `${R}.${Catalogue[R][number]}`;
}[keyof Catalogue];

export interface PermissionDescriptor {
  name: PermissionName;
  resource: string;
  action: string;
}

export const allPermissions: readonly PermissionDescriptor[] = Object.entries(permissionCatalogue).flatMap(([resource, actions]) =>
  actions.map((action) => ({ name: `${resource}.${action}` as PermissionName, resource, action })),
);

const allPermissionNames = new Set<string>(allPermissions.map((p) => p.name));

export function isPermissionName(value: string): value is PermissionName {
  return allPermissionNames.has(value);
}
