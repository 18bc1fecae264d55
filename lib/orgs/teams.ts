import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { EffectiveAccess } from '../access/effective.js';
import { AccessAdminError, ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { getMemberships, type MembershipRecord } from '../store/membership.js';
import type { OrganizationRecord } from '../store/organization.js';
import { roleHolderUpdates } from '../store/role.js';
import { getTeam, getTeams, listTeamMemberIds, listTeams, teamExists, teamMemberDelete, teamMemberPut, teamNameDelete, teamNamePut, teamPut, type TeamRecord } from '../store/team.js';
import { membershipChangeItems } from './members.js';
import { assertHoldsAll, isCustomRoleId, resolveLibraryRoles, resolveRole } from './roles.js';
import { parseInput } from '../input.js';
import { isUuid } from '../model/slugs.js';

/** Members added or removed in one call: each is two items of one transaction, so a call lands whole. */
export const maxTeamMembersPerCall = 40;

const teamName = z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters');
const libraryRoleAssignment = z.object({ libraryId: z.string(), roleId: z.string() });

export const createTeamInput = z.object({
  name: teamName,
  orgRoleId: z.string().nullish(),
  libraryRoles: z.array(libraryRoleAssignment).max(200).nullish(),
  memberIds: z.array(z.string()).max(maxTeamMembersPerCall, `at most ${maxTeamMembersPerCall} members per call`).nullish(),
});
export const setTeamRolesInput = z.object({
  id: z.string(),
  orgRoleId: z.string().nullish(),
  libraryRoles: z.array(libraryRoleAssignment).max(200).nullish(),
});
const memberIdsInput = z.array(z.string()).min(1, 'name at least one member').max(maxTeamMembersPerCall, `at most ${maxTeamMembersPerCall} members per call`);

const teamRoleIds = (team: Pick<TeamRecord, 'orgRoleId' | 'libraryRoles'> | undefined) => (team ? [team.orgRoleId, ...Object.values(team.libraryRoles)].filter((id): id is string => id !== null) : []);

/** Resolves a team's roles (names or ids) and checks the actor could grant each of them. */
async function resolveTeamRoles(
  store: Store,
  organization: OrganizationRecord,
  actor: EffectiveAccess,
  orgRoleId: string | null | undefined,
  libraryRoles: { libraryId: string; roleId: string }[] | null | undefined,
) {
  const orgRole = orgRoleId ? await resolveRole(store, organization.id, orgRoleId, 'ORG', 'input.orgRoleId') : null;
  if (orgRole) assertHoldsAll(actor.organizationPermissions(), orgRole.permissions);
  const assignments = (libraryRoles ?? []).map((assignment) => ({ libraryId: assignment.libraryId, role: assignment.roleId }));
  const resolved = await resolveLibraryRoles(store, organization.id, actor, assignments, 'roleId');
  return { orgRoleId: orgRole?.id ?? null, libraryRoles: resolved };
}

async function requireTeam(store: Store, organization: OrganizationRecord, id: string): Promise<TeamRecord> {
  const team = isUuid(id) ? await getTeam(store, organization.id, id.toLowerCase()) : undefined;
  if (!team) throw new NotFoundError('Team', id);
  return team;
}

/**
 * A team the identity provider manages (SCIM) is locked against structural edits here: its name, members
 * and archived state follow the IdP. Its roles (setRoles) are still assigned by administrators.
 */
async function requireUnmanagedTeam(store: Store, organization: OrganizationRecord, id: string, change: string): Promise<TeamRecord> {
  const team = await requireTeam(store, organization, id);
  if (team.managedBy === 'SCIM') {
    throw new AccessAdminError('TEAM_MANAGED_BY_SCIM', `Team "${team.name}" is provisioned by the identity provider (SCIM): ${change} it there. Its roles are still set here (teams.setRoles).`, {
      id: team.id,
    });
  }
  return team;
}

/** The members named, each of whom must already belong to the organization (invitation, SCIM or operator). */
async function requireMembers(store: Store, organization: OrganizationRecord, userIds: readonly string[], field: string): Promise<Map<string, MembershipRecord>> {
  const ids = [...new Set(userIds.map((id) => id.toLowerCase()))];
  const notIds = ids.filter((id) => !isUuid(id));
  const memberships = await getMemberships(store, organization.id, ids.filter(isUuid), true);
  const missing = [...notIds, ...ids.filter((id) => isUuid(id) && !memberships.has(id))];
  if (missing.length) {
    throw new AccessAdminError('NOT_A_MEMBER', `${field}: ${missing.join(', ')} ${missing.length > 1 ? 'are not members' : 'is not a member'} of this organization`, {
      field,
      userIds: missing,
    });
  }
  return memberships;
}

export async function createTeam(store: Store, organization: OrganizationRecord, actor: EffectiveAccess, rawInput: unknown): Promise<TeamRecord> {
  const input = parseInput(createTeamInput, rawInput, 'input');
  const roles = await resolveTeamRoles(store, organization, actor, input.orgRoleId, input.libraryRoles);
  const memberships = await requireMembers(store, organization, input.memberIds ?? [], 'input.memberIds');
  const at = nowIso();
  const team: TeamRecord = { id: randomUUID(), organizationId: organization.id, name: input.name, ...roles, archived: false, managedBy: null, externalId: null, rev: 0, createdAt: at, updatedAt: at };
  const items: WriteItem[] = [teamPut(team, 'new'), teamNamePut(organization.id, team.name, team.id), ...roleHolderUpdates(organization.id, [], teamRoleIds(team), isCustomRoleId)];
  for (const membership of memberships.values()) {
    items.push(...membershipChangeItems(membership, { ...membership, teamIds: [...membership.teamIds, team.id] }).items);
    items.push(teamMemberPut(organization.id, team.id, membership.userId, at));
  }
  const membersChanged = () => new ConflictError('Team membership of', 'the members named');
  await transactWrite(store, items, { otherwise: membersChanged, onConflict: membersChanged });
  return team;
}

/** Rewrites the team item (checked against the revision read), plus any items that go with the change. */
async function saveTeam(store: Store, before: TeamRecord, after: TeamRecord, extra: WriteItem[] = []): Promise<TeamRecord> {
  const next = { ...after, rev: before.rev + 1, updatedAt: nowIso() };
  await transactWrite(store, [teamPut(next, 'unchanged'), ...extra], { otherwise: () => new InvalidInputError('A role named in this change was deleted meanwhile', { field: 'input' }) });
  return next;
}

export async function renameTeam(store: Store, organization: OrganizationRecord, id: string, name: string): Promise<TeamRecord> {
  const newName = parseInput(teamName, name, 'name');
  const team = await requireUnmanagedTeam(store, organization, id, 'rename');
  if (team.name === newName) return team;
  const sameKey = team.name.toLowerCase() === newName.toLowerCase();
  return saveTeam(store, team, { ...team, name: newName }, sameKey ? [] : [teamNameDelete(organization.id, team.name), teamNamePut(organization.id, newName, team.id)]);
}

/** Archiving keeps the team and its members but stops its grants at once; restoring gives them back. */
export async function setTeamArchived(store: Store, organization: OrganizationRecord, id: string, archived: boolean): Promise<TeamRecord> {
  const team = await requireUnmanagedTeam(store, organization, id, archived ? 'delete (archive)' : 'restore');
  if (team.archived === archived) return team;
  return saveTeam(store, team, { ...team, archived });
}

export async function setTeamRoles(store: Store, organization: OrganizationRecord, actor: EffectiveAccess, rawInput: unknown): Promise<TeamRecord> {
  const input = parseInput(setTeamRolesInput, rawInput, 'input');
  const team = await requireTeam(store, organization, input.id);
  const roles = await resolveTeamRoles(store, organization, actor, input.orgRoleId, input.libraryRoles);
  const after = { ...team, ...roles };
  return saveTeam(store, team, after, roleHolderUpdates(organization.id, teamRoleIds(team), teamRoleIds(after), isCustomRoleId));
}

/** Adds organization members to a team, all or none; members already in it are left as they are. */
export async function addTeamMembers(store: Store, organization: OrganizationRecord, id: string, userIds: unknown): Promise<TeamRecord> {
  const ids = parseInput(memberIdsInput, userIds, 'userIds');
  const team = await requireUnmanagedTeam(store, organization, id, 'change the members of');
  if (team.archived) throw new AccessAdminError('TEAM_ARCHIVED', `Team "${team.name}" is archived: restore it first`, { id: team.id });
  const memberships = await requireMembers(store, organization, ids, 'userIds');
  const at = nowIso();
  const items: WriteItem[] = [teamGuard(team)];
  for (const membership of memberships.values()) {
    if (membership.teamIds.includes(team.id)) continue;
    items.push(...membershipChangeItems(membership, { ...membership, teamIds: [...membership.teamIds, team.id] }).items);
    items.push(teamMemberPut(organization.id, team.id, membership.userId, at));
  }
  await writeMemberChange(store, team, items);
  return team;
}

/**
 * Removes members from a team, all or none. A person whose membership is left with nothing (no direct role,
 * no library role, no other team) leaves the organization.
 */
export async function removeTeamMembers(store: Store, organization: OrganizationRecord, id: string, userIds: unknown): Promise<TeamRecord> {
  const ids = parseInput(memberIdsInput, userIds, 'userIds');
  const team = await requireUnmanagedTeam(store, organization, id, 'change the members of');
  const memberships = await getMemberships(store, organization.id, [...new Set(ids.map((x) => x.toLowerCase()))].filter(isUuid), true);
  const items: WriteItem[] = [teamGuard(team)];
  for (const membership of memberships.values()) {
    if (!membership.teamIds.includes(team.id)) continue;
    items.push(...membershipChangeItems(membership, { ...membership, teamIds: membership.teamIds.filter((t) => t !== team.id) }).items);
    items.push(teamMemberDelete(organization.id, team.id, membership.userId));
  }
  await writeMemberChange(store, team, items);
  return team;
}

/** The team must still exist when its members change (its roles may change meanwhile: they are read per request). */
function teamGuard(team: TeamRecord): WriteItem {
  return teamExists(team.organizationId, team.id, () => memberChangeFailed(team));
}

const memberChangeFailed = (team: TeamRecord) => new ConflictError('Team', `${team.id} or one of the memberships named`);

async function writeMemberChange(store: Store, team: TeamRecord, items: WriteItem[]): Promise<void> {
  if (items.length === 1) return;
  await transactWrite(store, items, { otherwise: () => memberChangeFailed(team), onConflict: () => memberChangeFailed(team) });
}

export function teamsOfOrganization(store: Store, organization: OrganizationRecord): Promise<TeamRecord[]> {
  return listTeams(store, organization.id).then((teams) => teams.sort((a, b) => a.name.localeCompare(b.name)));
}

export { getTeam, listTeamMemberIds, requireTeam };

/** The teams of an organization with these ids, for a member's teams field. */
export function teamsByIds(store: Store, organizationId: string, teamIds: readonly string[]): Promise<Map<string, TeamRecord>> {
  return getTeams(store, organizationId, teamIds);
}
