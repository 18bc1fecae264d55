import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { getItem, prefixQuery, putIf, queryAll, queryMatching, queryPrefix } from './items.js';
import { libraryPartition } from './library.js';

/**
 * Who watches what in a library: `WATCH#<targetId>#<userId>` in the library partition (the watchers of a
 * target, one Query), and in the ByUser index `USERWATCH#<userId>` / `<orgId>#<libraryId>#<targetId>` (what a
 * user watches). Unwatching keeps the item with `active: false` and no index keys, so that an automatic
 * watch (comment author, mention, reviewer), which is put only where no item exists, never undoes it.
 */
export const watchTargetTypes = ['COMPONENT', 'ASSEMBLY', 'CHANGE_ORDER'] as const;
export type WatchTargetType = (typeof watchTargetTypes)[number];

export const watchKey = (orgId: string, libraryId: string, targetId: string, userId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `WATCH#${targetId}#${userId}` });

export const watchRecord = z.object({
  userId: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  targetType: z.enum(watchTargetTypes),
  targetId: z.string().uuid(),
  /** An assembly watched with its children at every level. */
  withChildren: z.boolean(),
  active: z.boolean(),
  /** Put by the system (author, mention, reviewer), not by the user. */
  automatic: z.boolean(),
  createdAt: z.string(),
});
export type WatchRecord = z.infer<typeof watchRecord>;

const item = (record: WatchRecord) => ({
  ...watchKey(record.organizationId, record.libraryId, record.targetId, record.userId),
  entity: 'Watch',
  ...record,
  ...(record.active ? { GSI1PK: `USERWATCH#${record.userId}`, GSI1SK: `${record.organizationId}#${record.libraryId}#${record.targetId}` } : {}),
});

/** A user's watch item of a target (active or not), or undefined. */
export function getWatch(store: Store, orgId: string, libraryId: string, targetId: string, userId: string): Promise<WatchRecord | undefined> {
  return getItem(store, watchKey(orgId, libraryId, targetId, userId), watchRecord, 'watch');
}

/** The user's own watch or unwatch: replaces whatever was there. */
export async function putWatch(store: Store, record: WatchRecord): Promise<void> {
  await store.ddb.send(new PutCommand({ TableName: store.tableName, Item: item(record) }));
}

/** An automatic watch: only where the user never watched nor unwatched the target. True when put. */
export function putAutomaticWatch(store: Store, record: WatchRecord): Promise<boolean> {
  return putIf(store, { Item: item({ ...record, automatic: true, active: true }), ConditionExpression: 'attribute_not_exists(PK)' });
}

/** The active watchers of a target. */
export async function listWatchers(store: Store, orgId: string, libraryId: string, targetId: string): Promise<WatchRecord[]> {
  const all = await queryPrefix(store, libraryPartition(orgId, libraryId), `WATCH#${targetId}#`, watchRecord, 'watch');
  return all.filter((watch) => watch.active);
}

/**
 * The active watches of a library, by target, when the library holds at most `limit` watch items (unwatched
 * ones counted); undefined when it holds more. The read stops one item past the limit.
 */
export async function listLibraryWatchersUpTo(store: Store, orgId: string, libraryId: string, limit: number): Promise<Map<string, WatchRecord[]> | undefined> {
  const found = await queryMatching(store, { ...prefixQuery(libraryPartition(orgId, libraryId), 'WATCH#', {}), Limit: limit + 1 }, limit + 1, watchRecord, 'watch');
  if (found.length > limit) return undefined;
  const byTarget = new Map<string, WatchRecord[]>();
  for (const watch of found) if (watch.active) (byTarget.get(watch.targetId) ?? byTarget.set(watch.targetId, []).get(watch.targetId)!).push(watch);
  return byTarget;
}

/** What a user watches, in every library. */
export function listWatchesOfUser(store: Store, userId: string): Promise<WatchRecord[]> {
  return queryAll(store, { IndexName: 'ByUser', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': `USERWATCH#${userId}` } }, watchRecord, 'watch');
}

/** Every watch item of a library, unwatched ones included (export). */
export function listLibraryWatches(store: Store, orgId: string, libraryId: string): Promise<WatchRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'WATCH#', watchRecord, 'watch');
}

/** The item of an imported watch (a library import's BatchWriteItem), tagged with the import's id. */
export function importedWatchItem(record: WatchRecord, importId: string): Record<string, unknown> {
  return { ...item(record), importId };
}
