import { createHash } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  auditChainPk,
  auditChainsPk,
  auditEntryItem,
  defaultAuditRetentionDays,
  digestSk,
  headKey,
  pendingIndexPk,
  withoutAuditOperation,
  type AuditOperation,
  type AuditResult,
} from './auditContext.js';
import type { Store } from './client.js';
import { getItem, parseItem, putIf, queryAll, withTable, type WriteItem } from './items.js';
import { currentMeter, newMeter, withMeter } from './meter.js';

export * from './auditContext.js';

/**
 * The audit log (lib/store/README.md, "Audit log"). Each request that changes something runs inside an
 * audit operation (AsyncLocalStorage, like the capacity meter): who acts, what operation, from where. The
 * store's transactWrite adds the operation's entry to the first transaction that commits inside it, so the
 * entry lands atomically with the change; an operation that wrote through no transaction, or that was
 * refused or failed, gets its entry on its own afterwards (`finishAuditOperation`). Entries are linked into
 * a hash chain per organization by `sealAuditChain`, fed by the table's stream.
 */

const auditEntry = z.object({
  PK: z.string(),
  SK: z.string(),
  entity: z.literal('AuditEntry'),
  entryId: z.string(),
  at: z.string(),
  organizationId: z.string().nullable(),
  actorType: z.string(),
  actorId: z.string(),
  actorUserId: z.string().optional(),
  integrationId: z.string().optional(),
  operation: z.string(),
  targets: z.array(z.string()),
  summary: z.string(),
  result: z.enum(['SUCCESS', 'DENIED', 'FAILED']),
  errorCode: z.string().optional(),
  sourceIp: z.string().optional(),
  userAgent: z.string().optional(),
  expiresAt: z.number(),
  seq: z.number().optional(),
  prevHash: z.string().optional(),
  hash: z.string().optional(),
  GSI1PK: z.string().optional(),
  GSI1SK: z.string().optional(),
});
export type AuditEntryRecord = z.infer<typeof auditEntry>;

const chainPoint = z.object({ PK: z.string(), SK: z.string(), seq: z.number(), hash: z.string(), at: z.string(), registered: z.boolean().optional() });
export type AuditChainPoint = z.infer<typeof chainPoint>;

/** Writes the operation's entry on its own (an operation that wrote no transaction, a refusal, a failure). */
export async function putAuditEntry(store: Store, operation: AuditOperation, result: AuditResult, errorCode?: string): Promise<void> {
  const item = auditEntryItem(operation, result, errorCode);
  const outer = currentMeter();
  const own = outer ? (outer.audit ??= newMeter()) : newMeter();
  await withMeter(own, () => withoutAuditOperation(() => putIf(store, { Item: item, ConditionExpression: 'attribute_not_exists(PK)' })));
  if (result === 'SUCCESS') operation.written = true;
}

/**
 * Ends an operation: a success whose entry no transaction carried gets it now; a refusal or failure gets
 * its own entry (also after a step that already recorded SUCCESS: the later entry says how it ended).
 */
export async function finishAuditOperation(store: Store, operation: AuditOperation, outcome: { error?: unknown; denied?: boolean; errorCode?: string }): Promise<void> {
  if (!outcome.error) {
    if (!operation.written) await putAuditEntry(store, operation, 'SUCCESS');
    return;
  }
  await putAuditEntry(store, operation, outcome.denied ? 'DENIED' : 'FAILED', outcome.errorCode);
}

// ---------------------------------------------------------------------------------------------------
// The chain

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The fields an entry's hash covers: everything but the hash itself and the pending index keys. Its key is included, so moving content between items shows. */
export function auditEntryHash(entry: Record<string, unknown>, seq: number, prevHash: string): string {
  const { hash: _hash, GSI1PK: _pk, GSI1SK: _sk, ...content } = entry;
  return createHash('sha256')
    .update(canonical({ ...content, seq, prevHash }))
    .digest('hex');
}

export const genesisHash = '0'.repeat(64);

/** The chain's head: the last sealed entry's sequence number and hash. */
export function getAuditHead(store: Store, chainPk: string): Promise<AuditChainPoint | undefined> {
  return getItem(store, headKey(chainPk), chainPoint, 'audit chain head');
}

/**
 * Links the chain's pending entries, oldest first, after its head: sets seq, prevHash and hash on each
 * and moves the head, in one transaction conditioned on the head read (and on each entry still pending).
 * Of two sealers, one wins; the other reads again. A page that held them all ends the seal (no round reads
 * the head and the index again to find nothing). Returns how many entries it sealed.
 */
