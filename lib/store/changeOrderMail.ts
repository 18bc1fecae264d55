import { randomUUID } from 'node:crypto';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { isConditionalCheckFailure, isStorableKey, ownResultOfEarlierAttempt, parseItem, queryAll, queryDue, queryPrefix, updateIf, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';

/**
 * The outbox of change order mails: the mails one committed action sends, written in the transaction of the
 * action (so a mail goes if and only if the action committed), sent by the jobs function when the table's
 * stream hands it the INSERT (lib/changeOrders/mailStream.ts). One item per action and revision.
 *
 * Until it is sent (or fails for good) an item is also in the due index: `GSI1PK = MAILRETRY` (one partition
 * per stack, as webhook retries), `GSI1SK = <nextAttemptAt>#<changeOrderId>#<rev>`, so that the scheduled
 * sweep (lib/changeOrders/mailRetry.ts) sends what the stream did not. Every sending claims the item first
 * (`claimChangeOrderMail`: a lease, with the attempt count), so two senders never hold it at once.
 */
export const changeOrderMailKey = (orgId: string, libraryId: string, changeOrderId: string, rev: number) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `MAILOUT#${changeOrderId}#${rev}`,
});

/** What the mails of one action say, and to whom (users by id are resolved to their address when sent). */
const mail = z.object({
  to: z.array(z.string()),
  userIds: z.array(z.string()),
  subject: z.string(),
  lines: z.array(z.string()),
  /** False: no redline and impact counts in this mail. */
  summary: z.boolean().optional(),
});

/** A string set as DynamoDB gives it (a Set) or as it was put (an array). */
const stringSet = z.preprocess((value) => (value instanceof Set ? [...(value as Set<string>)] : (value ?? [])), z.array(z.string()));

export const changeOrderMailRecord = z.object({
  changeOrderId: z.string(),
  rev: z.number().int(),
  /**
   * The change order as the action committed it, as much as the mails need: the link, and the redline and
   * impact counts (lib/changeOrders/summary.ts counts the first components only; `componentCount` is the total).
   */
  order: z.object({
    id: z.string(),
    number: z.string(),
    organizationId: z.string(),
    libraryId: z.string(),
    createdBy: z.string(),
    resolution: z.enum(['APPROVED', 'REJECTED', 'WITHDRAWN']).nullable(),
    components: z.array(z.object({ componentId: z.string(), fromRevision: z.string(), toRevision: z.string().nullable() })),
    componentCount: z.number().int(),
  }),
  mails: z.array(mail),
  createdAt: z.string(),
  /** Progress: `<mail index> <address>` of each mail sent, so a redelivery of the stream record sends no address twice. */
  sentTo: stringSet,
  /** Set once every mail went: a redelivery after it sends nothing. */
  sentAt: z.string().nullable().default(null),
  /** Sendings claimed so far (the stream's and the sweep's). */
  attempts: z.number().int().nonnegative().default(0),
  /** When the sweep may claim it next (its key in the due index); null once sent or failed. */
  nextAttemptAt: z.string().nullable().default(null),
  /** Set by a claim, until the claimed sending recorded its outcome: another sender leaves it alone until then. */
  leasedUntil: z.string().nullable().default(null),
  lastAttemptAt: z.string().nullable().default(null),
  lastError: z.string().nullable().default(null),
  /** Set when the last allowed attempt failed: out of the due index (into the failed one), nothing sends it again unless an operator resends it. */
  failedAt: z.string().nullable().default(null),
  /** The attempts before an operator's resend: the limit counts the attempts after it. */
  attemptBase: z.number().int().nonnegative().default(0),
});
export type ChangeOrderMailRecord = z.infer<typeof changeOrderMailRecord>;
export type ChangeOrderMailInput = Omit<
  z.input<typeof changeOrderMailRecord>,
  'sentTo' | 'sentAt' | 'attempts' | 'nextAttemptAt' | 'leasedUntil' | 'lastAttemptAt' | 'lastError' | 'failedAt' | 'attemptBase'
