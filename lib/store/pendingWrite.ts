import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetItems, batchGetRecords, conditionalWrites, keyString, parseItem, putIf, samePut, updateIf, type Key, type WriteItem, queryPrefix } from './items.js';
import { libraryPartition } from './library.js';

/**
 * The commit record of a write too large for one transaction (an item write, a change order's release). Items it creates carry its writeId
 * and are invisible until the record says COMMITTED; the commit is one conditional transaction.
 */
export const pendingWriteKey = (orgId: string, libraryId: string, writeId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `WRITE#${writeId}` });

export const pendingWriteRecord = z.object({
  writeId: z.string().uuid(),
  status: z.enum(['PENDING', 'COMMITTED', 'ABORTED']),
  /** Every item written under this write id before the commit. */
  keys: z.array(z.object({ PK: z.string(), SK: z.string() })),
  createdAt: z.string(),
  /**
   * Components whose search entries are written after the commit (a release: they do not fit its
   * transaction). Settling a COMMITTED write writes them, so a crash between commit and entries is mended.
   */
  refreshSearchOf: z.array(z.string()).default([]),
  /**
   * A large release (over `maxReleaseInOneCommit` components): the components it marked with their released
   * version (`pendingRelease` of component.ts). Settling a COMMITTED write puts each marked version in place,
   * an ABORTED one removes the marks.
   */
  markedComponents: z.array(z.string()).default([]),
  /**
   * Locks of a change order too large for one transaction: the components whose lock (`lockedBy` this order)
   * goes when the write settles as `when` says (ABORTED: a submit that did not commit; COMMITTED: a reject,
   * withdrawal or reset), unless the order holds them again (lib/items/settle.ts `unlockComponentsOf`).
   */
  unlock: z
    .object({ changeOrderId: z.string(), componentIds: z.array(z.string()), when: z.enum(['ABORTED', 'COMMITTED']) })
    .nullable()
    .default(null),
  /** A release's change requests: closed when it settles as COMMITTED (again by cleanup, idempotent). */
  closeRequests: z
    .object({ changeOrderId: z.string(), number: z.string(), by: z.string(), ids: z.array(z.string()) })
    .nullable()
    .default(null),
  /**
   * Who settles the write once COMMITTED: the request that committed it (REQUEST), or the jobs function fed by
   * the table's stream (STREAM: a large release, whose approval returns at the commit; lib/items/settleStream.ts).
   * Either way cleanupAbandonedWrites settles it again if that did not happen. An ABORTED write is settled by
   * whoever aborted it.
   */
  settleOn: z.enum(['REQUEST', 'STREAM']).default('REQUEST'),
  /** Set once every item has lost its writeId (COMMITTED) or been deleted (ABORTED). */
  settledAt: z.string().nullable(),
});
export type PendingWriteRecord = z.infer<typeof pendingWriteRecord>;

/** A settled record stays a day (TTL), long enough for any reader that saw one of its items. */
const settledRetentionSeconds = 24 * 60 * 60;

export async function putPendingWrite(store: Store, orgId: string, libraryId: string, input: z.input<typeof pendingWriteRecord>): Promise<void> {
  const record = pendingWriteRecord.parse(input);
  const item = { ...pendingWriteKey(orgId, libraryId, record.writeId), entity: 'PendingWrite', ...record };
  // A fresh write id: a failed condition on a retried attempt is this put (lib/store/README.md, "Timeouts").
  if (!(await putIf(store, { Item: item, ConditionExpression: 'attribute_not_exists(PK)' }, { ownWrite: samePut(item) }))) {
    throw new Error(`Pending write ${record.writeId} exists already`);
  }
}

/** The commit: flips PENDING to COMMITTED, as one item of the transaction that writes everything else. */
export function commitPendingWriteUpdate(orgId: string, libraryId: string, writeId: string): WriteItem {
  return {
    Update: {
      Key: pendingWriteKey(orgId, libraryId, writeId),
      UpdateExpression: 'SET #status = :committed',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':committed': 'COMMITTED', ':pending': 'PENDING' },
    },
  };
}

/** A transaction item that holds only while the write is PENDING: nothing of it lands after an abort. */
export function pendingWriteStillPending(orgId: string, libraryId: string, writeId: string): WriteItem {
  return {
    ConditionCheck: {
      Key: pendingWriteKey(orgId, libraryId, writeId),
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'PENDING' },
    },
  };
}

/** PENDING (or ABORTED) -> ABORTED; false when the write committed meanwhile. */
export async function abortPendingWrite(store: Store, orgId: string, libraryId: string, writeId: string): Promise<boolean> {
  return updateIf(store, {
    Key: pendingWriteKey(orgId, libraryId, writeId),
    UpdateExpression: 'SET #status = :aborted',
    ConditionExpression: '#status IN (:pending, :aborted)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':aborted': 'ABORTED', ':pending': 'PENDING' },
  });
}

