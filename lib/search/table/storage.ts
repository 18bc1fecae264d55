import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import * as z from 'zod';
import type { Store } from '../../store/client.js';
import { batchGetItems, failedConditionIndexes, isConditionalCheckFailure, keyString, parseItem, updateIf, type Key, queryPrefix } from '../../store/items.js';
import { searchEntryRecord, searchPartition, type SearchEntryRecord } from '../entries.js';
import { columnNames, type ColumnName } from './columns.js';
import { maxPieces } from './nameIndex.js';

/**
 * DynamoDB items of the in-table search index, all in the library's search partition (entries.ts):
 *   SD#<componentId>                  delta: the latest projection of one component (entries.ts)
 *   SM                                manifest: the blocks that make up the index, the rows each has lost
 *                                     to newer deltas, and the compaction lease
 *   SC#<column>#<blockId>#<start>     one part of one column of one block (immutable once written)
 *   SC#t#<indexId>#<bucket*100+piece>  one piece of one bucket of a block's name index (nameIndex.ts; immutable;
 *                                     the index id is the block's, or a fresh one when compaction indexed an older block)
 *   SC#q#<blockId>#<bucket*100+piece>  the same for the block's CPNs
 */
export const manifestKey = (orgId: string, libraryId: string): Key => ({ PK: searchPartition(orgId, libraryId), SK: 'SM' });
/** A stored part's column: a column group, or `t` / `q` for the name / CPN index (nameIndex.ts). */
export type PartColumn = ColumnName | 't' | 'q';

/** The fields with a trigram index, and the column of its parts. */
export type TextField = 'name' | 'cpn';
export const textIndexColumn: Record<TextField, 't' | 'q'> = { name: 't', cpn: 'q' };

export const columnPartKey = (orgId: string, libraryId: string, column: PartColumn, blockId: string, start: number): Key => ({
  PK: searchPartition(orgId, libraryId),
  SK: `SC#${column}#${blockId}#${String(start).padStart(6, '0')}`,
});

import type { LibraryRef } from '../../model/scope.js';
export type { LibraryRef };

export interface BlockEntry {
  id: string;
  rows: number;
  /** Rows superseded by later compactions (the component was changed or deleted since), ascending. */
  dead: number[];
  /** Start row of each stored part, per column. */
  parts: Record<ColumnName, number[]>;
  /**
   * The block's name index (nameIndex.ts), when it has one: its bucket count, and the buckets stored in
   * more than one piece ([bucket, pieces]); every other bucket is one piece. Absent: blocks written before
   * the index, and blocks too small to index (their names are read instead).
   */
  names?: NameIndexEntry;
  /** The same for the block's CPNs (blocks written before it have none and are not given one later). */
  cpns?: NameIndexEntry;
}

/** A block's index of one field. */
export const textIndexOf = (block: BlockEntry, field: TextField) => (field === 'name' ? block.names : block.cpns);

/** Whether a block has a name index to read (blocks written before it, small ones and unindexable ones have none). */
export const hasNameIndex = (block: BlockEntry, field: TextField = 'name') => (textIndexOf(block, field)?.buckets ?? 0) > 0;

export interface NameIndexEntry {
  /** The id in its parts' keys: the block's for a new block; a fresh one for an index added to an older block. */
  id: string;
  /** 0: the block's names could not be indexed (a bucket past maxPieces); they are read instead. */
  buckets: number;
  split: [number, number][];
}

/** The start number of one piece of one bucket in its part key. */
export const nameIndexStart = (bucket: number, piece: number) => bucket * maxPieces + piece;

/** The keys of every piece of these buckets of a block's name index. */
export function nameIndexKeys(library: LibraryRef, block: BlockEntry, buckets?: Iterable<number>, field: TextField = 'name'): Key[] {
  const index = textIndexOf(block, field);
  if (!index || index.buckets === 0) return [];
  const pieces = new Map(index.split);
  return [...(buckets ?? Array.from({ length: index.buckets }, (_, b) => b))].flatMap((bucket) =>
    Array.from({ length: pieces.get(bucket) ?? 1 }, (_, piece) => columnPartKey(library.organizationId, library.libraryId, textIndexColumn[field], index.id, nameIndexStart(bucket, piece))),
  );
}

export interface Manifest {
  /** 0: no manifest stored yet. Every commit adds one; commits are conditional on it. */
  version: number;
  /** Latest createdAt (ms) of any row ever folded into a block: a delta created after it has no block row. */
  watermark: number;
  blocks: BlockEntry[];
  lease: { owner: string; until: number } | null;
}

const textIndexEntry = z.object({ id: z.string(), buckets: z.number().int().nonnegative(), split: z.array(z.tuple([z.number().int(), z.number().int()])) });