> & {
  /** When the sweep first may send it (lib/changeOrders/mailRetry.ts); `defaultFirstAttemptDelayMs` after `createdAt` when not given. */
  nextAttemptAt?: string;
};

/** The due index's partition (ByUser), one per stack. */
const duePartition = 'MAILRETRY';
/** The failed items' partition (ByUser), one per stack, by when they failed: what `npm run admin -- mails failed` lists. */
const failedPartition = 'MAILFAILED';
/** How long after an item is written the sweep first may send it, unless the writer says: the stream sends it first. */
export const defaultFirstAttemptDelayMs = 5 * 60_000;

const dueKeys = (record: Pick<ChangeOrderMailRecord, 'changeOrderId' | 'rev'>, nextAttemptAt: string) => ({
  GSI1PK: duePartition,
  GSI1SK: `${nextAttemptAt}#${record.changeOrderId}#${record.rev}`,
});
const keyOf = (record: Pick<ChangeOrderMailRecord, 'changeOrderId' | 'rev' | 'order'>) => changeOrderMailKey(record.order.organizationId, record.order.libraryId, record.changeOrderId, record.rev);

/** An unsent item stays a week (the stream keeps a record a day); a sent one a day, for operators to see. */
const unsentRetentionSeconds = 7 * 24 * 60 * 60;
const sentRetentionSeconds = 24 * 60 * 60;

/** The outbox item, as one item of the action's transaction (its key is new: the revision conditions the order). */
export function changeOrderMailPut(input: ChangeOrderMailInput): WriteItem {
  const nextAttemptAt = input.nextAttemptAt ?? new Date(Date.parse(input.createdAt) + defaultFirstAttemptDelayMs).toISOString();
  const record = changeOrderMailRecord.parse({ ...input, sentTo: [], sentAt: null, attempts: 0, nextAttemptAt });
  const { sentTo: _none, ...item } = record;
  return {
    Put: {
      Item: {
        ...keyOf(record),
        entity: 'ChangeOrderMail',
        ...item,
        ...dueKeys(record, nextAttemptAt),
        expiresAt: Math.ceil(Date.parse(record.createdAt) / 1000) + unsentRetentionSeconds,
      },
    },
  };
}

/** The outbox item as a stream record's new image carries it, or undefined for any other item. */
export function changeOrderMailOfItem(item: Record<string, unknown> | undefined): ChangeOrderMailRecord | undefined {
  if (!item || item.entity !== 'ChangeOrderMail') return undefined;
  return parseItem(changeOrderMailRecord, item, 'change order mail');
}

/** The outbox item as it is now (strongly consistent: progress a moment ago counts), undefined once gone. */
export async function getChangeOrderMail(store: Store, orgId: string, libraryId: string, changeOrderId: string, rev: number): Promise<ChangeOrderMailRecord | undefined> {
  const key = changeOrderMailKey(orgId, libraryId, changeOrderId, rev);
  if (!isStorableKey(key)) return undefined;
  const { Item } = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: key, ConsistentRead: true }));
  return Item ? parseItem(changeOrderMailRecord, Item, 'change order mail') : undefined;
}

/** Records one address of one mail as sent; false when the item is gone (nothing is recreated). */
export function recordChangeOrderMailSent(store: Store, record: ChangeOrderMailRecord, marker: string): Promise<boolean> {
  return updateIf(store, {
    Key: keyOf(record),
    UpdateExpression: 'ADD sentTo :one',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':one': new Set([marker]) },
  });
}

/** Every mail of the item went: marked (a redelivery sends nothing), out of the due index, kept a day. */
export function markChangeOrderMailSent(store: Store, record: ChangeOrderMailRecord, at: string): Promise<boolean> {
  return updateIf(store, {
    Key: keyOf(record),
    UpdateExpression: 'SET sentAt = :at, expiresAt = :ttl, nextAttemptAt = :none, leasedUntil = :none REMOVE GSI1PK, GSI1SK',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':at': at, ':ttl': Math.ceil(Date.parse(at) / 1000) + sentRetentionSeconds, ':none': null },
  });
}

