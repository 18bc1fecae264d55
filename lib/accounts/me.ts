import type { Caller } from '../access/caller.js';
import { creationStanding } from '../orgs/organizations.js';
import type { Store } from '../store/client.js';
import type { UserRecord } from '../store/user.js';

export interface CurrentUser {
  permitted: boolean;
  canCreateOrg: boolean;
  hasOrganizations: boolean;
  user: UserRecord | null;
}

/** The calling user's standing; canCreateOrg follows the spec's gated rule (lib/orgs/organizations.ts creationStanding). */
export async function getMe(store: Store, caller: Caller): Promise<CurrentUser> {
  const standing = await creationStanding(store, caller.userId);
  const user = standing.user;
  return {
    permitted: !!user && !user.archived && user.emailVerified && standing.memberships > 0,
    canCreateOrg: standing.canCreateOrg,
    hasOrganizations: standing.memberships > 0,
    user: user ?? null,
  };
}
