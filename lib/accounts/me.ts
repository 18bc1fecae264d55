import type { Caller } from '../access/caller.js';
import type { Store } from '../store/client.js';
import { listMembershipsOfUser } from '../store/membership.js';
import { getOrganization } from '../store/organization.js';
import { getUser, type UserRecord } from '../store/user.js';

export interface CurrentUser {
  permitted: boolean;
  canCreateOrg: boolean;
  hasOrganizations: boolean;
  user: UserRecord | null;
}

/**
 * The calling user's standing. canCreateOrg follows the gated rule: a non-archived user who is Site Admin
 * of at least one production organization (creation grants arrive with the organizations work).
 */
export async function getMe(store: Store, caller: Caller): Promise<CurrentUser> {
  const [user, memberships] = await Promise.all([getUser(store, caller.userId), listMembershipsOfUser(store, caller.userId)]);
  const active = !!user && !user.archived;
  const adminOf = await Promise.all(
    memberships.filter((m) => m.role === 'SITE_ADMIN').map((m) => getOrganization(store, m.organizationId)),
  );
  return {
    permitted: active && user.emailVerified && memberships.length > 0,
    canCreateOrg: active && adminOf.some((org) => org?.type === 'PRODUCTION'),
    hasOrganizations: memberships.length > 0,
    user: user ?? null,
  };
}
