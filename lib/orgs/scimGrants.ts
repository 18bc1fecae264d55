import { deleteSessions, listSessionHashesOfUser } from '../store/account.js';
import type { Store } from '../store/client.js';
import { nowIso, type WriteItem } from '../store/items.js';
import { membershipRecord, type MembershipRecord } from '../store/membership.js';
import type { OrganizationRecord } from '../store/organization.js';
import type { SuspendedGrants } from '../store/scim.js';
import { getTeams, teamMemberHold, teamMemberRelease, teamMemberRemove } from '../store/team.js';
import { membershipChangeItems } from './members.js';

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
export function suspendItems(
  membership: MembershipRecord | undefined,
  holdTeamIds: ReadonlySet<string>,
  lastSiteAdmin?: () => Error,
): { items: WriteItem[]; suspended: SuspendedGrants } {
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

export async function endSessions(store: Store, userId: string): Promise<void> {
  await deleteSessions(store, await listSessionHashesOfUser(store, userId));
}

