import { type AttributeValue, TransactionCanceledException, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { isDeepStrictEqual } from 'node:util';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DeleteCommandInput,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
  QueryCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ConcurrentWriteError } from '../errors.js';
import { auditItemFor } from './auditContext.js';
import type { Store } from './client.js';

export interface Key {
  PK: string;
  SK: string;
}

/** Items read from the table are parsed here, so data that breaks its schema fails loudly. */
export function parseItem<S extends z.ZodType>(schema: S, item: Record<string, unknown>, what: string): z.infer<S> {
  const result = schema.safeParse(item);
  if (!result.success) {
    throw new Error(`Stored ${what} ${item.PK}/${item.SK} does not match its schema: ${result.error.message}`);
  }
  return result.data;
}

/**
 * DynamoDB refuses a partition key over 2,048 bytes or a sort key over 1,024 bytes: no item can have
 * such a key, so a lookup of one finds nothing instead of failing (the edge refuses long ids first).
 */
export function isStorableKey(key: Key): boolean {
  return Buffer.byteLength(key.PK) <= 2048 && Buffer.byteLength(key.SK) <= 1024;
}

export async function getItem<S extends z.ZodType>(store: Store, key: Key, schema: S, what: string): Promise<z.infer<S> | undefined> {
  if (!isStorableKey(key)) return undefined;
  const { Item } = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: key }));
  return Item ? parseItem(schema, Item, what) : undefined;
}

