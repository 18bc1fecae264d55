import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { ScimGroupInput, ScimMember } from './groups.js';
import type { Store } from '../store/client.js';
import { failingWith, nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { getMemberships, membershipRecord } from '../store/membership.js';
import type { OrganizationRecord } from '../store/organization.js';
import { getScimUsers, scimUserPut, type ScimUserRecord } from '../store/scim.js';
import {
  findTeamIdByName,
  getTeam,
  getTeams,
  listTeamMembers,
  listTeams,
  teamActive,
  teamKey,
  teamMemberHold,
  teamMemberKey,
  teamMemberPut,
  teamMemberRemove,
  teamNameDelete,
  teamNamePut,
  teamPut,
  type TeamRecord,
} from '../store/team.js';
import { membershipChangeItems } from '../orgs/members.js';
import { endOrganizationSessions, noGrants, restoreItems, suspendItems } from './grants.js';
import { isUuid } from '../model/slugs.js';

/**
 * SCIM groups are teams with managedBy SCIM (one to one). Their name, members and archived state follow
 * the identity provider; their roles are assigned by administrators (teams.setRoles). A deleted group is
 * an archived team: its grants stop at once, and SCIM no longer sees it.
 *
 * Member changes are written in transactions of up to `membersPerTransaction` people (each person's
 * membership, team-member item and the team's existence check land together); a PATCH naming more
 * applies them in several such transactions, each of which is idempotent, so a failed call can be
 * repeated by the identity provider as it is.
 */
// A deprovisioned person is 4 items (membership delete, former-member mark, team member hold, SCIM user): 20 and the guard fit 100.
const membersPerTransaction = 20;

export const isScimTeam = (team: TeamRecord) => team.managedBy === 'SCIM' && !team.archived;

export async function scimTeams(store: Store, organization: OrganizationRecord): Promise<TeamRecord[]> {
  const teams = await listTeams(store, organization.id);
  return teams.filter(isScimTeam).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The SCIM team with this name (case-insensitively), through the team-name item. */
export async function findScimTeamByName(store: Store, organization: OrganizationRecord, name: string): Promise<TeamRecord | undefined> {
  const id = await findTeamIdByName(store, organization.id, name);
  const team = id ? await getTeam(store, organization.id, id) : undefined;
  return team && isScimTeam(team) ? team : undefined;
}

export async function requireScimTeam(store: Store, organization: OrganizationRecord, id: string): Promise<TeamRecord> {
  const team = isUuid(id) ? await getTeam(store, organization.id, id.toLowerCase()) : undefined;
  if (!team || !isScimTeam(team)) throw new NotFoundError('Group', id);
  return team;
}

export const scimTeamMembers = (store: Store, team: TeamRecord) => listTeamMembers(store, team.organizationId, team.id);

function nameTaken(name: string) {
  return new AlreadyExistsError(`A team named "${name}" already exists in this organization`, { field: 'displayName' });
}

/** The SCIM users named as members; a member that is not a SCIM user of this organization is refused. */
async function requireScimUsers(store: Store, organization: OrganizationRecord, members: readonly ScimMember[]): Promise<Map<string, ScimUserRecord>> {
  const ids = members.map((member) => member.value);
  const users = await getScimUsers(store, organization.id, ids.filter(isUuid));
  const missing = ids.filter((id) => !users.has(id));
  if (missing.length) throw new InvalidInputError(`members: ${missing.join(', ')} ${missing.length > 1 ? 'are not users' : 'is not a user'} provisioned in this organization`, { field: 'members' });
  return users;
}

const groupChanged = (id: string) => () => new ConflictError('Group', id);

/** A lost race on someone's membership (another group adding them at the same moment): read again. */
class MemberRaceLostError extends ConflictError {
  constructor(team: TeamRecord) {
    super('Group', `${team.id} or one of its members`);
  }
}

/** A new group's name is held by another team (perhaps a SCIM team a DELETE archived). */
class GroupNameHeldError extends Error {}

/**
 * Items adding (or removing) people to a team, and the people whose access this ends. An active user
 * joins through their membership. A user whose grants are held aside (deactivated, or removed from every
 * group) has the team recorded with them; a new group gives an active user's held grants back. Removing
 * an active user from their last SCIM group is a deprovisioning (the spec's "removal from every assigned
 * group"): their whole membership is held aside, as deactivation does, unless it would remove the last
 * Site Admin, who only leaves the team.
 */
async function memberChangeItems(store: Store, organization: OrganizationRecord, team: TeamRecord, users: ScimUserRecord[], change: 'add' | 'remove', displays: Map<string, string | undefined>) {
  const raceLost = () => new MemberRaceLostError(team);
  const at = nowIso();
  const memberships = await getMemberships(
    store,
    organization.id,
    users.filter((user) => user.active).map((user) => user.userId),
    true,
  );
  const otherTeamIds = change === 'remove' ? [...new Set([...memberships.values()].flatMap((membership) => membership.teamIds))].filter((id) => id !== team.id) : [];
  const otherTeams = await getTeams(store, organization.id, otherTeamIds);
  const items: WriteItem[] = [];
  const deprovisioned: string[] = [];
  for (const user of users) {
    const before = memberships.get(user.userId);
    if (!user.active || user.suspended) {
      const held = user.suspended ?? noGrants;
      if (user.active && change === 'add') {
        items.push(...(await restoreItems(store, organization, user.userId, { ...held, teamIds: [...held.teamIds, team.id] }, before)));
        items.push(scimUserPut({ ...user, suspended: null, updatedAt: at, version: user.version + 1 }));
        continue;
      }
      const teamIds = change === 'add' ? [...new Set([...held.teamIds, team.id])] : held.teamIds.filter((id) => id !== team.id);
      if (teamIds.length === held.teamIds.length) continue;
      items.push(scimUserPut({ ...user, suspended: { ...held, teamIds }, updatedAt: at, version: user.version + 1 }));
      items.push(change === 'add' ? teamMemberHold(organization.id, team.id, user.userId, at, displays.get(user.userId)) : teamMemberRemove(organization.id, team.id, user.userId));
      continue;
    }
    const has = before?.teamIds.includes(team.id) ?? false;
    if ((change === 'add') === has) continue;
    const base = before ?? membershipRecord.parse({ organizationId: organization.id, userId: user.userId, role: null, libraryRoles: {}, createdAt: at });
    const teamIds = change === 'add' ? [...base.teamIds, team.id] : base.teamIds.filter((id) => id !== team.id);
    const lastGroup = change === 'remove' && !teamIds.some((id) => otherTeams.has(id) && isScimTeam(otherTeams.get(id)!));
    const lastSiteAdmin = base.role === 'SITE_ADMIN' && (organization.siteAdminCount ?? 0) <= 1;
    if (lastGroup && !lastSiteAdmin) {
      const suspension = suspendItems(base, new Set(teamIds), raceLost);
      items.push(...suspension.items, scimUserPut({ ...user, suspended: { ...suspension.suspended, teamIds }, updatedAt: at, version: user.version + 1 }));
      deprovisioned.push(user.userId);
      continue;
    }
    items.push(...membershipChangeItems(before, { ...base, teamIds }).items);
    items.push(change === 'add' ? teamMemberPut(organization.id, team.id, user.userId, at, displays.get(user.userId)) : teamMemberRemove(organization.id, team.id, user.userId));
  }
  return { items, deprovisioned };
}

async function changeMembers(store: Store, organization: OrganizationRecord, team: TeamRecord, members: readonly ScimMember[], change: 'add' | 'remove'): Promise<void> {
  const users = change === 'add' ? await requireScimUsers(store, organization, members) : await getScimUsers(store, organization.id, members.map((m) => m.value).filter(isUuid));
  const displays = new Map(members.map((member) => [member.value, member.display]));
  const ids = [...users.keys()];
  for (let start = 0; start < ids.length; start += membersPerTransaction) {
    const chunk = ids.slice(start, start + membersPerTransaction);
    // A lost race on someone's membership (another group adding them at the same moment) is read again.
    for (let attempt = 0; ; attempt += 1) {
      const fresh = attempt === 0 ? chunk.map((id) => users.get(id)!) : [...(await getScimUsers(store, organization.id, chunk)).values()];
      const { items, deprovisioned } = await memberChangeItems(store, organization, team, fresh, change, displays);
      if (items.length === 0) break;
      try {
        const raceLost = () => new MemberRaceLostError(team);
        await transactWrite(store, [teamActive(organization.id, team.id, groupChanged(`${team.id} or one of its members`)), ...items], { otherwise: raceLost, onConflict: raceLost });
        await Promise.all(deprovisioned.map((userId) => endOrganizationSessions(store, organization.id, userId)));
        break;
      } catch (error) {
        if (!(error instanceof MemberRaceLostError) || attempt >= 4) throw error;
        await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt + Math.random() * 20));
      }
    }
  }
}