const manifestBody = z.object({
  watermark: z.number(),
  blocks: z.array(
    z.object({
      id: z.string(),
      rows: z.number().int(),
      dead: z.array(z.number().int()),
      // Blocks written before the `p` column have none (their CPNs are in `c`).
      parts: z
        .partialRecord(z.enum(columnNames), z.array(z.number().int()))
        .transform((parts) => Object.fromEntries(columnNames.map((column) => [column, parts[column] ?? []])) as Record<ColumnName, number[]>),
      names: textIndexEntry.optional(),
      cpns: textIndexEntry.optional(),
    }),
  ),
});

const manifestItem = z.object({
  version: z.number().int().optional(),
  data: z.instanceof(Uint8Array).optional(),
  leaseOwner: z.string().optional(),
  leaseUntil: z.number().optional(),
});

const emptyManifest: Manifest = { version: 0, watermark: 0, blocks: [], lease: null };

function manifestOf(Item: Record<string, unknown> | undefined): Manifest {
  if (!Item) return emptyManifest;
  const item = parseItem(manifestItem, Item, 'search manifest');
  const lease = item.leaseOwner && item.leaseUntil ? { owner: item.leaseOwner, until: item.leaseUntil } : null;
  if (!item.version || !item.data) return { ...emptyManifest, lease };
  const body = manifestBody.parse(JSON.parse(brotliDecompressSync(item.data).toString('utf8')));
  return { version: item.version, watermark: body.watermark, blocks: body.blocks as BlockEntry[], lease };
}

/** The manifest alone (GetItem), strongly consistent. */
export async function readManifest(store: Store, library: LibraryRef): Promise<Manifest> {
  const { Item } = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: manifestKey(library.organizationId, library.libraryId), ConsistentRead: true }));
  return manifestOf(Item);
}

/** Takes the compaction lease unless another compactor holds an unexpired one. */
export async function acquireLease(store: Store, library: LibraryRef, owner: string, now: number, holdMs: number): Promise<boolean> {
  return updateIf(store, {
    Key: manifestKey(library.organizationId, library.libraryId),
    UpdateExpression: 'SET entity = :entity, leaseOwner = :owner, leaseUntil = :until',
    ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now',
    ExpressionAttributeValues: { ':entity': 'SearchManifest', ':owner': owner, ':until': now + holdMs, ':now': now },
  });
}

/**
 * Replaces the manifest (and so releases the lease) if it is still at `previous.version` and the lease is
 * still ours. False when another compaction committed first: nothing of this one becomes visible.
 */
export async function commitManifest(store: Store, library: LibraryRef, previous: Manifest, next: Omit<Manifest, 'version' | 'lease'>, owner: string): Promise<boolean> {
  const data = brotliCompressSync(Buffer.from(JSON.stringify({ watermark: next.watermark, blocks: next.blocks })));
  try {
    await store.ddb.send(
      new PutCommand({
        TableName: store.tableName,
        Item: { ...manifestKey(library.organizationId, library.libraryId), entity: 'SearchManifest', version: previous.version + 1, data, updatedAt: new Date().toISOString() },
        // A compactor that outlived its lease commits nothing: another one may have taken over by then.
        ConditionExpression: `${previous.version === 0 ? 'attribute_not_exists(version)' : 'version = :version'} AND leaseOwner = :owner AND leaseUntil > :now`,
        ExpressionAttributeValues: { ...(previous.version === 0 ? {} : { ':version': previous.version }), ':owner': owner, ':now': Date.now() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** Gives the lease back after a compaction that committed nothing. */
export async function releaseLease(store: Store, library: LibraryRef, owner: string): Promise<void> {
  await store.ddb
    .send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: manifestKey(library.organizationId, library.libraryId),
        UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
        ConditionExpression: 'leaseOwner = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionalCheckFailure(error)) throw error;
    });
}

export interface Delta extends SearchEntryRecord {
  /** Size of the entry uncompressed, for the compaction threshold. */
  bytes: number;
}

/** Every outstanding delta of the library (one Query; more pages only past 1 MB). */
export async function readDeltas(store: Store, library: LibraryRef): Promise<Delta[]> {
  const records = await queryPrefix(store, searchPartition(library.organizationId, library.libraryId), 'SD#', searchEntryRecord, 'search entry');
  return records.map((record) => ({ ...record, bytes: JSON.stringify(record).length }));
}

export interface StoredPart {
  column: PartColumn;
  blockId: string;
  start: number;
  data: Uint8Array;
  createdAt: string;
}

const partItem = z.object({ SK: z.string(), data: z.instanceof(Uint8Array), createdAt: z.string() }).transform((item): StoredPart => {
  const [, column, blockId, start] = item.SK.split('#');
  return { column: column as PartColumn, blockId: blockId!, start: Number(start), data: item.data, createdAt: item.createdAt };
});

/** Every stored part of one column, across blocks (one Query per 1 MB). */
export function readColumn(store: Store, library: LibraryRef, column: PartColumn): Promise<StoredPart[]> {
  return queryPrefix(store, searchPartition(library.organizationId, library.libraryId), `SC#${column}#`, partItem, 'search column part');
}

/**
 * The stored name index parts under one index id (one Query): to delete those of a block that no manifest
 * names (a failed compaction's), whose bucket count only that manifest would have recorded.
 */
export function readNameIndexParts(store: Store, library: LibraryRef, indexId: string, field: TextField = 'name'): Promise<StoredPart[]> {
  return queryPrefix(store, searchPartition(library.organizationId, library.libraryId), `SC#${textIndexColumn[field]}#${indexId}#`, partItem, 'search name index part');
}

/** Named parts (BatchGetItem); parts that are gone are absent from the result. */
export async function readParts(store: Store, keys: Key[]): Promise<StoredPart[]> {
  const found = await batchGetItems(store, keys);
  return keys.flatMap((key) => {
    const item = found.get(keyString(key));
    return item ? [parseItem(partItem, item, 'search column part')] : [];
  });
}

async function batchWrite(store: Store, requests: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < requests.length; start += 25) {
    let pending = requests.slice(start, start + 25);
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt === 8) throw new Error('DynamoDB left writes unprocessed after 8 attempts');
      if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 10));
      const result = await store.ddb.send(new BatchWriteCommand({ RequestItems: { [store.tableName]: pending } }));
      pending = (result.UnprocessedItems?.[store.tableName] as typeof pending | undefined) ?? [];
    }
  }
}

