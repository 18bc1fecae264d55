import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetRecords, deleteItems, getItem, isConditionalCheckFailure, queryAll } from './items.js';

const epochSeconds = (iso: string) => Math.ceil(Date.parse(iso) / 1000);

/** Emailed single-use tokens (verification, password reset), stored only as their SHA-256. */
export const accountTokenKey = (hash: string) => ({ PK: `ACCTOKEN#${hash}`, SK: 'ACCTOKEN' });

export const accountTokenRecord = z.object({
  purpose: z.enum(['VERIFY_EMAIL', 'RESET_PASSWORD']),
  userId: z.string().uuid(),
  email: z.string(),
  createdAt: z.string(),
  expiresAtIso: z.string(),
  usedAt: z.string().nullable(),
});
export type AccountTokenRecord = z.infer<typeof accountTokenRecord>;

export function accountTokenPut(hash: string, token: AccountTokenRecord) {
  return {
    Put: {
      // TTL a day after expiry, so that a replayed token is still recognised as used for a while.
      Item: { ...accountTokenKey(hash), entity: 'AccountToken', ...token, expiresAt: epochSeconds(token.expiresAtIso) + 86_400 },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** Spends a token: only once, only for its purpose, only before it expires (a condition, so concurrent uses cannot both pass). */
export function accountTokenSpend(hash: string, purpose: AccountTokenRecord['purpose'], at: string) {
  return {
    Update: {
      Key: accountTokenKey(hash),
      UpdateExpression: 'SET usedAt = :at',
      ConditionExpression: 'attribute_exists(PK) AND usedAt = :null AND purpose = :purpose AND expiresAtIso > :at',
      ExpressionAttributeValues: { ':at': at, ':null': null, ':purpose': purpose },
    },
  };
}

export function getAccountToken(store: Store, hash: string): Promise<AccountTokenRecord | undefined> {
  return getItem(store, accountTokenKey(hash), accountTokenRecord, 'account token');
}

/** Browser sessions: the cookie's SHA-256 is the key; the CSRF token is stored hashed beside it. */
export const sessionKey = (hash: string) => ({ PK: `SESSION#${hash}`, SK: 'SESSION' });

export const sessionRecord = z.object({
  userId: z.string().uuid(),
  csrfHash: z.string(),
  createdAt: z.string(),
  expiresAtIso: z.string(),
  /**
   * The organization whose SAML sign-in opened the session (absent: a password or emailed-token sign-in,
   * which no organization granted). A SCIM deprovisioning ends the sessions its organization opened.
   */
  organizationId: z.string().optional(),
});
export type SessionRecord = z.infer<typeof sessionRecord>;

export function sessionPut(hash: string, session: SessionRecord) {
  return {
    Put: {
      // ByUser index: a user's sessions, so that a password reset can end them all.
      Item: { ...sessionKey(hash), GSI1PK: `USERSESSIONS#${session.userId}`, GSI1SK: hash, entity: 'Session', ...session, expiresAt: epochSeconds(session.expiresAtIso) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** The hashes of a user's sessions (through the ByUser index). */
export async function listSessionHashesOfUser(store: Store, userId: string): Promise<string[]> {
  const found = await queryAll(
    store,
    { IndexName: 'ByUser', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': `USERSESSIONS#${userId}` } },
    z.object({ GSI1SK: z.string() }),
    'session',
  );
  return found.map((item) => item.GSI1SK);
}

export function getSession(store: Store, hash: string): Promise<SessionRecord | undefined> {
  return getItem(store, sessionKey(hash), sessionRecord, 'session');
}

export function sessionDelete(hash: string) {
  return { Delete: { Key: sessionKey(hash) } };
}

export function deleteSessions(store: Store, hashes: readonly string[]): Promise<void> {
  return deleteItems(store, hashes.map(sessionKey));
}

/** The hashes of a user's sessions that an organization's SAML sign-in opened. */
export async function listSessionHashesOpenedBy(store: Store, userId: string, organizationId: string): Promise<string[]> {
  const hashes = await listSessionHashesOfUser(store, userId);
  const sessions = await batchGetRecords(store, hashes, sessionKey, sessionRecord, 'session', true);
  return hashes.filter((hash) => sessions.get(hash)?.organizationId === organizationId);
}

/** A user-pool identity (its `sub`) -> the user: how a Bearer token finds its user. */
export const identityKey = (sub: string) => ({ PK: `IDENTITY#${sub}`, SK: 'IDENTITY' });

export function identityPut(sub: string, userId: string) {
  return { Put: { Item: { ...identityKey(sub), entity: 'Identity', userId }, ConditionExpression: 'attribute_not_exists(PK) OR userId = :user', ExpressionAttributeValues: { ':user': userId } } };
}

/**
 * The identity of a user the pool federated through an organization's SAML provider (its `sub` is the pool's
 * federated user, not the one /auth/signup made): written by each successful SSO callback, in the session's
 * transaction. The IdP decides which address (hence which account) the federated user is, so a later sign-in
 * may move it to another account; the condition keeps it off a password identity and another provider's.
 */
export function federatedIdentityPut(sub: string, userId: string, identity: { providerName: string; organizationId: string; domain: string }) {
  return {
    Put: {
      Item: {
        ...identityKey(sub),
        // ByUser index: the federated identities of a user, so that a SCIM deprovisioning ends its organization's tokens.
        GSI1PK: `USERIDENTITIES#${userId}`,
        GSI1SK: sub,
        entity: 'Identity',
        userId,
        providerName: identity.providerName,
        organizationId: identity.organizationId,
        domain: identity.domain,
      },
      ConditionExpression: 'attribute_not_exists(PK) OR providerName = :provider',
      ExpressionAttributeValues: { ':provider': identity.providerName },
    },
  };
}

/**
 * Ends every Bearer token of an identity whose sign-in (`auth_time`, kept across refreshes) came before
 * `atSeconds`: a password reset, or an SSO sign-in taking over an unverified account, so that whoever held
 * the old password keeps no token. Makes the identity item when the identity never had one.
 */
export function identityTokensRevoke(sub: string, userId: string, atSeconds: number) {
  return {
    Update: {
      Key: identityKey(sub),
      UpdateExpression: 'SET tokensValidAfter = :at, userId = if_not_exists(userId, :user), entity = if_not_exists(entity, :entity)',
      ConditionExpression: 'attribute_not_exists(PK) OR userId = :user',
      ExpressionAttributeValues: { ':at': atSeconds, ':user': userId, ':entity': 'Identity' },
    },
  };
}

export const identityRecord = z.object({
  userId: z.string(),
  /** Tokens of sign-ins before this time (epoch seconds) are refused: identityTokensRevoke. */
  tokensValidAfter: z.number().optional(),
  /** Federated identities only: the SAML provider and the organization whose configuration it is. */
  providerName: z.string().optional(),
  organizationId: z.string().optional(),
  /** The domain of the address the IdP asserted: its tokens stop when the configuration no longer lists it. */
  domain: z.string().optional(),
});
export type IdentityRecord = z.infer<typeof identityRecord>;

/** The subs of a user's federated identities through one organization's SAML provider (ByUser index). */
export async function listFederatedSubsOf(store: Store, userId: string, organizationId: string): Promise<string[]> {
  const found = await queryAll(
    store,
    { IndexName: 'ByUser', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': `USERIDENTITIES#${userId}` } },
    z.object({ GSI1SK: z.string(), userId: z.string(), organizationId: z.string().optional() }),
    'identity',
  );
  return found.filter((item) => item.userId === userId && item.organizationId === organizationId).map((item) => item.GSI1SK);
}

export function getIdentity(store: Store, sub: string): Promise<IdentityRecord | undefined> {
  return getItem(store, identityKey(sub), identityRecord, 'identity');
}

export async function findUserIdByIdentity(store: Store, sub: string): Promise<string | undefined> {
  return (await getIdentity(store, sub))?.userId;
}

/** One window of a caller's counter item (countCallerRequests): its attribute prefix, length and what to add. */
export interface CallerCounterWindow {
  /** Attribute prefix: the item holds `<prefix><window index>` per window. */
  prefix: string;
  windowMs: number;
  /** The window now. */
  index: number;
  /** Requests to add to the window now and to the one before it (counted in an instance, written late). */
  add: number;
  addPrevious: number;
}

/**
 * Adds requests of an API caller to its windows (a sliding minute and a sliding 10 seconds) in ONE item,
 * `RATE#api#<caller>`, and returns each window's current and previous count. As countRequest, but with
 * several windows: the update adds to each window now (and to the one before, for requests an instance
 * counted there and writes late), drops every attribute of a window that is two or more back, and moves the
 * TTL to the end of the longest window's next one. The condition lets it update only an item written in the
 * longest window now or the one before (less than two longest windows ago), so a shorter window's attributes
 * are at most `2 × longest / its length + 1` back: that many are removed each time, and the item holds two
 * per window at most. An older item (TTL deletion can lag by days) is replaced.
 */
export async function countCallerRequests(store: Store, caller: string, windows: CallerCounterWindow[], now = Date.now()): Promise<{ current: number; previous: number }[]> {
  const key = { PK: `RATE#api#${caller}`, SK: 'RATE' };
  const longest = windows.reduce((a, b) => (b.windowMs > a.windowMs ? b : a));
  const ttl = Math.ceil(((longest.index + 2) * longest.windowMs) / 1000) + 60;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':ttl': ttl, ':entity': 'RateCounter', ':live': Math.floor(now / 1000) + 60 };
  const adds: string[] = [];
  const removes: string[] = [];
  windows.forEach((window, w) => {
    names[`#c${w}`] = `${window.prefix}${window.index}`;
    values[`:c${w}`] = window.add;
    adds.push(`#c${w} :c${w}`);
    if (window.addPrevious > 0) {
      names[`#p${w}`] = `${window.prefix}${window.index - 1}`;
      values[`:p${w}`] = window.addPrevious;
      adds.push(`#p${w} :p${w}`);
    }
    const back = Math.ceil((2 * longest.windowMs) / window.windowMs) + 1;
    for (let i = 2; i <= back; i += 1) {
      names[`#r${w}_${i}`] = `${window.prefix}${window.index - i}`;
      removes.push(`#r${w}_${i}`);
    }
  });
  const counts = (item: Record<string, unknown> | undefined) =>
    windows.map((window) => ({ current: Math.max(1, Number(item?.[`${window.prefix}${window.index}`] ?? 0)), previous: Number(item?.[`${window.prefix}${window.index - 1}`] ?? 0) }));
  try {
    const result = await store.ddb.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: key,
        UpdateExpression: `ADD ${adds.join(', ')} SET expiresAt = :ttl, entity = :entity REMOVE ${removes.join(', ')}`,
        ConditionExpression: 'attribute_not_exists(expiresAt) OR expiresAt > :live',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return counts(result.Attributes);
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    // The item's last write is two longest windows back or more: so are the late requests (the previous windows' adds).
    const item: Record<string, unknown> = { ...key, expiresAt: ttl, entity: 'RateCounter' };
    for (const window of windows) item[`${window.prefix}${window.index}`] = window.add;
    await store.ddb.send(new PutCommand({ TableName: store.tableName, Item: item }));
    return counts(item);
  }
}

/**
 * Counts one request of a client (an IP, or a caller of the API) to a bucket in the window `windowIndex`
 * and returns the counts of that window and of the one before it. One item per bucket and client holds a
 * count per window (`w<index>`); the update adds to the current one, drops the one two windows back, and
 * moves the TTL to the end of the next window. One UpdateItem, so the counts hold across Lambda instances.
 * An item whose last request is two windows old or more (TTL deletion can lag by days) is replaced by a
 * fresh one rather than updated, so that it never keeps windows that no update drops: it holds two at most.
 */
export async function countRequest(store: Store, bucket: string, ip: string, windowIndex: number, windowMs: number, now = Date.now()): Promise<{ current: number; previous: number }> {
  const key = { PK: `RATE#${bucket}#${ip}`, SK: 'RATE' };
  const ttl = Math.ceil(((windowIndex + 2) * windowMs) / 1000) + 60;
  try {
    const result = await store.ddb.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: key,
        UpdateExpression: 'ADD #current :one SET expiresAt = :ttl, entity = :entity REMOVE #stale',
        // Its TTL less the 60 s margin is the end of the window after its last request's.
        ConditionExpression: 'attribute_not_exists(expiresAt) OR expiresAt > :live',
        ExpressionAttributeNames: { '#current': `w${windowIndex}`, '#stale': `w${windowIndex - 2}` },
        ExpressionAttributeValues: { ':one': 1, ':ttl': ttl, ':entity': 'RateCounter', ':live': Math.floor(now / 1000) + 60 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const count = (index: number) => Number(result.Attributes?.[`w${index}`] ?? 0);
    return { current: Math.max(1, count(windowIndex)), previous: count(windowIndex - 1) };
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    await store.ddb.send(new PutCommand({ TableName: store.tableName, Item: { ...key, [`w${windowIndex}`]: 1, expiresAt: ttl, entity: 'RateCounter' } }));
    return { current: 1, previous: 0 };
  }
}