export async function createScimGroup(store: Store, organization: OrganizationRecord, input: ScimGroupInput): Promise<TeamRecord> {
  await requireScimUsers(store, organization, input.members);
  const at = nowIso();
  const team: TeamRecord = {
    id: randomUUID(),
    organizationId: organization.id,
    name: input.displayName,
    orgRoleId: null,
    libraryRoles: {},
    archived: false,
    managedBy: 'SCIM',
    externalId: input.externalId,
    rev: 0,
    createdAt: at,
    updatedAt: at,
  };
  try {
    await transactWrite(store, [teamPut(team, 'new'), failingWith(teamNamePut(organization.id, team.name, team.id), () => new GroupNameHeldError())]);
  } catch (error) {
    if (error instanceof GroupNameHeldError) return reviveScimGroup(store, organization, input);
    throw error;
  }
  await changeMembers(store, organization, team, input.members, 'add');
  return team;
}

/**
 * A group created again under the name of a SCIM team that a DELETE archived: the team comes back (with
 * the roles administrators gave it) and takes the new group's members and externalId. Any other team of
 * that name is a uniqueness conflict.
 */
async function reviveScimGroup(store: Store, organization: OrganizationRecord, input: ScimGroupInput): Promise<TeamRecord> {
  const id = await findTeamIdByName(store, organization.id, input.displayName);
  const archived = id ? await getTeam(store, organization.id, id) : undefined;
  if (!archived || archived.managedBy !== 'SCIM' || !archived.archived) throw nameTaken(input.displayName);
  const revived = { ...archived, archived: false, name: input.displayName, externalId: input.externalId, rev: archived.rev + 1, updatedAt: nowIso() };
  await transactWrite(store, [failingWith(teamPut(revived, 'unchanged'), groupChanged(archived.id))], { onConflict: groupChanged(archived.id) });
  return replaceScimGroup(store, organization, revived, input);
}

