import * as z from 'zod';
import { AlreadyExistsError, ConflictError } from '../errors.js';
import type { Store } from './client.js';
import { batchGetRecords, getItem, type WriteItem, queryPrefix } from './items.js';

const orgPartition = (orgId: string) => `ORG#${orgId}`;
export const teamKey = (orgId: string, teamId: string) => ({ PK: orgPartition(orgId), SK: `TEAM#${teamId}` });
/** Uniqueness of a team's name in its organization (case-insensitive). */
export const teamNameKey = (orgId: string, name: string) => ({ PK: orgPartition(orgId), SK: `TEAMNAME#${name.trim().toLowerCase()}` });
/** One item per member of a team: lists a team's members with one Query. */
export const teamMemberKey = (orgId: string, teamId: string, userId: string) => ({ PK: orgPartition(orgId), SK: `TEAMMEMBER#${teamId}#${userId}` });

export const teamRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  name: z.string(),
  /** Organization role the team gives its members (a role id); null gives none. */
  orgRoleId: z.string().nullable(),
  /** Library overrides the team gives: library id -> library role id. */
  libraryRoles: z.record(z.string(), z.string()),
  archived: z.boolean(),
  /** Who manages it: null through the API, SCIM when an identity provider provisioned it. */
  managedBy: z.enum(['SCIM']).nullable().default(null),
  externalId: z.string().nullable().default(null),
  /** Optimistic concurrency: every change of the team item checks and bumps it. */
  rev: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TeamRecord = z.infer<typeof teamRecord>;

/** A new team, or the team changed since the revision before `team.rev` (a failed condition: ConflictError). */
export function teamPut(team: TeamRecord, condition: 'new' | 'unchanged'): WriteItem {
  return {
    Put: {
      Item: { ...teamKey(team.organizationId, team.id), entity: 'Team', ...team },
      ...(condition === 'new' ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': team.rev - 1 } }),
    },
    onConditionFailed: () => new ConflictError('Team', team.id),
  };
}

/** Claims a team name in its organization; taken: AlreadyExistsError. */
export function teamNamePut(orgId: string, name: string, teamId: string): WriteItem {
  return {
    Put: { Item: { ...teamNameKey(orgId, name), entity: 'TeamName', teamId }, ConditionExpression: 'attribute_not_exists(PK)' },
    onConditionFailed: () => new AlreadyExistsError(`A team named "${name}" already exists in this organization`, { field: 'input.name' }),
  };
}

/** The team exists and is not archived (a SCIM group's members change). */
export function teamActive(orgId: string, teamId: string, onConditionFailed: () => Error): WriteItem {
  return {
    ConditionCheck: { Key: teamKey(orgId, teamId), ConditionExpression: 'attribute_exists(PK) AND archived = :false', ExpressionAttributeValues: { ':false': false } },
    onConditionFailed,
  };
}

/** The team still exists (its members change while its roles may change meanwhile). */
export function teamExists(orgId: string, teamId: string, onConditionFailed: () => Error): WriteItem {
  return { ConditionCheck: { Key: teamKey(orgId, teamId), ConditionExpression: 'attribute_exists(PK)' }, onConditionFailed };
}

export function teamNameDelete(orgId: string, name: string) {
  return { Delete: { Key: teamNameKey(orgId, name) } };
}

export function teamMemberPut(orgId: string, teamId: string, userId: string, at: string, display?: string): WriteItem {
  return {
    Put: {
      Item: { ...teamMemberKey(orgId, teamId, userId), entity: 'TeamMember', teamId, userId, addedAt: at, ...(display ? { display } : {}) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export function teamMemberDelete(orgId: string, teamId: string, userId: string): WriteItem {
  return { Delete: { Key: teamMemberKey(orgId, teamId, userId), ConditionExpression: 'attribute_exists(PK)' } };
}

/** Removes a member item whatever its state (SCIM: the identity provider's word is final). */
export function teamMemberRemove(orgId: string, teamId: string, userId: string): WriteItem {
  return { Delete: { Key: teamMemberKey(orgId, teamId, userId) } };
}

export function getTeam(store: Store, orgId: string, teamId: string): Promise<TeamRecord | undefined> {
  return getItem(store, teamKey(orgId, teamId), teamRecord, 'team');
}

export function getTeams(store: Store, orgId: string, teamIds: readonly string[]): Promise<Map<string, TeamRecord>> {
  return batchGetRecords(store, teamIds, (id) => teamKey(orgId, id), teamRecord, 'team');
}

export async function findTeamIdByName(store: Store, orgId: string, name: string): Promise<string | undefined> {
  return (await getItem(store, teamNameKey(orgId, name), z.object({ teamId: z.string() }), 'team name'))?.teamId;
}

export function listTeams(store: Store, orgId: string): Promise<TeamRecord[]> {
  return queryPrefix(store, orgPartition(orgId), 'TEAM#', teamRecord, 'team');
}

/** A team's members who hold its grants (not those a SCIM deprovisioning holds aside). */
export async function listTeamMemberIds(store: Store, orgId: string, teamId: string): Promise<string[]> {
  const members = await listTeamMembers(store, orgId, teamId);
  return members.filter((member) => !member.held).map((member) => member.userId);
}

/**
 * Marks a team member whose grants a SCIM deprovisioning holds aside: still in the identity provider's
 * group, not a member here until reactivated (created when missing, e.g. a group push to a deactivated user).
 */
export function teamMemberHold(orgId: string, teamId: string, userId: string, at: string, display?: string) {
  return {
    Update: {
      Key: teamMemberKey(orgId, teamId, userId),
      UpdateExpression: `SET entity = :entity, teamId = :team, userId = :user, addedAt = if_not_exists(addedAt, :at), held = :held${display ? ', display = :display' : ''}`,
      ExpressionAttributeValues: { ':entity': 'TeamMember', ':team': teamId, ':user': userId, ':at': at, ':held': true, ...(display ? { ':display': display } : {}) },
    },
  };
}

/** A held team member takes the team's grants again (or a member is added: created when missing). */
export function teamMemberRelease(orgId: string, teamId: string, userId: string, at: string) {
  return {
    Update: {
      Key: teamMemberKey(orgId, teamId, userId),
      UpdateExpression: 'SET entity = :entity, teamId = :team, userId = :user, addedAt = if_not_exists(addedAt, :at) REMOVE held',
      ExpressionAttributeValues: { ':entity': 'TeamMember', ':team': teamId, ':user': userId, ':at': at },
    },
  };
}

/**
 * Every member item of a team, with the display name an identity provider gave each (SCIM groups echo it
 * back) and whether a SCIM deprovisioning holds the member's grants aside.
 */
export async function listTeamMembers(store: Store, orgId: string, teamId: string): Promise<{ userId: string; display: string | null; held: boolean }[]> {
  return queryPrefix(
    store,
    orgPartition(orgId),
    `TEAMMEMBER#${teamId}#`,
    z.object({ userId: z.string(), display: z.string().nullable().default(null), held: z.boolean().default(false) }),
    'team member',
  );
}
