import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetRecords, parseItem, queryPrefix, type ConditionFailure, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';
import { changeOrderKey } from './changeOrder.js';
import { componentKey } from './component.js';

/**
 * Comments of a library, on a component or a change order. A thread is a top-level comment (its root) and
 * its replies, one level deep: every comment of a target lives under `CMT#<targetId>#<rootId>#<commentId>`
 * with time-ordered ids, so one Query of `CMT#<targetId>#` reads the target's threads oldest first, each
 * root followed by its replies. `CMTID#<commentId>` points from a comment's id to its key; `CMTCOUNT#<targetId>`
 * counts the target's comments that are not deleted, moved in the same transaction as each comment.
 */
export const commentTargetTypes = ['COMPONENT', 'CHANGE_ORDER'] as const;
export type CommentTargetType = (typeof commentTargetTypes)[number];

const commentSk = (targetId: string, rootId: string, commentId: string) => `CMT#${targetId}#${rootId}#${commentId}`;
export const commentKey = (orgId: string, libraryId: string, targetId: string, rootId: string, commentId: string) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: commentSk(targetId, rootId, commentId),
});
export const commentPointerKey = (orgId: string, libraryId: string, commentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `CMTID#${commentId}` });
export const commentCountKey = (orgId: string, libraryId: string, targetId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `CMTCOUNT#${targetId}` });

export const commentRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  targetType: z.enum(commentTargetTypes),
  targetId: z.string().uuid(),
  /** The root of the thread; the comment's own id for a root. */
  rootId: z.string().uuid(),
  /** null for a root. */
  parentId: z.string().uuid().nullable(),
  /** A change order's stage the thread is about (its decisions), or null. */
  stageIndex: z.number().int().nullable().default(null),
  /** Markdown as written; null once deleted (the tombstone keeps its place in the thread). */
  body: z.string().nullable(),
  mentions: z.array(z.string().uuid()),
  /** null: a comment imported from another organization whose author is not a member here (authorName says who). */
  createdBy: z.string().nullable(),
  /** The author's name as exported, kept when the import matched the author to nobody of the organization. */
  authorName: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  editedBy: z.string().nullable(),
  deleted: z.boolean(),
  deletedBy: z.string().nullable(),
  deletedAt: z.string().nullable(),
  /** Roots only: replies refused while locked (comments.moderate locks and unlocks). */
  locked: z.boolean(),
  resolved: z.boolean(),
  resolvedBy: z.string().nullable(),
  /** Optimistic concurrency: every change checks and bumps it. */
  version: z.number().int(),
});
export type CommentRecord = z.infer<typeof commentRecord>;

const pointerRecord = z.object({ targetId: z.string(), rootId: z.string() });
const countRecord = z.object({ count: z.number().int() });

const keyOf = (record: CommentRecord) => commentKey(record.organizationId, record.libraryId, record.targetId, record.rootId, record.id);

/** The target must exist when the comment is written (a component or change order of this library). */
export function commentTargetCheck(record: CommentRecord, onConditionFailed: ConditionFailure): WriteItem {
  const key = record.targetType === 'COMPONENT' ? componentKey(record.organizationId, record.libraryId, record.targetId) : changeOrderKey(record.organizationId, record.libraryId, record.targetId);
  return { ConditionCheck: { Key: key, ConditionExpression: 'attribute_exists(PK)' }, onConditionFailed };
}

/** A reply needs its root there and unlocked at the moment of the write. */
export function commentRootOpenCheck(root: CommentRecord, onConditionFailed: ConditionFailure): WriteItem {
  return {
    ConditionCheck: { Key: keyOf(root), ConditionExpression: 'attribute_exists(PK) AND locked = :false', ExpressionAttributeValues: { ':false': false } },
    onConditionFailed,
  };
}

const countUpdate = (record: CommentRecord, delta: number): WriteItem => ({
  Update: {
    Key: commentCountKey(record.organizationId, record.libraryId, record.targetId),
    UpdateExpression: 'SET entity = :entity, targetId = :target ADD #count :delta',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':entity': 'CommentCount', ':target': record.targetId, ':delta': delta },
  },
});

