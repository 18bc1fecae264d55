import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetRecords, getItem, type WriteItem } from './items.js';

export const userKey = (userId: string) => ({ PK: `USER#${userId}`, SK: 'USER' });
/**
 * The user item is in the ByUser index too, beside the user's memberships (`ORG#<orgId>`), so that one Query
 * reads a person and their organizations (user.me: membership.ts getUserAndMemberships).
 */
export const userByUser = (userId: string) => ({ GSI1PK: `USER#${userId}`, GSI1SK: 'USER' });
/** Global uniqueness of an email address (lower-cased); maps it to the user id. */
export const userEmailKey = (email: string) => ({ PK: `EMAIL#${normalizeEmail(email)}`, SK: 'EMAIL' });

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const userRecord = z.object({
  id: z.string().uuid(),
  name: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  primaryEmail: z.string(),
  emails: z.array(z.string()),
  emailVerified: z.boolean(),
  archived: z.boolean(),
  createdAt: z.string(),
  /** Emailed tokens (verification, password reset) made before this time are spent: a completed password reset ends them. */
  emailedTokensValidAfter: z.string().optional(),
});
export type UserRecord = z.infer<typeof userRecord>;

const emailRecord = z.object({ userId: z.string().uuid() });

export function userPuts(user: UserRecord) {
  return [
    { Put: { Item: { ...userKey(user.id), ...userByUser(user.id), entity: 'User', ...user }, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Put: { Item: { ...userEmailKey(user.primaryEmail), entity: 'UserEmail', userId: user.id }, ConditionExpression: 'attribute_not_exists(PK)' },
    },
  ];
}

/** The address still belongs to this account (a transaction that counts on an account read before). */
export function userEmailHeldBy(email: string, userId: string): WriteItem {
  return { ConditionCheck: { Key: userEmailKey(email), ConditionExpression: 'userId = :id', ExpressionAttributeValues: { ':id': userId } } };
}

/** Marks an account's address verified (an emailed token spent, or the assertion of the organization owning its domain). */
export function userEmailVerifiedUpdate(userId: string) {
  return { Update: { Key: userKey(userId), UpdateExpression: 'SET emailVerified = :true', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':true': true } } };
}

/**
 * Spends an emailed token on its account: the address is verified, and with `endEarlierAt` (a completed
 * password reset) every token emailed before that time is spent too. Refused (condition) when the token was
 * made before the account's emailedTokensValidAfter, so of an old link and a reset racing, the old link loses.
 */
export function userTokenSpentUpdate(userId: string, tokenCreatedAt: string, endEarlierAt?: string) {
  return {
    Update: {
      Key: userKey(userId),
      UpdateExpression: endEarlierAt ? 'SET emailVerified = :true, emailedTokensValidAfter = :after' : 'SET emailVerified = :true',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(emailedTokensValidAfter) OR emailedTokensValidAfter < :created)',
      ExpressionAttributeValues: { ':true': true, ':created': tokenCreatedAt, ...(endEarlierAt ? { ':after': endEarlierAt } : {}) },
    },
  };
}

/** Sets an account's name (SCIM: the identity provider renamed a person whose account it provisioned). */
export function userNameUpdate(userId: string, name: Pick<UserRecord, 'name' | 'firstName' | 'lastName'>) {
  return {
    Update: {
      Key: userKey(userId),
      UpdateExpression: 'SET #name = :name, firstName = :first, lastName = :last',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':name': name.name, ':first': name.firstName, ':last': name.lastName },
    },
  };
}

export function getUser(store: Store, userId: string): Promise<UserRecord | undefined> {
  return getItem(store, userKey(userId), userRecord, 'user');
}

/** Users by id (BatchGetItem rounds of 100 keys); ids without a user are absent. */
export function getUsers(store: Store, userIds: readonly string[]): Promise<Map<string, UserRecord>> {
  return batchGetRecords(store, userIds, userKey, userRecord, 'user');
}

export async function findUserIdByEmail(store: Store, email: string): Promise<string | undefined> {
  return (await getItem(store, userEmailKey(email), emailRecord, 'user email'))?.userId;
}
