import type { CreationStanding } from '../orgs/organizations.js';
import type { UserRecord } from '../store/user.js';

export interface CurrentUser {
  permitted: boolean;
  canCreateOrg: boolean;
  hasOrganizations: boolean;
  user: UserRecord | null;
}

/** The current user as the spec answers it, from where they stand (lib/orgs/organizations.ts creationStanding). */
export function currentUser(standing: CreationStanding): CurrentUser {
  const user = standing.user;
  return {
    permitted: !!user && !user.archived && user.emailVerified && standing.memberships > 0,
    canCreateOrg: standing.canCreateOrg,
    hasOrganizations: standing.memberships > 0,
    user: user ?? null,
  };
}