export async function sealAuditChain(store: Store, chainPk: string): Promise<number> {
  let sealed = 0;
  for (let round = 0; round < 20; round += 1) {
    const head = await getAuditHead(store, chainPk);
    const page = await store.ddb.send(
      new QueryCommand({
        TableName: store.tableName,
        IndexName: 'ByUser',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': pendingIndexPk(chainPk) },
        Limit: 98,
      }),
    );
    const pending = (page.Items ?? []).map((item) => parseItem(auditEntry, item, 'audit entry'));
    if (pending.length === 0) return sealed;
    let seq = head?.seq ?? 0;
    let prevHash = head?.hash ?? genesisHash;
    const items: WriteItem[] = [];
    for (const entry of pending) {
      seq += 1;
      const hash = auditEntryHash(entry, seq, prevHash);
      items.push({
        Update: {
          Key: { PK: entry.PK, SK: entry.SK },
          UpdateExpression: 'SET #seq = :seq, prevHash = :prev, #hash = :hash REMOVE GSI1PK, GSI1SK',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#seq)',
          ExpressionAttributeNames: { '#seq': 'seq', '#hash': 'hash' },
          ExpressionAttributeValues: { ':seq': seq, ':prev': prevHash, ':hash': hash },
        },
      });
      prevHash = hash;
    }
    const last = pending[pending.length - 1]!;
    // A chain's first seal (or the first since the registry exists) enters it in the registry of chains.
    if (!head?.registered) items.push({ Put: { Item: { PK: auditChainsPk, SK: chainPk, entity: 'AuditChain' } } });
    items.push({
      Put: {
        Item: { ...headKey(chainPk), entity: 'AuditHead', seq, hash: prevHash, at: last.at, registered: true },
        ...(head
          ? { ConditionExpression: '#seq = :headSeq', ExpressionAttributeNames: { '#seq': 'seq' }, ExpressionAttributeValues: { ':headSeq': head.seq } }
          : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    });
    const ok = await withoutAuditOperation(() => sendTransaction(store, items));
    if (ok) {
      sealed += pending.length;
      // The page held every entry pending when it was read: done, without a round that reads the head and
      // the index again to find nothing (two of a stream batch's five requests). An entry written since has
      // its own stream record, whose batch seals it.
      if (!page.LastEvaluatedKey) return sealed;
    } else await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
  }
  return sealed;
}

/** The chains that stream records of new entries name (the stream handler seals each). */
export function auditChainsOf(newImages: (Record<string, unknown> | undefined)[]): string[] {
  return [...new Set(newImages.flatMap((image) => (image?.entity === 'AuditEntry' && image.seq === undefined ? [image.PK as string] : [])))];
}

/**
 * Keeps today's head apart: a digest item per day (deployed, also an S3 object under Object Lock:
 * lib/audit/digest.ts). A day's digest is written once; run again that day, it returns the one kept.
 */
export async function putAuditDigest(store: Store, chainPk: string, day = new Date().toISOString().slice(0, 10)): Promise<AuditChainPoint | undefined> {
  const head = await getAuditHead(store, chainPk);
  if (!head) return undefined;
  const digest = { PK: chainPk, SK: digestSk(day), entity: 'AuditDigest', seq: head.seq, hash: head.hash, at: head.at };
  const written = await withoutAuditOperation(() => putIf(store, { Item: digest, ConditionExpression: 'attribute_not_exists(PK)' }));
  if (written) return digest;
  return getItem(store, { PK: chainPk, SK: digestSk(day) }, chainPoint, 'audit digest');
}

/** The organizations whose chain was ever sealed (the registry of chains: a Query, not a Scan of the table). */
export async function listAuditedOrganizationIds(store: Store): Promise<string[]> {
  const chains = await queryAll(
    store,
    { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': auditChainsPk, ':p': 'ORG#' } },
    z.object({ SK: z.string() }),
    'audit chain registry entry',
  );
  return chains.map((chain) => chain.SK.slice('ORG#'.length, -'#AUDIT'.length));
}

export function listAuditDigests(store: Store, chainPk: string): Promise<AuditChainPoint[]> {
  return queryAll(
    store,
    { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': chainPk, ':p': 'DIGEST#' }, ConsistentRead: true },
    chainPoint,
    'audit digest',
  );
}

/** Every entry of a chain written between from and to (ISO; inclusive), oldest first by time. */
export function listAuditEntries(store: Store, chainPk: string, range: { from?: string | undefined; to?: string | undefined } = {}): Promise<AuditEntryRecord[]> {
  return queryAll(
    store,
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': chainPk, ':from': `E#${range.from ?? ''}`, ':to': `E#${range.to ?? '\uffff'}\uffff` },
      ConsistentRead: true,
    },
    auditEntry,
    'audit entry',
  );
}

export interface AuditLogFilter {
  actorId?: string | undefined;
  targetId?: string | undefined;
  operation?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A page of a chain's entries, newest first, filtered; the cursor is the last entry's key (or the last one read: a filtered page may be short). */
export async function queryAuditLog(store: Store, chainPk: string, filter: AuditLogFilter, limit: number, after?: string): Promise<{ entries: AuditEntryRecord[]; next?: string }> {
  const conditions: string[] = [];
  const values: Record<string, unknown> = { ':pk': chainPk, ':from': `E#${filter.from ?? ''}`, ':to': `E#${filter.to ?? '\uffff'}\uffff` };
  if (filter.actorId) {
    conditions.push('(actorId = :actor OR actorUserId = :actor)');
    values[':actor'] = filter.actorId;
  }
  if (filter.targetId) {
    conditions.push('contains(targets, :target)');
    values[':target'] = filter.targetId;
  }
  if (filter.operation) {
    conditions.push('#op = :op');
    values[':op'] = filter.operation;
  }
  const entries: AuditEntryRecord[] = [];
  let start: Record<string, unknown> | undefined = after ? { PK: chainPk, SK: after } : undefined;
  let next: string | undefined;
  // Filters read past what they drop: read on until the page is full or the range ends (20 reads at most).
  for (let reads = 0; reads < 20; reads += 1) {
    const page = await store.ddb.send(
      new QueryCommand({
        TableName: store.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
        ...(filter.operation ? { ExpressionAttributeNames: { '#op': 'operation' } } : {}),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: Math.max(limit - entries.length, 25),
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      if (entries.length === limit) break;
      entries.push(parseItem(auditEntry, item, 'audit entry'));
    }
    start = page.LastEvaluatedKey;
    if (entries.length === limit) {
      next = entries[entries.length - 1]!.SK;
      break;
    }
    if (!start) break;
  }
  // Out of reads with the range not done (a filter matching little of a long log): the page goes on from the
  // last entry read, so it may hold fewer than `limit` (even none) and still have a next page. It ended the
  // log here, and what the filter matched further back was never listed (nor exported).
  if (next === undefined && start !== undefined && entries.length < limit) next = start.SK as string;
  return { entries, ...(next ? { next } : {}) };
}

/**
 * The sealed entries outside a time range that hold the given sequence numbers: entries are linked in the
 * order they were sealed, not by time, so a range's chain neighbours may lie just outside it. Read outward
 * from both bounds, a page of each side at a time, until every number is found or the chain ends (a number
 * that is missing for good reads the rest of the chain).
 */
async function sealedOutside(store: Store, chainPk: string, range: { from?: string | undefined; to?: string | undefined }, wanted: Set<number>): Promise<AuditEntryRecord[]> {
  const sides = [
    ...(range.from ? [{ lo: 'E#', hi: `E#${range.from}`, forward: false, start: undefined as Record<string, unknown> | undefined, done: false }] : []),
    ...(range.to ? [{ lo: `E#${range.to}\uffff`, hi: 'E#\uffff', forward: true, start: undefined as Record<string, unknown> | undefined, done: false }] : []),
  ];
  const found: AuditEntryRecord[] = [];
  while (wanted.size > 0 && sides.some((side) => !side.done)) {
    for (const side of sides.filter((candidate) => !candidate.done)) {
      const page = await store.ddb.send(
        new QueryCommand({
          TableName: store.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
          ExpressionAttributeValues: { ':pk': chainPk, ':lo': side.lo, ':hi': side.hi },
          ScanIndexForward: side.forward,
          ConsistentRead: true,
          Limit: 200,
          ExclusiveStartKey: side.start,
        }),
      );
      for (const entry of (page.Items ?? []).map((item) => parseItem(auditEntry, item, 'audit entry'))) {
        if (entry.seq !== undefined && wanted.delete(entry.seq)) found.push(entry);
      }
      side.start = page.LastEvaluatedKey;
      side.done = !side.start;
    }
  }
  return found;
}

export interface AuditVerification {
  ok: boolean;
  /** Sealed entries checked, and entries not yet in the chain. */
  checked: number;
  pending: number;
  head?: { seq: number; hash: string } | undefined;
  /** The first entry that does not hold: its key, sequence number and what is wrong. */
  firstBad?: { entryId: string; sk: string; seq: number | null; problem: 'ALTERED' | 'REMOVED_BEFORE' | 'REORDERED' | 'HEAD_MISMATCH' | 'DIGEST_MISMATCH'; detail: string } | undefined;
}

/**
 * Recomputes a chain: each sealed entry's hash from its content (key included), each link to the entry
 * before it, sequence numbers without gaps, and the last entry against the head and the daily digests.
 * Names the first entry that was altered, follows a removed one, or stands where another was moved.
 * A range is checked by chain position: from the first sealed entry in it to the last (its link to the entry
 * before is taken as given unless that entry is read too), with the entries between them in the chain that
 * lie outside the range by time (linked later or earlier than their time says: `sealedOutside`) read too.
 */
export async function verifyAuditChain(store: Store, chainPk: string, range: { from?: string | undefined; to?: string | undefined } = {}): Promise<AuditVerification> {
  const [entries, head, digests] = await Promise.all([listAuditEntries(store, chainPk, range), getAuditHead(store, chainPk), listAuditDigests(store, chainPk)]);
  const inRange = entries.filter((e) => e.seq !== undefined);
  const seqs = new Set(inRange.map((e) => e.seq!));
  const wanted = new Set<number>();
  const [low, high] = inRange.reduce(([lo, hi], e) => [Math.min(lo, e.seq!), Math.max(hi, e.seq!)], [Infinity, -Infinity]);
  for (let seq = low + 1; seq < high; seq += 1) if (!seqs.has(seq)) wanted.add(seq);
  const neighbours = wanted.size > 0 && (range.from || range.to) ? await sealedOutside(store, chainPk, range, wanted) : [];
  const sealed = [...inRange, ...neighbours].sort((a, b) => a.seq! - b.seq!);
  const pending = entries.length - inRange.length;
  const bad = (entry: AuditEntryRecord, problem: NonNullable<AuditVerification['firstBad']>['problem'], detail: string): AuditVerification => ({
    ok: false,
    checked: sealed.length,
    pending,
    head: head && { seq: head.seq, hash: head.hash },
    firstBad: { entryId: entry.entryId, sk: entry.SK, seq: entry.seq ?? null, problem, detail },
  });
  let previous: AuditEntryRecord | undefined;
  for (const entry of sealed) {
    const seq = entry.seq!;
    if (previous) {
      if (seq === previous.seq) return bad(entry, 'REORDERED', `two entries claim sequence number ${seq}`);
      if (seq !== previous.seq! + 1) return bad(entry, 'REMOVED_BEFORE', `entries ${previous.seq! + 1}..${seq - 1} are missing before it`);
      if (entry.prevHash !== previous.hash) return bad(entry, 'REORDERED', `its link does not name the hash of entry ${previous.seq}`);
    } else if (!range.from && seq === 1 && entry.prevHash !== genesisHash) {
      return bad(entry, 'REORDERED', 'the first entry does not start the chain');
    }
    if (auditEntryHash(entry, seq, entry.prevHash ?? '') !== entry.hash) return bad(entry, 'ALTERED', 'its content does not match its hash');
    previous = entry;
  }
  const last = sealed[sealed.length - 1];
  if (head && last && !range.to && !range.from) {
    if (head.seq !== last.seq || head.hash !== last.hash) return bad(last, 'HEAD_MISMATCH', `the head names entry ${head.seq}; the last entry found is ${last.seq}`);
  }
  // The digests, kept apart, anchor the chain: the entry each names must hold its hash, and be there unless
  // it expired (the start of a chain whose oldest entries expired is otherwise taken as given).
  const bySeq = new Map(sealed.map((e) => [e.seq!, e]));
  const retentionMs = sealed[0] ? sealed[0].expiresAt * 1000 - Date.parse(sealed[0].at) : defaultAuditRetentionDays * 86_400_000;
  for (const digest of digests) {
    const entry = bySeq.get(digest.seq);
    if (entry && entry.hash !== digest.hash) return bad(entry, 'DIGEST_MISMATCH', `the digest of ${digest.SK.slice(7)} names another hash for it`);
    const inRange = (!range.from || digest.at >= range.from) && (!range.to || digest.at <= range.to);
    const unexpired = Date.parse(digest.at) + retentionMs > Date.now() + 86_400_000;
    if (!entry && inRange && unexpired && sealed[0]) {
      const after = sealed.find((e) => e.seq! > digest.seq) ?? sealed[0];
      return bad(after, 'REMOVED_BEFORE', `entry ${digest.seq}, named by the digest of ${digest.SK.slice(7)}, is missing`);
    }
  }
  return { ok: true, checked: sealed.length, pending, head: head && { seq: head.seq, hash: head.hash } };
}

/** One transaction: true when it committed, false when a condition or a concurrent transaction cancelled it. */
async function sendTransaction(store: Store, items: WriteItem[]): Promise<boolean> {
  try {
    await store.ddb.send(new TransactWriteCommand({ TransactItems: items.map((item) => withTable(store, item)) }));
    return true;
  } catch (error) {
    if (error instanceof TransactionCanceledException) return false;
    throw error;
  }
}