/**
 * Claims the item for one sending, on condition that it is still the version read (its attempt count and
 * next attempt; an item written before the due index existed has neither), neither sent nor failed, and not leased by a sending still under way: the
 * attempt is counted, and its next attempt (its key in the due index) moves to `leaseUntil`, so the sweep
 * takes it over only if this sending dies. Returns the item as claimed (its progress as of now), or
 * undefined when another sender claimed it first, it was sent, failed or is gone: then nothing is sent.
 * Each claim stamps a `claimId` of its own: when the SDK sends the claim again (a timeout whose first attempt
 * did apply), the failed condition finds this claim's id and the claim stands (lib/store/README.md, "Timeouts").
 */
export async function claimChangeOrderMail(store: Store, record: ChangeOrderMailRecord, at: string, leaseUntil: string): Promise<ChangeOrderMailRecord | undefined> {
  const unclaimed = record.attempts === 0 && record.nextAttemptAt === null ? 'attribute_not_exists(attempts)' : 'attempts = :attempts AND nextAttemptAt = :next';
  const claimId = randomUUID();
  try {
    const { Attributes } = await store.ddb.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: keyOf(record),
        UpdateExpression: 'SET attempts = :claimed, nextAttemptAt = :lease, leasedUntil = :lease, lastAttemptAt = :at, claimId = :claimId, GSI1PK = :pk, GSI1SK = :sk',
        ConditionExpression: `attribute_exists(PK) AND attribute_type(sentAt, :NULL) AND (attribute_not_exists(failedAt) OR attribute_type(failedAt, :NULL)) AND (attribute_not_exists(leasedUntil) OR attribute_type(leasedUntil, :NULL) OR leasedUntil <= :at) AND ${unclaimed}`,
        ExpressionAttributeValues: {
          ...(record.attempts === 0 && record.nextAttemptAt === null ? {} : { ':attempts': record.attempts, ':next': record.nextAttemptAt }),
          ':claimed': record.attempts + 1,
          ':claimId': claimId,
          ':lease': leaseUntil,
          ':at': at,
          ':NULL': 'NULL',
          ...dueKeysValues(record, leaseUntil),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return parseItem(changeOrderMailRecord, Attributes!, 'change order mail');
  } catch (error) {
    const own = ownResultOfEarlierAttempt(error, (old) => old.claimId === claimId);
    if (own) return parseItem(changeOrderMailRecord, own, 'change order mail');
    if (isConditionalCheckFailure(error)) return undefined;
    throw error;
  }
}

const dueKeysValues = (record: ChangeOrderMailRecord, at: string) => {
  const keys = dueKeys(record, at);
  return { ':pk': keys.GSI1PK, ':sk': keys.GSI1SK };
};

/**
 * Records a claimed sending that did not send everything, on condition that the claim is still this one
 * (attempts as claimed): with `nextAttemptAt` the item waits in the due index until then; without it the
 * item failed for good (`failedAt`) and moves from the due index to the failed one (`MAILFAILED` /
 * `<failedAt>#<changeOrderId>#<rev>`). False when another claim came first.
 */
export function recordChangeOrderMailFailure(store: Store, claimed: ChangeOrderMailRecord, at: string, error: string, nextAttemptAt: string | null): Promise<boolean> {
  const common = { ':attempts': claimed.attempts, ':error': error, ':none': null };
  return updateIf(store, {
    Key: keyOf(claimed),
    ConditionExpression: 'attempts = :attempts AND attribute_type(sentAt, :NULL)',
    ...(nextAttemptAt
      ? {
          UpdateExpression: 'SET nextAttemptAt = :next, leasedUntil = :none, lastError = :error, GSI1PK = :pk, GSI1SK = :sk',
          ExpressionAttributeValues: { ...common, ':NULL': 'NULL', ':next': nextAttemptAt, ...dueKeysValues(claimed, nextAttemptAt) },
        }
      : {
          UpdateExpression: 'SET failedAt = :at, nextAttemptAt = :none, leasedUntil = :none, lastError = :error, GSI1PK = :pk, GSI1SK = :sk',
          ExpressionAttributeValues: { ...common, ':NULL': 'NULL', ':at': at, ':pk': failedPartition, ':sk': `${at}#${claimed.changeOrderId}#${claimed.rev}` },
        }),
  });
}

/**
 * Takes a sent item out of the due index (its keys left there by a sender of a build before the index, which
 * set `sentAt` only): on condition that it is sent and still keyed in the due index. False otherwise.
 */
export function leaveDueIndex(store: Store, record: ChangeOrderMailRecord): Promise<boolean> {
  return updateIf(store, {
    Key: keyOf(record),
    UpdateExpression: 'SET nextAttemptAt = :none, leasedUntil = :none REMOVE GSI1PK, GSI1SK',
    ConditionExpression: 'attribute_type(sentAt, :S) AND GSI1PK = :pk',
    ExpressionAttributeValues: { ':none': null, ':S': 'S', ':pk': duePartition },
  });
}

/** Unsent items whose next attempt is due by `now`, the longest due first (at most `limit`; the index may lag a moment). */
export function dueChangeOrderMails(store: Store, now: string, limit: number): Promise<ChangeOrderMailRecord[]> {
  return queryDue(store, duePartition, now, limit, changeOrderMailRecord, 'change order mail');
}

/** The items that failed for good, newest first (the failed index of the stack). */
export function failedChangeOrderMails(store: Store): Promise<ChangeOrderMailRecord[]> {
  return queryAll(
    store,
    { IndexName: 'ByUser', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': failedPartition }, ScanIndexForward: false },
    changeOrderMailRecord,
    'change order mail',
  );
}

/**
 * An operator's resend of a failed item: back in the due index at `at` with a full set of attempts
 * (`attemptBase`) and another week to live, on condition that it is still the failed version read. The
 * addresses already sent (`sentTo`) are not sent again. False when it changed meanwhile or was sent after all
 * (a sender whose lease ran out finished it); true when an earlier attempt of this call applied it.
 */
export function resendChangeOrderMail(store: Store, record: ChangeOrderMailRecord, at: string): Promise<boolean> {
  return updateIf(
    store,
    {
      Key: keyOf(record),
      UpdateExpression: 'SET failedAt = :none, attemptBase = attempts, nextAttemptAt = :at, expiresAt = :ttl, GSI1PK = :pk, GSI1SK = :sk',
      ConditionExpression: 'failedAt = :failedAt AND attempts = :attempts AND attribute_type(sentAt, :NULL)',
      ExpressionAttributeValues: {
        ':none': null,
        ':NULL': 'NULL',
        ':at': at,
        ':ttl': Math.ceil(Date.parse(at) / 1000) + unsentRetentionSeconds,
        ':failedAt': record.failedAt,
        ':attempts': record.attempts,
        ...dueKeysValues(record, at),
      },
    },
    {
      // This resend, applied by an earlier attempt of the call (no other writer sets these three at once).
      ownWrite: (old) => old.failedAt === null && old.nextAttemptAt === at && old.attemptBase === record.attempts && old.GSI1PK === duePartition,
    },
  );
}

const outboxKeys = z.object({ PK: z.string(), SK: z.string(), sentAt: z.string().nullable().optional() });

/**
 * Deletes of an order's unsent outbox items, for the transaction that deletes the order (a draft): no mail
 * goes for an order that is gone (a created mail still waiting out an SES outage). A sending under way stops
 * at its next record (the item is gone). Sent items are left to their TTL.
 */
export async function unsentChangeOrderMailDeletes(store: Store, orgId: string, libraryId: string, changeOrderId: string): Promise<WriteItem[]> {
  const items = await queryPrefix(store, libraryPartition(orgId, libraryId), `MAILOUT#${changeOrderId}#`, outboxKeys, 'change order mail', {
    ProjectionExpression: 'PK, SK, sentAt',
    ConsistentRead: true,
  });
  return items.filter((item) => !item.sentAt).map((item) => ({ Delete: { Key: { PK: item.PK, SK: item.SK } } }));
}

/** What the backfill reads of an outbox item (a Scan's projection). */
const backfillRow = z.object({
  PK: z.string(),
  SK: z.string(),
  changeOrderId: z.string(),
  rev: z.number().int(),
  expiresAt: z.number().optional(),
});
export type UnindexedChangeOrderMail = z.infer<typeof backfillRow>;

/**
 * One page of a pass over the whole table (`npm run admin -- mails backfill`) for outbox items written by a
 * build before the due index: unsent (`sentAt` absent or null), not failed, and with no index keys (no
 * `GSI1PK`: never claimed, since every claim writes them). `start`: the page's start (the last page's `next`).
 */
export async function unindexedChangeOrderMailsPage(
  store: Store,
  start: Record<string, unknown> | undefined,
): Promise<{ items: UnindexedChangeOrderMail[]; scanned: number; next: Record<string, unknown> | undefined }> {
  const page = await store.ddb.send(
    new ScanCommand({
      TableName: store.tableName,
      ExclusiveStartKey: start,
      FilterExpression: `entity = :entity AND begins_with(SK, :prefix) AND ${unindexedUnsent}`,
      ProjectionExpression: 'PK, SK, changeOrderId, rev, expiresAt',
      ExpressionAttributeValues: { ':entity': 'ChangeOrderMail', ':prefix': 'MAILOUT#', ':NULL': 'NULL' },
    }),
  );
  return { items: (page.Items ?? []).map((item) => parseItem(backfillRow, item, 'change order mail')), scanned: page.ScannedCount ?? 0, next: page.LastEvaluatedKey };
}

/** Unsent, not failed, outside every index: the items the sweep cannot see. */
const unindexedUnsent = 'attribute_not_exists(GSI1PK) AND (attribute_not_exists(sentAt) OR attribute_type(sentAt, :NULL)) AND (attribute_not_exists(failedAt) OR attribute_type(failedAt, :NULL))';

/**
 * The same items of one library only (`mails backfill --org-slug`): one Query of the library's outbox
 * (`MAILOUT#`) with the same filter, instead of a pass over the whole table.
 */
export async function unindexedChangeOrderMailsOfLibrary(store: Store, orgId: string, libraryId: string): Promise<UnindexedChangeOrderMail[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'MAILOUT#', backfillRow, 'change order mail', {
    FilterExpression: `entity = :entity AND ${unindexedUnsent}`,
    ProjectionExpression: 'PK, SK, changeOrderId, rev, expiresAt',
    ExpressionAttributeValues: { ':entity': 'ChangeOrderMail', ':NULL': 'NULL' },
    ConsistentRead: true,
  });
}

/**
 * Puts an unindexed outbox item in the due index, due at `at` (the sweep sends it within a minute), with
 * the attempt count and next attempt a claim conditions on; on condition that it is still unsent, not failed
 * and without index keys, so an item the stream claimed or sent meanwhile is left alone (false). A
 * backfill whose earlier attempt applied (a timeout) counts as applied.
 */
export function indexUnindexedChangeOrderMail(store: Store, item: UnindexedChangeOrderMail, at: string): Promise<boolean> {
  const keys = dueKeys(item, at);
  return updateIf(
    store,
    {
      Key: { PK: item.PK, SK: item.SK },
      UpdateExpression: 'SET nextAttemptAt = :at, attempts = if_not_exists(attempts, :zero), GSI1PK = :pk, GSI1SK = :sk',
      ConditionExpression: `attribute_exists(PK) AND ${unindexedUnsent}`,
      ExpressionAttributeValues: { ':at': at, ':zero': 0, ':NULL': 'NULL', ':pk': keys.GSI1PK, ':sk': keys.GSI1SK },
    },
    { ownWrite: (old) => old.GSI1SK === keys.GSI1SK && old.nextAttemptAt === at && (old.sentAt ?? null) === null },
  );
}