/** Every page of a query, parsed. For collections that stay small (a user's keys, an organization's libraries). */
export async function queryAll<S extends z.ZodType>(store: Store, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>, schema: S, what: string): Promise<z.infer<S>[]> {
  const items: z.infer<S>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ddb.send(new QueryCommand({ ...input, TableName: store.tableName, ExclusiveStartKey }));
    for (const item of page.Items ?? []) items.push(parseItem(schema, item, what));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * The first `limit` items, in key order, of a query that filters on the server, reading page after page
 * until it has them or the key range ends (a filter can leave whole pages empty).
 */
export async function queryMatching<S extends z.ZodType>(
  store: Store,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  limit: number,
  schema: S,
  what: string,
): Promise<z.infer<S>[]> {
  const found: z.infer<S>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ddb.send(new QueryCommand({ ...input, TableName: store.tableName, ExclusiveStartKey }));
    for (const item of page.Items ?? []) {
      found.push(parseItem(schema, item, what));
      if (found.length >= limit) return found;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}

/** The key condition of every prefix query: one partition, sort keys that start with a prefix. */
const prefixCondition = 'PK = :pk AND begins_with(SK, :prefix)';

/**
 * How a prefix query reads: consistency, projection, order, and a filter (its values beside `:pk` and
 * `:prefix`, which the key condition uses).
 */
export type PrefixQueryOptions = Pick<
  QueryCommandInput,
  'ConsistentRead' | 'ProjectionExpression' | 'ScanIndexForward' | 'ExpressionAttributeNames' | 'FilterExpression' | 'ExpressionAttributeValues'
>;

export function prefixQuery(pk: string, prefix: string, options: PrefixQueryOptions) {
  return { ...options, KeyConditionExpression: prefixCondition, ExpressionAttributeValues: { ...options.ExpressionAttributeValues, ':pk': pk, ':prefix': prefix } };
}

/** Every item of one partition whose sort key starts with `prefix`, parsed (small collections). */
export function queryPrefix<S extends z.ZodType>(store: Store, pk: string, prefix: string, schema: S, what: string, options: PrefixQueryOptions = {}): Promise<z.infer<S>[]> {
  return queryAll(store, prefixQuery(pk, prefix, options), schema, what);
}

/** The first `limit` items (one Query) of one partition whose sort key starts with `prefix`, parsed. */
export async function queryPrefixPage<S extends z.ZodType>(store: Store, pk: string, prefix: string, limit: number, schema: S, what: string, options: PrefixQueryOptions = {}): Promise<z.infer<S>[]> {
  const page = await store.ddb.send(new QueryCommand({ ...prefixQuery(pk, prefix, options), TableName: store.tableName, Limit: limit }));
  return (page.Items ?? []).map((item) => parseItem(schema, item, what));
}

/** The newest items under a key prefix of one partition (sort keys end in a zero-padded version). */
export function queryNewestFirst<S extends z.ZodType>(store: Store, pk: string, prefix: string, limit: number, schema: S, what: string): Promise<z.infer<S>[]> {
  return queryPrefixPage(store, pk, prefix, limit, schema, what, { ScanIndexForward: false });
}

/**
 * Items of a sparse due index (GSI1 `ByUser`, one partition per kind and stack, `GSI1SK = <due ISO>#<id>`)
 * whose due time is `now` or earlier, the longest due first: at most `limit` (one Query; the index may lag a
 * moment). Webhook retries (webhook.ts) and unsent change order mails (changeOrderMail.ts) are kept this way.
 */
export async function queryDue<S extends z.ZodType>(store: Store, partition: string, now: string, limit: number, schema: S, what: string): Promise<z.infer<S>[]> {
  const page = await store.ddb.send(
    new QueryCommand({
      TableName: store.tableName,
      IndexName: 'ByUser',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
      ExpressionAttributeValues: { ':pk': partition, ':now': `${now}#~` },
      Limit: limit,
    }),
  );
  return (page.Items ?? []).map((item) => parseItem(schema, item, what));
}

const keyRow = z.object({ PK: z.string(), SK: z.string() });

/** Keys of every item under a key prefix of one partition, for deleting them. */
export function listKeysWithPrefix(store: Store, pk: string, prefix: string): Promise<Key[]> {
  return queryPrefix(store, pk, prefix, keyRow, 'key', { ProjectionExpression: 'PK, SK' });
}

/**
 * Recognizes, in the item as a failed condition found it, this very write applied by an earlier attempt of
 * the same call: the SDK sends a single-item write again after a timeout or a 5xx (lib/store/client.ts), and
 * when the first attempt did apply, the second finds its own result and fails its condition. Only a write
 * whose result cannot be anyone else's (a fresh id, a lease stamped with this call's time) names one.
 */
export type OwnWriteCheck = (old: Record<string, unknown>) => boolean;

/** Options of the conditional single-item writes. */
export interface ConditionalWriteOptions {
  /** With it, a failed condition whose old item this recognizes (on a retried attempt) counts as applied. */
  ownWrite?: OwnWriteCheck;
}

/**
 * Whether a failed conditional single-item write was this call's own write found by the SDK's retry: the
 * call took more than one attempt (an earlier one may have applied with its answer lost), and the item the
 * condition found is what this write makes (`ownWrite`). A condition failed on the first attempt is real.
 */
export function appliedByEarlierAttempt(error: unknown, ownWrite: OwnWriteCheck | undefined): boolean {
  return ownWrite !== undefined && ownResultOfEarlierAttempt(error, ownWrite) !== undefined;
}

/** The item as this call's earlier attempt left it, when `appliedByEarlierAttempt` holds (for a write that returns it). */
export function ownResultOfEarlierAttempt(error: unknown, ownWrite: OwnWriteCheck): Record<string, unknown> | undefined {
  if (!isConditionalCheckFailure(error)) return undefined;
  const { $metadata, Item } = error as ConditionalCheckFailedException;
  if (($metadata?.attempts ?? 1) < 2 || !Item) return undefined;
  const old = unmarshall(Item as Record<string, AttributeValue>);
  return ownWrite(old) ? old : undefined;
}

/** The old item a failed condition carries back (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), when asked for. */
const withOldOnFailure = (options: ConditionalWriteOptions) => (options.ownWrite ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {});

/** An UpdateItem with a condition: true when it applied, false when the condition did not hold. */
export function updateIf(store: Store, input: Omit<UpdateCommandInput, 'TableName'> & { ConditionExpression: string }, options: ConditionalWriteOptions = {}): Promise<boolean> {
  return appliedUnlessConditionFailed(store.ddb.send(new UpdateCommand({ ...input, ...withOldOnFailure(options), TableName: store.tableName })), options);
}

/** A PutItem with a condition: true when it applied, false when the condition did not hold. */
export function putIf(store: Store, input: Omit<PutCommandInput, 'TableName'> & { ConditionExpression: string }, options: ConditionalWriteOptions = {}): Promise<boolean> {
  return appliedUnlessConditionFailed(store.ddb.send(new PutCommand({ ...input, ...withOldOnFailure(options), TableName: store.tableName })), options);
}

/** A DeleteItem with a condition: true when it applied, false when the condition did not hold. */
export function deleteIf(store: Store, input: Omit<DeleteCommandInput, 'TableName'> & { ConditionExpression: string }): Promise<boolean> {
  return appliedUnlessConditionFailed(store.ddb.send(new DeleteCommand({ ...input, TableName: store.tableName })));
}

/** True once a conditional write applied (or an earlier attempt of it did), false when its condition did not hold; other failures throw. */
async function appliedUnlessConditionFailed(write: Promise<unknown>, options: ConditionalWriteOptions = {}): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (appliedByEarlierAttempt(error, options.ownWrite)) return true;
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/**
 * A put of a new item (its key holds a fresh id: nobody else writes it) on condition that it does not
 * exist: the condition fails only for this call's own earlier attempt, when the item holds exactly what
 * it puts. For a put whose item is equal to the one found, as DynamoDB stores it.
 */
export function samePut(item: Record<string, unknown>): OwnWriteCheck {
  // Compared only when a retried attempt's condition failed: the write that applies (nearly every one) pays nothing.
  return (old) => isDeepStrictEqual(old, unmarshall(marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: false })));
}