/** A new comment: the comment, its id pointer and the target's count (+1). */
export function commentCreateItems(record: CommentRecord, onConditionFailed: ConditionFailure): WriteItem[] {
  return [
    { Put: { Item: { ...keyOf(record), entity: 'Comment', ...record }, ConditionExpression: 'attribute_not_exists(PK)' }, onConditionFailed },
    {
      Put: {
        Item: { ...commentPointerKey(record.organizationId, record.libraryId, record.id), entity: 'CommentPointer', targetId: record.targetId, rootId: record.rootId },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
      onConditionFailed,
    },
    countUpdate(record, 1),
  ];
}

/** Replaces a comment on condition that it is still the version read. */
export function commentReplace(record: CommentRecord, previousVersion: number, onConditionFailed: ConditionFailure): WriteItem {
  return {
    Put: {
      Item: { ...keyOf(record), entity: 'Comment', ...record },
      ConditionExpression: 'version = :previous',
      ExpressionAttributeValues: { ':previous': previousVersion },
    },
    onConditionFailed,
  };
}

/** A deletion: the tombstone in the comment's place, and the target's count (-1). */
export function commentTombstoneItems(tombstone: CommentRecord, previousVersion: number, onConditionFailed: ConditionFailure): WriteItem[] {
  return [commentReplace(tombstone, previousVersion, onConditionFailed), countUpdate(tombstone, -1)];
}

export async function getComment(store: Store, orgId: string, libraryId: string, commentId: string, consistent = false): Promise<CommentRecord | undefined> {
  const pointerItem = (await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: commentPointerKey(orgId, libraryId, commentId), ConsistentRead: consistent }))).Item;
  if (!pointerItem) return undefined;
  const pointer = parseItem(pointerRecord, pointerItem, 'comment pointer');
  const key = commentKey(orgId, libraryId, pointer.targetId, pointer.rootId, commentId);
  const { Item } = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: key, ConsistentRead: consistent }));
  return Item ? parseItem(commentRecord, Item, 'comment') : undefined;
}

/** Comments of a library by id (their pointers, then the comments: BatchGetItem rounds); ids without a comment are absent. */
export async function getCommentsById(store: Store, orgId: string, libraryId: string, commentIds: readonly string[]): Promise<Map<string, CommentRecord>> {
  const pointers = await batchGetRecords(store, commentIds, (id) => commentPointerKey(orgId, libraryId, id), pointerRecord, 'comment pointer');
  return batchGetRecords(store, [...pointers.keys()], (id) => commentKey(orgId, libraryId, pointers.get(id)!.targetId, pointers.get(id)!.rootId, id), commentRecord, 'comment');
}

/** One page of a target's comments in thread order; `after` is the sort key of the last comment read. */
export async function listComments(
  store: Store,
  orgId: string,
  libraryId: string,
  targetId: string,
  limit: number,
  after: { rootId: string; commentId: string } | undefined,
): Promise<{ comments: CommentRecord[]; hasMore: boolean }> {
  const pk = libraryPartition(orgId, libraryId);
  const page = await store.ddb.send(
    new QueryCommand({
      TableName: store.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': `CMT#${targetId}#` },
      Limit: limit + 1,
      ...(after ? { ExclusiveStartKey: { PK: pk, SK: commentSk(targetId, after.rootId, after.commentId) } } : {}),
    }),
  );
  const comments = (page.Items ?? []).map((item) => parseItem(commentRecord, item, 'comment'));
  return { comments: comments.slice(0, limit), hasMore: comments.length > limit };
}

/** The comment counts of several targets (0 for a target never commented on). */
export async function getCommentCounts(store: Store, orgId: string, libraryId: string, targetIds: string[]): Promise<Map<string, number>> {
  const found = await batchGetRecords(store, targetIds, (id) => commentCountKey(orgId, libraryId, id), countRecord, 'comment count');
  return new Map(targetIds.map((id) => [id, found.get(id)?.count ?? 0]));
}

/** Every comment of a library (export): one paginated Query of `CMT#`, in thread order per target. */
export function listLibraryComments(store: Store, orgId: string, libraryId: string): Promise<CommentRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'CMT#', commentRecord, 'comment');
}

/**
 * The items of imported comments (a library import's BatchWriteItem, no conditions: the library is closed and
 * its targets new): each comment and its id pointer, and one count per target (comments not deleted), all
 * tagged with the import's id (`importId`: import-abort finds them; the notification fan-out skips them).
 */
export function importedCommentItems(records: readonly CommentRecord[], importId: string): Record<string, unknown>[] {
  const counts = new Map<string, { record: CommentRecord; count: number }>();
  const items: Record<string, unknown>[] = [];
  for (const record of records) {
    items.push({ ...keyOf(record), entity: 'Comment', ...record, importId });
    items.push({ ...commentPointerKey(record.organizationId, record.libraryId, record.id), entity: 'CommentPointer', targetId: record.targetId, rootId: record.rootId, importId });
    const entry = counts.get(record.targetId) ?? counts.set(record.targetId, { record, count: 0 }).get(record.targetId)!;
    if (!record.deleted) entry.count += 1;
  }
  for (const { record, count } of counts.values()) {
    items.push({ ...commentCountKey(record.organizationId, record.libraryId, record.targetId), entity: 'CommentCount', targetId: record.targetId, count, importId });
  }
  return items;
}
