import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetRecords, getItem, keyString, parseItem, putIf, queryPrefix, updateIf } from './items.js';

/**
 * A user's notifications: `NOTIF#<userId>` / `N#<notificationId>`, where the id is time-ordered and derived
 * from the stream event and the user (lib/model/timeId.ts), so a record processed twice puts the same key
 * (conditional put: once). Settings: `USER#<userId>` / `NOTIFSETTINGS`. Digest users with notifications
 * not yet mailed: `DIGESTDUE` / `USER#<userId>` (one partition per stack, read by the daily digest run).
 */
export const notificationKinds = ['COMPONENT_UPDATED', 'COMPONENT_RELEASED', 'COMPONENT_DELETED', 'BOM_CHANGED', 'CHANGE_ORDER_TRANSITIONED', 'COMMENT', 'MENTION'] as const;
export type NotificationKind = (typeof notificationKinds)[number];
export const emailModes = ['EACH', 'DIGEST'] as const;
export type EmailMode = (typeof emailModes)[number];

const partition = (userId: string) => `NOTIF#${userId}`;
export const notificationKey = (userId: string, id: string) => ({ PK: partition(userId), SK: `N#${id}` });
const settingsKey = (userId: string) => ({ PK: `USER#${userId}`, SK: 'NOTIFSETTINGS' });
const digestPartition = 'DIGESTDUE';
const digestKey = (userId: string) => ({ PK: digestPartition, SK: `USER#${userId}` });

export const notificationRecord = z.object({
  id: z.string().uuid(),
  userId: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  kind: z.enum(notificationKinds),
  /** What the user watches (or where they were mentioned): a component, assembly or change order. */
  targetId: z.string().uuid(),
  /** What the event is about when it is not the target itself (a child released under a watched assembly, a comment). */
  subjectId: z.string().nullable(),
  actorId: z.string().nullable(),
  summary: z.string(),
  /** The comment a COMMENT or MENTION notification quotes (absent on notifications made before it was kept): its deletion withdraws the text. */
  commentId: z.string().uuid().optional(),
  eventId: z.string(),
  createdAt: z.string(),
  read: z.boolean(),
});
export type NotificationRecord = z.infer<typeof notificationRecord>;

const settingsRecord = z.object({ email: z.enum(emailModes), updatedAt: z.string() });
export type NotificationSettingsRecord = z.infer<typeof settingsRecord>;

/** True when this put created it (false: the event was already fanned out to this user). */
export function putNotification(store: Store, record: NotificationRecord): Promise<boolean> {
  return putIf(store, { Item: { ...notificationKey(record.userId, record.id), entity: 'Notification', ...record }, ConditionExpression: 'attribute_not_exists(PK)' });
}

/** Puts per TransactWriteItems (the DynamoDB maximum) and transactions in flight at once. */
const notificationsPerTransaction = 100;
const transactionsInFlight = 8;

/**
 * Many notifications at once, each created only where its key is free (as `putNotification`), in
 * TransactWriteItems of up to 100 conditional puts, a few in flight at once. A transaction that meets an
 * existing notification (a redelivered stream record) is cancelled as a whole; its cancellation reasons
 * name the items whose condition failed, which are left out, and the rest is written again. So exactly the
 * notifications this call created are returned (each once: a key given twice counts once). A transaction
 * that met a concurrent write or was throttled is retried with backoff; each attempt carries its own
 * ClientRequestToken (the SDK's own retries of one attempt replay it, so a lost response cannot read as
 * an existing notification). DynamoDB bills a transactional put twice a plain one's WCU.
 */
export async function putNotifications(store: Store, records: readonly NotificationRecord[]): Promise<NotificationRecord[]> {
  const unique = [...new Map(records.map((record) => [keyString(notificationKey(record.userId, record.id)), record])).values()];
  const chunks: NotificationRecord[][] = [];
  for (let start = 0; start < unique.length; start += notificationsPerTransaction) chunks.push(unique.slice(start, start + notificationsPerTransaction));
  const created: NotificationRecord[][] = chunks.map(() => []);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < chunks.length; index = next++) created[index] = await putNotificationChunk(store, chunks[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(transactionsInFlight, chunks.length) }, worker));
  return created.flat();
}

async function putNotificationChunk(store: Store, chunk: NotificationRecord[]): Promise<NotificationRecord[]> {
  let pending = chunk;
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt === 10) throw new Error('Notifications met concurrent writes or throttling 10 times');
    try {
      await store.ddb.send(
        new TransactWriteCommand({
          ClientRequestToken: randomUUID(),
          TransactItems: pending.map((record) => ({
            Put: { TableName: store.tableName, Item: { ...notificationKey(record.userId, record.id), entity: 'Notification', ...record }, ConditionExpression: 'attribute_not_exists(PK)' },
          })),
        }),
      );
      return pending;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const existing = new Set(reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : [])));
      if (existing.size > 0) {
        pending = pending.filter((_, index) => !existing.has(index));
        continue;
      }
      if (!reasons.some((reason) => reason.Code === 'TransactionConflict' || reason.Code === 'ThrottlingError')) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 2 ** attempt * 20) * (0.5 + Math.random())));
    }
  }
  return pending;
}

