import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetItems, batchGetRecords, getItem, keyString, parseItem, queryAll, queryPrefix } from './items.js';
import { getUser, userRecord, type UserRecord } from './user.js';

export const membershipKey = (orgId: string, userId: string) => ({ PK: `ORG#${orgId}`, SK: `MEMBER#${userId}` });
/** ByUser index keys: the organizations a user belongs to. */
const membershipByUser = (userId: string, orgId: string) => ({ GSI1PK: `USER#${userId}`, GSI1SK: `ORG#${orgId}` });

/**
 * A person's grants in one organization. Records written before custom roles carry system role names
 * (SITE_ADMIN, EDITOR...), which are the system roles' ids, so they read unchanged.
 */
export const membershipRecord = z.object({
  organizationId: z.string().uuid(),
  userId: z.string().uuid(),
  /** Direct organization role (a role id): default permissions in every library. Null: none (team or library grants only). */
  role: z.string().nullable(),
  /** Direct library overrides: library id -> role id, replacing the organization role in that library only. */
  libraryRoles: z.record(z.string(), z.string()),
  /** Teams the person belongs to; each gives its own organization role and library overrides. */
  teamIds: z.array(z.string()).default([]),
  createdAt: z.string(),
  /** Optimistic concurrency: every change of the record checks and bumps it. */
  rev: z.number().int().default(0),
});
export type MembershipRecord = z.infer<typeof membershipRecord>;
export type NewMembership = z.input<typeof membershipRecord>;

function membershipItem(membership: NewMembership) {
  return {
    ...membershipKey(membership.organizationId, membership.userId),
    ...membershipByUser(membership.userId, membership.organizationId),
    entity: 'Membership',
    teamIds: [],
    rev: 0,
    ...membership,
  };
}

export function membershipPut(membership: NewMembership) {
  return { Put: { Item: membershipItem(membership), ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** Replaces a membership read at `previousRev` (whole record); fails if anyone changed it meanwhile. */
export function membershipReplace(membership: MembershipRecord, previousRev: number) {
  return {
    Put: {
      Item: membershipItem(membership),
      ConditionExpression: previousRev === 0 ? 'attribute_exists(PK) AND (attribute_not_exists(rev) OR rev = :rev)' : 'rev = :rev',
      ExpressionAttributeValues: { ':rev': previousRev },
    },
  };
}

export function membershipDelete(membership: MembershipRecord) {
  return {
    Delete: {
      Key: membershipKey(membership.organizationId, membership.userId),
      ConditionExpression: membership.rev === 0 ? 'attribute_exists(PK) AND (attribute_not_exists(rev) OR rev = :rev)' : 'rev = :rev',
      ExpressionAttributeValues: { ':rev': membership.rev },
    },
  };
}

/**
 * A person who was a member of the organization: put in the transaction that removes a membership, and
 * kept (rejoining leaves it). User references (createdBy, history) resolve only to people who are or were
 * members of the organization reading them (lib/accounts/users.ts usersOfOrganization).
 */
export const formerMemberKey = (orgId: string, userId: string) => ({ PK: `ORG#${orgId}`, SK: `EXMEMBER#${userId}` });

export function formerMemberPut(orgId: string, userId: string, at: string) {
  return { Put: { Item: { ...formerMemberKey(orgId, userId), entity: 'FormerMember', userId, leftAt: at } } };
}

/** Which of these users are, or were, members of the organization (one BatchGetItem of their membership and former-member items). */
export async function membersOrFormerMembers(store: Store, orgId: string, userIds: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(userIds)];
  const items = await batchGetItems(
    store,
    unique.flatMap((id) => [membershipKey(orgId, id), formerMemberKey(orgId, id)]),
  );
  return new Set(unique.filter((id) => items.has(keyString(membershipKey(orgId, id))) || items.has(keyString(formerMemberKey(orgId, id)))));
}

export function getMembership(store: Store, orgId: string, userId: string, consistent = false): Promise<MembershipRecord | undefined> {
  return consistent
    ? batchGetRecords(store, [userId], (id) => membershipKey(orgId, id), membershipRecord, 'membership', true).then((found) => found.get(userId))
    : getItem(store, membershipKey(orgId, userId), membershipRecord, 'membership');
}

export function getMemberships(store: Store, orgId: string, userIds: readonly string[], consistent = false): Promise<Map<string, MembershipRecord>> {
  return batchGetRecords(store, userIds, (id) => membershipKey(orgId, id), membershipRecord, 'membership', consistent);
}

/** Every member of an organization. */
export function listMembers(store: Store, orgId: string): Promise<MembershipRecord[]> {
  return queryPrefix(store, `ORG#${orgId}`, 'MEMBER#', membershipRecord, 'membership');
}

/**
 * A user and every organization membership of theirs in ONE Query of the ByUser index, where the user item
 * sits beside the memberships (`USER`, after every `ORG#<orgId>`). A user item written before it was indexed
 * there (or not yet in the index, which is eventually consistent) is read with one GetItem more.
 */
export async function getUserAndMemberships(store: Store, userId: string): Promise<{ user: UserRecord | undefined; memberships: MembershipRecord[] }> {
  const items = await queryAll(
    store,
    { IndexName: 'ByUser', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': `USER#${userId}` } },
    z.record(z.string(), z.unknown()),
    'ByUser entry',
  );
  const userItem = items.find((item) => item.SK === 'USER');
  const memberships = items.filter((item) => typeof item.GSI1SK === 'string' && item.GSI1SK.startsWith('ORG#')).map((item) => parseItem(membershipRecord, item, 'membership'));
  return { user: userItem ? parseItem(userRecord, userItem, 'user') : await getUser(store, userId), memberships };
}

/** Every organization membership of a user, through the ByUser index. */
export function listMembershipsOfUser(store: Store, userId: string): Promise<MembershipRecord[]> {
  return queryAll(
    store,
    {
      IndexName: 'ByUser',
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :org)',
      ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':org': 'ORG#' },
    },
    membershipRecord,
    'membership',
  );
}