/** New parts: fresh block ids, so no reader or other compactor knows them until a manifest names them. */
export function writeParts(store: Store, library: LibraryRef, parts: Omit<StoredPart, 'createdAt'>[]): Promise<void> {
  const createdAt = new Date().toISOString();
  return batchWrite(
    store,
    parts.map((part) => ({
      PutRequest: { Item: { ...columnPartKey(library.organizationId, library.libraryId, part.column, part.blockId, part.start), entity: 'SearchColumn', data: part.data, createdAt } },
    })),
  );
}

export function deleteKeys(store: Store, keys: Key[]): Promise<void> {
  const unique = new Map(keys.map((key) => [keyString(key), key]));
  return batchWrite(
    store,
    [...unique.values()].map((Key) => ({ DeleteRequest: { Key } })),
  );
}

/** The keys of a block's parts of these columns; by default every part, its name index too. */
export function blockPartKeys(library: LibraryRef, block: BlockEntry, columns?: Iterable<ColumnName>): Key[] {
  return [
    ...[...(columns ?? columnNames)].flatMap((column) => block.parts[column].map((start) => columnPartKey(library.organizationId, library.libraryId, column, block.id, start))),
    ...(columns ? [] : [...nameIndexKeys(library, block), ...nameIndexKeys(library, block, undefined, 'cpn')]),
  ];
}

/**
 * Deletes folded deltas, each only if it still holds the token that was read (a newer write replaced it
 * otherwise and must stay). A usual fold deletes with conditional DeleteItem (1 WCU each, 16 at a time);
 * a large one (after a bulk import or a configuration sync) with transactions of 100 conditional deletes
 * (2 WCU each, far fewer requests), where a failed condition drops that delta and the rest is retried.
 */
export async function deleteDeltas(store: Store, library: LibraryRef, deltas: SearchEntryRecord[]): Promise<void> {
  const partition = searchPartition(library.organizationId, library.libraryId);
  const deleteOf = (delta: SearchEntryRecord) => ({
    TableName: store.tableName,
    Key: { PK: partition, SK: `SD#${delta.componentId}` },
    ConditionExpression: '#token = :token',
    ExpressionAttributeNames: { '#token': 'token' },
    ExpressionAttributeValues: { ':token': delta.token },
  });
  const deleteOne = (delta: SearchEntryRecord) =>
    store.ddb.send(new DeleteCommand(deleteOf(delta))).then(
      () => undefined,
      (error: unknown) => {
        if (!isConditionalCheckFailure(error)) throw error;
      },
    );
  const deleteHundred = async (chunk: SearchEntryRecord[]) => {
    let batch = chunk;
    for (let conflicts = 0; batch.length > 0; ) {
      try {
        await store.ddb.send(new TransactWriteCommand({ TransactItems: batch.map((delta) => ({ Delete: deleteOf(delta) })) }));
        return;
      } catch (error) {
        const failed = failedConditionIndexes(error);
        if (!failed) throw error;
        // Cancelled without a failed condition: a write to one of these deltas was in flight; try again.
        if (failed.length === 0 && ++conflicts > 5) throw error;
        if (failed.length === 0) await new Promise((r) => setTimeout(r, 2 ** conflicts * 10));
        const lost = new Set(failed);
        batch = batch.filter((_, index) => !lost.has(index));
      }
    }
  };
  const bulk = deltas.length > 200;
  const work: (() => Promise<void>)[] = [];
  for (let start = 0; start < deltas.length; start += bulk ? 100 : 1) {
    const slice = deltas.slice(start, start + (bulk ? 100 : 1));
    work.push(() => (bulk ? deleteHundred(slice) : deleteOne(slice[0]!)));
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: bulk ? 4 : 16 }, async () => {
      for (let i = next++; i < work.length; i = next++) await work[i]!();
    }),
  );
}