/** One page, newest first; `after` is the id of the last notification of the previous page. */
export async function listNotifications(
  store: Store,
  userId: string,
  unreadOnly: boolean,
  limit: number,
  after: string | undefined,
  organizationId: string | null = null,
): Promise<{ items: NotificationRecord[]; hasMore: boolean }> {
  const items: NotificationRecord[] = [];
  let start: Record<string, unknown> | undefined = after ? notificationKey(userId, after) : undefined;
  // Unread only, and/or one organization's only (an API key's caller sees its organization's).
  const filters = [...(unreadOnly ? ['#read = :false'] : []), ...(organizationId ? ['organizationId = :org'] : [])];
  do {
    const page = await store.ddb.send(
      new QueryCommand({
        TableName: store.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': partition(userId), ':prefix': 'N#', ...(unreadOnly ? { ':false': false } : {}), ...(organizationId ? { ':org': organizationId } : {}) },
        ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
        ...(unreadOnly ? { ExpressionAttributeNames: { '#read': 'read' } } : {}),
        ScanIndexForward: false,
        Limit: limit + 1 - items.length,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) items.push(parseItem(notificationRecord, item, 'notification'));
    start = page.LastEvaluatedKey;
  } while (start && items.length <= limit);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/** Marks one notification read; false when the user has no such notification (of that organization, when given). */
export function markNotificationRead(store: Store, userId: string, id: string, organizationId: string | null = null): Promise<boolean> {
  return updateIf(store, {
    Key: notificationKey(userId, id),
    UpdateExpression: 'SET #read = :true',
    ConditionExpression: organizationId ? 'attribute_exists(PK) AND organizationId = :org' : 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#read': 'read' },
    ExpressionAttributeValues: { ':true': true, ...(organizationId ? { ':org': organizationId } : {}) },
  });
}

/** Every unread notification of a user (for markAllRead and the digest). */
export async function listUnreadNotifications(store: Store, userId: string): Promise<NotificationRecord[]> {
  const all = await queryPrefix(store, partition(userId), 'N#', notificationRecord, 'notification');
  return all.filter((n) => !n.read);
}

export async function markAllNotificationsRead(store: Store, userId: string, organizationId: string | null = null): Promise<number> {
  const unread = (await listUnreadNotifications(store, userId)).filter((n) => !organizationId || n.organizationId === organizationId);
  for (const notification of unread) {
    await store.ddb.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: notificationKey(userId, notification.id),
        UpdateExpression: 'SET #read = :true',
        ExpressionAttributeNames: { '#read': 'read' },
        ExpressionAttributeValues: { ':true': true },
      }),
    );
  }
  return unread.length;
}

export async function getNotificationSettings(store: Store, userId: string): Promise<NotificationSettingsRecord> {
  return (await getItem(store, settingsKey(userId), settingsRecord, 'notification settings')) ?? { email: 'EACH', updatedAt: new Date(0).toISOString() };
}

/** The settings of many users (BatchGetItem rounds of 100 keys); a user who chose nothing gets the default (EACH). */
export async function getNotificationSettingsOf(store: Store, userIds: readonly string[]): Promise<Map<string, NotificationSettingsRecord>> {
  const found = await batchGetRecords(store, userIds, settingsKey, settingsRecord, 'notification settings');
  return new Map([...new Set(userIds)].map((id) => [id, found.get(id) ?? { email: 'EACH', updatedAt: new Date(0).toISOString() }]));
}

export async function putNotificationSettings(store: Store, userId: string, settings: NotificationSettingsRecord): Promise<void> {
  await store.ddb.send(new PutCommand({ TableName: store.tableName, Item: { ...settingsKey(userId), entity: 'NotificationSettings', ...settings } }));
}

/** A digest user has notifications to mail: keeps the earliest `since`. */
export async function markDigestDue(store: Store, userId: string, since: string): Promise<void> {
  await putIf(store, { Item: { ...digestKey(userId), entity: 'DigestDue', userId, since }, ConditionExpression: 'attribute_not_exists(PK)' });
}

const digestDueRecord = z.object({ userId: z.string().uuid(), since: z.string() });

export function listDigestsDue(store: Store): Promise<z.infer<typeof digestDueRecord>[]> {
  return queryPrefix(store, digestPartition, 'USER#', digestDueRecord, 'digest due');
}

/** Done with a user's digest: only if no newer mark replaced the one read. */
export async function clearDigestDue(store: Store, userId: string, since: string): Promise<void> {
  await store.ddb
    .send(new DeleteCommand({ TableName: store.tableName, Key: digestKey(userId), ConditionExpression: 'since = :since', ExpressionAttributeValues: { ':since': since } }))
    .catch((error: unknown) => {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    });
}
