import { deleteSessions, identityTokensRevoke, listFederatedSubsOf, listSessionHashesOfUser, listSessionHashesOpenedBy } from '../store/account.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { listMembershipsOfUser, membershipRecord, type MembershipRecord } from '../store/membership.js';
import type { OrganizationRecord } from '../store/organization.js';
import type { SuspendedGrants } from '../store/scim.js';
import { getTeams, teamMemberHold, teamMemberKey, teamMemberRelease, teamMemberRemove } from '../store/team.js';
import { membershipChangeItems } from '../orgs/members.js';

/**
 * Holding a provisioned person's grants aside and giving them back: deactivation (active false, DELETE)
 * and removal from every SCIM group take the whole membership of the organization away in one
 * transaction, keeping what it held on the SCIM user; reactivation (or a new group) gives it back.
 */
export const noGrants: SuspendedGrants = { role: null, libraryRoles: {}, teamIds: [] };

/** Two sets of grants held aside, as one (the later one wins where both name a role). */
export function mergeGrants(earlier: SuspendedGrants, later: SuspendedGrants): SuspendedGrants {
  return {
    role: later.role ?? earlier.role,
    libraryRoles: { ...earlier.libraryRoles, ...later.libraryRoles },
    teamIds: [...new Set([...earlier.teamIds, ...later.teamIds])],
  };
}

/**
 * Items that take a person's grants away (their membership: direct role, library overrides, teams), and
 * what they were. Their member items of the teams in `holdTeamIds` stay, marked held (they are still in
 * the identity provider's groups); those of other teams go.
 */
export function suspendItems(membership: MembershipRecord | undefined, holdTeamIds: ReadonlySet<string>, lastSiteAdmin?: () => Error): { items: WriteItem[]; suspended: SuspendedGrants } {
  if (!membership) return { items: [], suspended: noGrants };
  const { items } = membershipChangeItems(membership, undefined, [], lastSiteAdmin ? { lastSiteAdmin } : {});
  const at = nowIso();
  for (const teamId of membership.teamIds) {
    items.push(holdTeamIds.has(teamId) ? teamMemberHold(membership.organizationId, teamId, membership.userId, at) : teamMemberRemove(membership.organizationId, teamId, membership.userId));
  }
  return { items, suspended: { role: membership.role, libraryRoles: membership.libraryRoles, teamIds: membership.teamIds } };
}

/** Items that give back what a deactivation took, merged with anything granted since; teams deleted meanwhile are skipped. */
export async function restoreItems(store: Store, organization: OrganizationRecord, userId: string, suspended: SuspendedGrants, membership: MembershipRecord | undefined) {
  const teams = await getTeams(store, organization.id, suspended.teamIds);
  const teamIds = [...new Set([...(membership?.teamIds ?? []), ...suspended.teamIds.filter((id) => teams.has(id))])];
  const after = membershipRecord.parse({
    organizationId: organization.id,
    userId,
    role: membership?.role ?? suspended.role,
    libraryRoles: { ...suspended.libraryRoles, ...(membership?.libraryRoles ?? {}) },
    teamIds,
    createdAt: membership?.createdAt ?? nowIso(),
    rev: membership?.rev ?? 0,
  });
  const at = nowIso();
  const items = membershipChangeItems(membership, after).items;
  for (const teamId of teamIds.filter((id) => !membership?.teamIds.includes(id))) items.push(teamMemberRelease(organization.id, teamId, userId, at));
  return items;
}

/**
 * Ends what an organization's deprovisioning (active false, DELETE, removal from every group) may end
 * besides the membership, which already ends the person's access to it on the next request: the sessions
 * its SAML sign-in opened and the Bearer tokens of its identity provider's federated identities of the
 * person. Their other sessions and tokens (a password sign-in, another organization's SSO) are not the
 * organization's to end; they end too only when the account is left a member of no other organization, so
 * that nothing another organization granted ever rests on what this one does. The password is never touched.
 */
export async function endOrganizationSessions(store: Store, organizationId: string, userId: string): Promise<void> {
  const elsewhere = (await listMembershipsOfUser(store, userId)).some((membership) => membership.organizationId !== organizationId);
  const hashes = elsewhere ? await listSessionHashesOpenedBy(store, userId, organizationId) : await listSessionHashesOfUser(store, userId);
  await deleteSessions(store, hashes);
  const at = Math.floor(Date.now() / 1000);
  for (const sub of await listFederatedSubsOf(store, userId, organizationId)) {
    try {
      await transactWrite(store, [identityTokensRevoke(sub, userId, at)], { otherwise: () => new IdentityMovedError() });
    } catch (error) {
      // The identity moved to another account meanwhile (a later SSO sign-in): not this person's any more.
      if (!(error instanceof IdentityMovedError)) throw error;
    }
  }
}

/** A federated identity that names another account now. */
class IdentityMovedError extends Error {}