/**
 * PUT, and PATCH once applied: the group's name and externalId, and exactly `input.members` as its
 * members (those missing are removed, new ones added).
 */
export async function replaceScimGroup(store: Store, organization: OrganizationRecord, team: TeamRecord, input: ScimGroupInput): Promise<TeamRecord> {
  await requireScimUsers(store, organization, input.members);
  let current = team;
  if (team.name !== input.displayName || team.externalId !== input.externalId) {
    const next = { ...team, name: input.displayName, externalId: input.externalId, rev: team.rev + 1, updatedAt: nowIso() };
    const renamed = team.name.toLowerCase() !== input.displayName.toLowerCase();
    const items = [
      failingWith(teamPut(next, 'unchanged'), groupChanged(team.id)),
      ...(renamed ? [teamNameDelete(organization.id, team.name), failingWith(teamNamePut(organization.id, next.name, team.id), () => nameTaken(next.name))] : []),
    ];
    await transactWrite(store, items, { onConflict: groupChanged(team.id) });
    current = next;
  }
  const present = await scimTeamMembers(store, current);
  const wanted = new Set(input.members.map((member) => member.value));
  const removed = present.filter((member) => !wanted.has(member.userId)).map((member) => ({ value: member.userId }));
  const presentIds = new Set(present.map((member) => member.userId));
  await changeMembers(store, organization, current, removed, 'remove');
  await changeMembers(
    store,
    organization,
    current,
    input.members.filter((member) => !presentIds.has(member.value)),
    'add',
  );
  return current;
}

/** DELETE /Groups/{id}: the team is archived (its grants stop at once); its members and roles are kept. */
export async function archiveScimGroup(store: Store, team: TeamRecord): Promise<void> {
  await transactWrite(store, [failingWith(teamPut({ ...team, archived: true, rev: team.rev + 1, updatedAt: nowIso() }, 'unchanged'), groupChanged(team.id))], { onConflict: groupChanged(team.id) });
}
