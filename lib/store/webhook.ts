import * as z from 'zod';
import type { Store } from './client.js';
import { batchWrite, deleteIf, getItem, parseItem, prefixQuery, putIf, samePut, queryDue, queryMatching, queryNewestFirst, queryPrefix } from './items.js';
import { libraryPartition } from './library.js';

/** A webhook of a library. Its signing secret is not stored: it is derived from the stack's key (lib/webhooks/signing.ts). */
export const webhookKey = (orgId: string, libraryId: string, webhookId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `WEBHOOK#${webhookId}` });
/** One delivery of one event to one webhook, newest first per webhook. */
export const deliveryKey = (orgId: string, libraryId: string, webhookId: string, createdAt: string, deliveryId: string) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `WHD#${webhookId}#${createdAt}#${deliveryId}`,
});
/** Deliveries waiting for a retry, by when it is due, in the ByUser index (one partition per stack: one tenant). */
const retryPartition = 'WEBHOOKRETRY';

export const webhookEventTypes = [
  'COMPONENT_CREATED',
  'COMPONENT_UPDATED',
  'COMPONENT_DELETED',
  'COMPONENT_RELEASED',
  'BOM_CHANGED',
  'CHANGE_ORDER_TRANSITIONED',
  'COMMENT_CREATED',
  'COMMENT_DELETED',
  'SOURCING_CHANGED',
  'CHANGE_REQUEST_CREATED',
  'CHANGE_REQUEST_UPDATED',
  'CHANGE_REQUEST_TRANSITIONED',
  'CHANGE_REQUEST_PROMOTED',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export const webhookRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  url: z.string(),
  events: z.array(z.enum(webhookEventTypes)),
  enabled: z.boolean(),
  /** Bumped by rotateSecret: the derived secret changes with it. */
  secretVersion: z.number().int().positive(),
  /** The first characters of the current secret, to tell which one a receiver holds. */
  secretPrefix: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The person who created it (for an integration's API key: the key's owner). */
  createdBy: z.string(),
  /**
   * The principal whose access shapes its deliveries (lib/webhooks/withheld.ts): the integration whose API key
   * created it or last set its url, or `native` for a person. Absent on webhooks stored before it was
   * recorded: they deliver as a person's (createdBy names a person for an integration's key too, so what is
   * stored cannot tell an integration's webhook from a person's).
   */
  principalId: z.string().optional(),
});
export type WebhookRecord = z.infer<typeof webhookRecord>;

export const deliveryRecord = z.object({
  id: z.string(),
  webhookId: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  eventId: z.string(),
  eventType: z.enum(webhookEventTypes),
  /** The exact body sent on every attempt (the signature covers the attempt's timestamp and this). */
  body: z.string(),
  status: z.enum(['PENDING', 'DELIVERED', 'FAILED']),
  attempts: z.number().int().nonnegative(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  /** Set on a resend (redeliver, replay): the delivery it repeats, with the same event id and body. */
  replayOf: z.string().optional(),
});
export type DeliveryRecord = z.infer<typeof deliveryRecord>;

/** Delivery records stay 30 days. */
const deliveryRetentionSeconds = 30 * 24 * 60 * 60;

export function putWebhook(store: Store, record: WebhookRecord, expectedUpdatedAt?: string): Promise<boolean> {
  const item = { ...webhookKey(record.organizationId, record.libraryId, record.id), entity: 'Webhook', ...record };
  return putIf(
    store,
    {
      Item: item,
      ConditionExpression: expectedUpdatedAt ? 'updatedAt = :before' : 'attribute_not_exists(PK)',
      ...(expectedUpdatedAt ? { ExpressionAttributeValues: { ':before': expectedUpdatedAt } } : {}),
    },
    { ownWrite: samePut(item) },
  );
}

export function deleteWebhook(store: Store, orgId: string, libraryId: string, webhookId: string): Promise<boolean> {
  return deleteIf(store, { Key: webhookKey(orgId, libraryId, webhookId), ConditionExpression: 'attribute_exists(PK)' });
}

export function getWebhook(store: Store, orgId: string, libraryId: string, webhookId: string): Promise<WebhookRecord | undefined> {
  return getItem(store, webhookKey(orgId, libraryId, webhookId), webhookRecord, 'webhook');
}

export function listWebhooks(store: Store, orgId: string, libraryId: string): Promise<WebhookRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'WEBHOOK#', webhookRecord, 'webhook', { ConsistentRead: true });
}

const retryKeys = (record: DeliveryRecord) => (record.status === 'PENDING' && record.nextAttemptAt ? { GSI1PK: retryPartition, GSI1SK: `${record.nextAttemptAt}#${record.id}` } : {});