export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}

/**
 * Indexes of the transaction items whose condition failed, or undefined if the error is not a cancelled
 * transaction. For adapters of this folder that send their own transaction (the search table).
 */
export function failedConditionIndexes(error: unknown): number[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const reasons = error.CancellationReasons ?? [];
  return reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : []));
}

export function nowIso(): string {
  return new Date().toISOString();
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/** A transaction item as entity files build it: without the table name, which they do not know. */
export type TransactItemWithoutTable = { [K in keyof TransactItem]?: Omit<NonNullable<TransactItem[K]>, 'TableName'> & { TableName?: string } };

/**
 * What a failed condition of one transaction item means, as a domain error. It receives the item as it
 * was when the write asked for it (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), undefined otherwise.
 */
export type ConditionFailure = (oldItem: Record<string, unknown> | undefined) => Error;

/**
 * A transaction item built by an entity file of this folder, carrying the meaning of its failed
 * condition beside the DynamoDB item. Callers compose these and never see positions.
 */
export type WriteItem = TransactItemWithoutTable & { readonly onConditionFailed?: ConditionFailure };

/** The keys the Puts among these items write (to find or remove them later, e.g. a large write's items). */
export function putKeys(items: readonly WriteItem[]): Key[] {
  return items.flatMap((item) => (item.Put ? [{ PK: item.Put.Item!.PK as string, SK: item.Put.Item!.SK as string }] : []));
}

/** Items that declare no meaning for their failed condition take this one (what they are part of). */
export function explainedBy(items: readonly WriteItem[], onConditionFailed: ConditionFailure): WriteItem[] {
  return items.map((item) => (item.onConditionFailed ? item : { ...item, onConditionFailed }));
}

/** The same item with another meaning for its failed condition (a caller that knows better words). */
export function failingWith<T extends WriteItem>(item: T, onConditionFailed: ConditionFailure): T {
  return { ...item, onConditionFailed };
}

/** Items per TransactWriteItems of `conditionalWrites`, and such transactions in flight at once. */
const conditionalChunk = 100;
const conditionalChunksAtOnce = 4;

/**
 * Conditional writes each of which applies or not on its own (settling a large write: a mark put in place, a
 * write id removed, a pending item deleted, a search entry put if newer), to distinct items: sent 100 to a
 * TransactWriteItems, four at once (some 30 requests instead of 3,000 for a 1,000-component release). A
 * transaction cancelled because a condition did not hold (another settling or a reader came first) or by a
 * conflict (or refused for any other reason) is sent again item by item, each applying unless its condition fails. Never carries an audit
 * entry. Transactional writes cost twice a plain write's WCU on AWS; DynamoDB Local reports half of that.
 */
export async function conditionalWrites(store: Store, items: readonly WriteItem[]): Promise<void> {
  const chunks: WriteItem[][] = [];
  for (let start = 0; start < items.length; start += conditionalChunk) chunks.push(items.slice(start, start + conditionalChunk));
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < chunks.length; index = next++) {
      const chunk = chunks[index]!;
      try {
        await store.ddb.send(new TransactWriteCommand({ TransactItems: chunk.map((item) => withTable(store, item)) }));
      } catch {
        // Cancelled (a condition, a conflict) or refused whole: item by item, where only a condition may fail.
        for (let start = 0; start < chunk.length; start += 25) await Promise.all(chunk.slice(start, start + 25).map((item) => writeOneIf(store, item)));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(conditionalChunksAtOnce, chunks.length) }, worker));
}