export async function markPendingWriteSettled(store: Store, orgId: string, libraryId: string, writeId: string, at: string): Promise<void> {
  await store.ddb.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: pendingWriteKey(orgId, libraryId, writeId),
      UpdateExpression: 'SET settledAt = :at, expiresAt = :ttl',
      ExpressionAttributeValues: { ':at': at, ':ttl': Math.ceil(Date.parse(at) / 1000) + settledRetentionSeconds },
    }),
  );
}

/** The ids among writeIds whose write committed. A missing record counts as not committed. */
export async function committedWriteIds(store: Store, orgId: string, libraryId: string, writeIds: string[]): Promise<Set<string>> {
  const unique = [...new Set(writeIds)];
  if (unique.length === 0) return new Set();
  const keys = unique.map((id) => pendingWriteKey(orgId, libraryId, id));
  const items = await batchGetItems(store, keys, true);
  const committed = new Set<string>();
  for (const key of keys) {
    const item = items.get(keyString(key));
    if (item && parseItem(pendingWriteRecord, item, 'pending write').status === 'COMMITTED') committed.add(item.writeId as string);
  }
  return committed;
}

/** `writeId` marks the items of a large write: invisible until that write commits. */
export const pendingMark = (writeId: string | undefined) => (writeId ? { writeId } : {});

/** Leaves out records that carry the write id of a large write that has not committed; a read only while some do. */
export async function committedOnly<R extends { writeId?: string | null | undefined }>(store: Store, orgId: string, libraryId: string, records: R[]): Promise<R[]> {
  const pending = records.filter((r) => r.writeId);
  if (pending.length === 0) return records;
  const committed = await committedWriteIds(
    store,
    orgId,
    libraryId,
    pending.map((r) => r.writeId!),
  );
  return records.filter((r) => !r.writeId || committed.has(r.writeId));
}

export function listPendingWrites(store: Store, orgId: string, libraryId: string): Promise<PendingWriteRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'WRITE#', pendingWriteRecord, 'pending write', {
    FilterExpression: 'attribute_not_exists(settledAt) OR settledAt = :null',
    ExpressionAttributeValues: { ':null': null },
    ConsistentRead: true,
  });
}

/** Items of a committed write lose its write id (they are visible either way); items changed since keep theirs. */
export async function stripWriteId(store: Store, keys: Key[], writeId: string): Promise<void> {
  await conditionalWrites(
    store,
    keys.map((key) => ({ Update: { Key: key, UpdateExpression: 'REMOVE writeId', ConditionExpression: 'writeId = :writeId', ExpressionAttributeValues: { ':writeId': writeId } } })),
  );
}

/**
 * Items of a write that will never commit are deleted, each only while it carries this write id: a key the
 * write failed to claim (a CPN taken by another component, a history record another release wrote) belongs
 * to someone else and stays.
 */
export async function deletePendingItems(store: Store, keys: Key[], writeId: string): Promise<void> {
  await conditionalWrites(
    store,
    keys.map((key) => ({ Delete: { Key: key, ConditionExpression: 'writeId = :writeId', ExpressionAttributeValues: { ':writeId': writeId } } })),
  );
}

/** The write ids the items at these keys carry (strongly consistent): the large writes that hold them. */
export async function writeIdsHolding(store: Store, keys: Key[]): Promise<string[]> {
  const items = await batchGetItems(store, keys, true);
  const holders = [...items.values()].flatMap((item) => [item.writeId, (item.pendingRelease as { writeId?: unknown } | undefined)?.writeId]);
  return [...new Set(holders.filter((id): id is string => typeof id === 'string'))];
}

/** The commit records of these writes (strongly consistent); ids without one are absent. */
export function getPendingWrites(store: Store, orgId: string, libraryId: string, writeIds: string[]): Promise<Map<string, PendingWriteRecord>> {
  return batchGetRecords(store, writeIds, (id) => pendingWriteKey(orgId, libraryId, id), pendingWriteRecord, 'pending write', true);
}

/** The library and write id of a commit record's item (as a stream image holds it, unmarshalled); undefined for any other item. */
export function pendingWriteOfItem(item: Record<string, unknown> | undefined): { orgId: string; libraryId: string; writeId: string } | undefined {
  if (!item || item.entity !== 'PendingWrite' || typeof item.writeId !== 'string') return undefined;
  const partition = /^ORG#([^#]+)#LIB#([^#]+)$/.exec(String(item.PK));
  if (!partition || item.SK !== `WRITE#${item.writeId}`) return undefined;
  return { orgId: partition[1]!, libraryId: partition[2]!, writeId: item.writeId };
}

export type { Key };