function deliveryItem(record: DeliveryRecord) {
  return {
    ...deliveryKey(record.organizationId, record.libraryId, record.webhookId, record.createdAt, record.id),
    entity: 'WebhookDelivery',
    ...record,
    ...retryKeys(record),
    expiresAt: Math.ceil(Date.parse(record.createdAt) / 1000) + deliveryRetentionSeconds,
  };
}

/** A new delivery; false when one with this id exists (a stream record seen twice delivers once). */
export function insertDelivery(store: Store, record: DeliveryRecord): Promise<boolean> {
  return putIf(store, { Item: deliveryItem(record), ConditionExpression: 'attribute_not_exists(PK)' });
}

/** New deliveries with fresh random ids (resends): plain puts in batches of 25, nothing to condition on. */
export function insertDeliveries(store: Store, records: DeliveryRecord[]): Promise<void> {
  return batchWrite(
    store,
    records.map((record) => ({ put: deliveryItem(record) })),
  );
}

/**
 * Claims a due retry before it is sent: moves its next attempt to `leaseUntil` (the sweep finds it again
 * only if this attempt dies), on condition that the delivery is still the version read (same attempts and
 * next attempt). False when another sweep claimed it, or the retry index gave a stale copy: then nothing is
 * sent, so a receiver never gets an attempt twice.
 */
export function claimDeliveryRetry(store: Store, delivery: DeliveryRecord, leaseUntil: string): Promise<boolean> {
  return putIf(store, {
    Item: deliveryItem({ ...delivery, nextAttemptAt: leaseUntil }),
    ConditionExpression: 'attempts = :attempts AND nextAttemptAt = :next',
    ExpressionAttributeValues: { ':attempts': delivery.attempts, ':next': delivery.nextAttemptAt },
  });
}

/**
 * Records an attempt's outcome, on condition that no other attempt was recorded meanwhile (attempts as
 * read): false when another process recorded one first.
 */
export function recordAttempt(store: Store, before: DeliveryRecord, after: DeliveryRecord): Promise<boolean> {
  return putIf(store, { Item: deliveryItem(after), ConditionExpression: 'attempts = :attempts', ExpressionAttributeValues: { ':attempts': before.attempts } });
}

/** A webhook's deliveries, newest first. */
export function listDeliveries(store: Store, orgId: string, libraryId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
  return queryNewestFirst(store, libraryPartition(orgId, libraryId), `WHD#${webhookId}#`, limit, deliveryRecord, 'webhook delivery');
}

/**
 * One delivery of a library by id (the ids do not name their webhook or time): a filtered query over the
 * library's delivery log (kept 30 days), stopping at the first match.
 */
export async function findDelivery(store: Store, orgId: string, libraryId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const [found] = await queryMatching(
    store,
    prefixQuery(libraryPartition(orgId, libraryId), 'WHD#', { FilterExpression: 'id = :id', ExpressionAttributeValues: { ':id': deliveryId }, ConsistentRead: true }),
    1,
    deliveryRecord,
    'webhook delivery',
  );
  return found;
}

/**
 * A webhook's original deliveries (not resends) created in [from, to], oldest first, at most `limit`
 * (the caller reads one more than it accepts to tell a window that is too large).
 */
export function deliveriesBetween(store: Store, webhook: { organizationId: string; libraryId: string; id: string }, from: string, to: string, limit: number): Promise<DeliveryRecord[]> {
  return queryMatching(
    store,
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      FilterExpression: 'attribute_not_exists(replayOf)',
      ExpressionAttributeValues: { ':pk': libraryPartition(webhook.organizationId, webhook.libraryId), ':from': `WHD#${webhook.id}#${from}`, ':to': `WHD#${webhook.id}#${to}#~` },
      ConsistentRead: true,
    },
    limit,
    deliveryRecord,
    'webhook delivery',
  );
}

/** The attempt fields of a delivery not yet tried, created at `createdAt` and due at `nextAttemptAt`. */
export function unattempted(createdAt: string, nextAttemptAt: string | null) {
  return { status: 'PENDING', attempts: 0, lastStatusCode: null, lastError: null, createdAt, lastAttemptAt: null, nextAttemptAt, deliveredAt: null } as const;
}

/** Deliveries whose next attempt is due by `now`, oldest first (at most `limit`). */
export function dueDeliveries(store: Store, now: string, limit: number): Promise<DeliveryRecord[]> {
  return queryDue(store, retryPartition, now, limit, deliveryRecord, 'webhook delivery');
}