/** One conditional write on its own: true when it applied, false when its condition did not hold. */
function writeOneIf(store: Store, item: WriteItem): Promise<boolean> {
  const { Put, Update, Delete } = withTable(store, item);
  if (Put) return appliedUnlessConditionFailed(store.ddb.send(new PutCommand(Put as PutCommandInput)));
  if (Update) return appliedUnlessConditionFailed(store.ddb.send(new UpdateCommand(Update as UpdateCommandInput)));
  if (Delete) return appliedUnlessConditionFailed(store.ddb.send(new DeleteCommand(Delete as DeleteCommandInput)));
  return Promise.resolve(true);
}

export function withTable(store: Store, item: WriteItem): TransactItem {
  const { onConditionFailed: _meaning, ...write } = item;
  const [operation, body] = Object.entries(write)[0]!;
  return { [operation]: { TableName: store.tableName, ...body } } as TransactItem;
}

/** A failed condition no item gave a meaning to: a programming slip, reported as a plain error. */
export class UnexplainedConditionFailureError extends Error {
  constructor(operation: string, options?: { cause?: unknown }) {
    super(`The condition of a ${operation} without a declared meaning failed`, options);
    this.name = 'UnexplainedConditionFailureError';
  }
}

export interface TransactWriteOptions {
  /** The meaning of a failed condition for the items that declare none (the caller's words for its write). */
  otherwise?: ConditionFailure;
  /** The error for a transaction that met a concurrent one (default: ConcurrentWriteError). */
  onConflict?: () => Error;
  /** The commit of a multi-step write: an audit operation that waits for its commit (`auditAtCommit`) puts its entry here. */
  commit?: boolean;
}

/**
 * One TransactWriteItems. A cancelled transaction throws the domain error its items declare: the first
 * item (in the order given) whose condition failed says what happened (`otherwise` speaks for items
 * that declare nothing); a transaction that met a
 * concurrent one (or was throttled) throws one ConcurrentWriteError, or what `onConflict` says. Nothing
 * to write (a call with no inputs) is no request at all: DynamoDB refuses an empty transaction.
 */
