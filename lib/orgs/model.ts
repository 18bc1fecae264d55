/** The organization domain's types, as resolvers and GraphQL mappers see them (stored records underneath). */
export type { OrganizationRecord as Organization } from '../store/organization.js';
export type { LibraryRecord as Library, LibraryStatsRecord as LibraryStats } from '../store/library.js';
export type { MembershipRecord as Membership } from '../store/membership.js';
export type { InvitationRecord as Invitation } from '../store/invitation.js';
export type { TeamRecord as Team } from '../store/team.js';

/** A library role given in one library, directly or through a team (LibraryAccessDto). */
export interface LibraryAccessGrant {
  organizationId: string;
  libraryId: string;
  roleId: string;
  teamId: string | null;
}

/** Entitlements together with the plan they come from. */
export interface OrganizationEntitlements {
  plan: string;
  sandboxOrgs: number;
  scim: boolean;
  notRevisionManaged: boolean;
  organizationCreation: boolean;
}
