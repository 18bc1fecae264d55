import type { PermissionName } from './permissions.js';
import { systemRoles } from './roles.js';
import { findRole, loadEffectiveAccess, type EffectiveAccess } from './effective.js';
import type { MembershipRecord } from '../store/membership.js';
import type { Store } from '../store/client.js';

/**
 * What an API key may do. A person's key without a role acts with its owner's permissions. A key with a
 * role (chosen at creation, `apiKey.create(input: { roleId })`) acts with that role's permissions that its
 * owner also holds, checked on every request. An integration's key always acts with a role: the one chosen,
 * else these default permissions: an Editor's without `roles.*` and without `integrations.configure` (it
 * reads and writes components, assemblies, change orders and comments; it cannot change designations,
 * create integrations or define or assign roles). Only an administrator who holds them can give a key
 * `integrations.configure` or `roles.*`, by naming a role that has them.
 */
export const defaultIntegrationKeyPermissions: ReadonlySet<PermissionName> = new Set([...systemRoles.EDITOR.permissions].filter((p) => !p.startsWith('roles.') && p !== 'integrations.configure'));

/** Whether the key acts with a role (its own, or the integration default) rather than as its owner. */
export const keyHasRole = (key: AccessKey) => key.roleId !== null || key.integrationId !== null;

/**
 * The permissions a key's role allows (undefined: no cap, the owner's own). A custom role is read (one
 * GetItem, only for keys with a custom role); a role deleted since leaves the key with no permission.
 */
export async function keyPermissionCap(store: Store, organizationId: string, key: AccessKey): Promise<ReadonlySet<PermissionName> | undefined> {
  if (key.roleId !== null) return (await findRole(store, organizationId, key.roleId))?.permissions ?? new Set();
  return key.integrationId !== null ? defaultIntegrationKeyPermissions : undefined;
}

/** The API key a request is made with, as the access rules see it. */
export type AccessKey = { integrationId: string | null; roleId: string | null };

/**
 * What a member holds in their organization, as a request of theirs acts: their grants (organization and
 * library roles, their teams'), capped by the key's role when they act through an API key. Undefined when
 * that leaves them no grant at all. The one rule for the request's caller (RequestAccess) and for what a
 * person may still read of their notifications.
 */
export async function memberAccess(store: Store, membership: MembershipRecord, key?: AccessKey): Promise<EffectiveAccess | undefined> {
  const [effective, cap] = await Promise.all([loadEffectiveAccess(store, membership), key ? keyPermissionCap(store, membership.organizationId, key) : undefined]);
  if (!effective.hasAnyGrant) return undefined;
  return cap ? effective.capped(cap) : effective;
}