export async function transactWrite(store: Store, items: readonly WriteItem[], options: TransactWriteOptions = {}): Promise<void> {
  if (items.length === 0) return;
  // Inside an audited operation the first transaction with room carries its entry (lib/store/auditContext.ts).
  const audit = auditItemFor(items.length, options.commit === true);
  try {
    await store.ddb.send(new TransactWriteCommand({ TransactItems: [...items, ...(audit ? [{ Put: { Item: audit.entry } }] : [])].map((item) => withTable(store, item)) }));
    audit?.committed(true);
  } catch (error) {
    audit?.committed(false);
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    const failed = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
    if (failed >= 0) {
      const item = items[failed]!;
      const meaning = item.onConditionFailed ?? options.otherwise;
      if (!meaning) throw new UnexplainedConditionFailureError(Object.keys(item)[0]!, { cause: error });
      const old = reasons[failed]!.Item;
      throw withCause(meaning(old ? unmarshall(old as Record<string, AttributeValue>) : undefined), error);
    }
    if (reasons.some((reason) => reason.Code === 'TransactionConflict' || reason.Code === 'ThrottlingError')) {
      throw withCause(options.onConflict?.() ?? new ConcurrentWriteError('Data this call writes'), error);
    }
    throw error;
  }
}

function withCause(domainError: Error, cause: unknown): Error {
  if (domainError.cause === undefined) Object.defineProperty(domainError, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  return domainError;
}

/**
 * Records of one entity by id: one BatchGetItem per 100 keys, each item parsed with the entity's schema;
 * ids without an item are absent from the map.
 */
export async function batchGetRecords<S extends z.ZodType>(
  store: Store,
  ids: readonly string[],
  keyOf: (id: string) => Key,
  schema: S,
  what: string,
  consistent = false,
): Promise<Map<string, z.infer<S>>> {
  const unique = [...new Set(ids)];
  const items = await batchGetItems(store, unique.map(keyOf), consistent);
  const records = new Map<string, z.infer<S>>();
  for (const id of unique) {
    const item = items.get(keyString(keyOf(id)));
    if (item) records.set(id, parseItem(schema, item, what));
  }
  return records;
}

/** Items by key in BatchGetItem calls of up to 100 keys, retrying unprocessed keys; keyed by `PK|SK`. */
export async function batchGetItems(store: Store, keys: Key[], consistent = false): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const storable = keys.filter(isStorableKey);
  for (let start = 0; start < storable.length; start += 100) {
    let pending: Record<string, unknown>[] = storable.slice(start, start + 100).map((key) => ({ ...key }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt === 8) throw new Error('DynamoDB left keys unprocessed after 8 attempts');
      if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 10));
      const result = await store.ddb.send(new BatchGetCommand({ RequestItems: { [store.tableName]: { Keys: pending, ConsistentRead: consistent } } }));
      for (const item of result.Responses?.[store.tableName] ?? []) found.set(`${item.PK}|${item.SK}`, item);
      pending = (result.UnprocessedKeys?.[store.tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  }
  return found;
}

export const keyString = (key: Key) => `${key.PK}|${key.SK}`;

/** Puts and deletes 25 at a time (BatchWriteItem), retrying what DynamoDB leaves unprocessed with backoff. */
export async function batchWrite(store: Store, requests: ({ put: Record<string, unknown> } | { delete: Key })[]): Promise<void> {
  for (let start = 0; start < requests.length; start += 25) {
    let pending: Record<string, unknown>[] = requests
      .slice(start, start + 25)
      .map((request) => ('put' in request ? { PutRequest: { Item: request.put } } : { DeleteRequest: { Key: request.delete } }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt === 8) throw new Error('DynamoDB left writes unprocessed after 8 attempts');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));
      const result = await store.ddb.send(new BatchWriteCommand({ RequestItems: { [store.tableName]: pending as never } }));
      pending = (result.UnprocessedItems?.[store.tableName] as Record<string, unknown>[] | undefined) ?? [];
    }
  }
}

export function deleteItems(store: Store, keys: Key[]): Promise<void> {
  return batchWrite(
    store,
    keys.map((key) => ({ delete: key })),
  );
}
