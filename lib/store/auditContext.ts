import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { isUuid } from '../model/slugs.js';

/**
 * The audit operation of a request (lib/store/README.md, "Audit log"): who acts, what operation, from
 * where, in AsyncLocalStorage like the capacity meter. The store's transactWrite adds the operation's
 * entry to the first transaction that commits inside it (`auditItemFor`), so the entry lands atomically
 * with the change; lib/store/audit.ts writes the others and links the chain.
 */

export type AuditResult = 'SUCCESS' | 'DENIED' | 'FAILED';
export type AuditActorType = 'user' | 'apiKey' | 'integration' | 'scimToken' | 'operator' | 'anonymous';

export interface AuditActor {
  type: AuditActorType;
  /** The acting credential: user id, API key id, SCIM token id, operator name. */
  id: string;
  /** The person behind it, when there is one (an API key's owner). */
  userId?: string | undefined;
  integrationId?: string | undefined;
}

export interface AuditSource {
  sourceIp?: string | undefined;
  userAgent?: string | undefined;
}

/** One audited operation in progress. */
export interface AuditOperation extends AuditSource {
  /** The chain the entry belongs to: an organization's, or (no organization known) the actor's own. */
  organizationId: string | null;
  actor: AuditActor;
  operation: string;
  targets: string[];
  summary: string;
  retentionDays?: number | undefined;
  /** The entry's key once a transaction carries it (reset when that transaction fails). */
  attached?: string | undefined;
  /** True once the transaction carrying the entry committed. */
  written?: boolean;
  /**
   * A multi-step write whose entry belongs in its commit (the operator's CLI import): only a transaction
   * marked as a commit (transactWrite's `commit`) carries it, not the first one.
   */
  auditAtCommit?: boolean;
}

export const defaultAuditRetentionDays = 400;
const sources = new AsyncLocalStorage<AuditSource>();
const operations = new AsyncLocalStorage<AuditOperation>();

/** Runs a request's handler with its source address and user agent, for every operation it audits. */
export function withAuditSource<T>(source: AuditSource, fn: () => T): T {
  return sources.run(source, fn);
}

export function currentAuditSource(): AuditSource {
  return sources.getStore() ?? {};
}

/** Runs one audited operation: transactions inside it carry its entry (see transactWrite). */
export function runAuditOperation<T>(operation: AuditOperation, fn: () => Promise<T>): Promise<T> {
  return operations.run(operation, fn);
}

export function currentAuditOperation(): AuditOperation | undefined {
  return operations.getStore();
}

/** Runs fn outside any audit operation (a write that is not the operation's change, such as sealing). */
export function withoutAuditOperation<T>(fn: () => T): T {
  return operations.exit(fn);
}

/**
 * An id as the log keeps it and a filter names it: a UUID in lower case, as the API answers ids (a client may
 * send capitals, which the operations read as the same id; kept as sent, the entry was missed by a filter on
 * the id the API answers). Anything else as it is.
 */
export const auditId = (value: string): string => (isUuid(value) ? value.toLowerCase() : value);

export const auditChainPk = (organizationId: string | null, actor: AuditActor) => (organizationId ? `ORG#${organizationId}#AUDIT` : `USER#${actor.userId ?? actor.id}#AUDIT`);
export const pendingIndexPk = (chainPk: string) => `AUDITPENDING#${chainPk}`;
export const entrySk = (at: string, entryId: string) => `E#${at}#${entryId}`;
export const headKey = (chainPk: string) => ({ PK: chainPk, SK: 'HEAD' });
export const digestSk = (day: string) => `DIGEST#${day}`;
/** The registry of chains (one item per chain, written with its first seal): what the daily digest goes through. */
export const auditChainsPk = 'AUDITCHAINS';

/** The entry item of an operation with its result; `at` and `entryId` fresh. */
export function auditEntryItem(operation: AuditOperation, result: AuditResult, errorCode?: string): Record<string, unknown> {
  const at = new Date().toISOString();
  const entryId = randomUUID();
  const PK = auditChainPk(operation.organizationId, operation.actor);
  const SK = entrySk(at, entryId);
  const retention = operation.retentionDays ?? defaultAuditRetentionDays;
  return {
    PK,
    SK,
    entity: 'AuditEntry',
    entryId,
    at,
    organizationId: operation.organizationId,
    actorType: operation.actor.type,
    actorId: operation.actor.id,
    actorUserId: operation.actor.userId,
    integrationId: operation.actor.integrationId,
    operation: operation.operation,
    targets: operation.targets.map(auditId),
    summary: operation.summary,
    result,
    errorCode,
    sourceIp: operation.sourceIp,
    userAgent: operation.userAgent?.slice(0, 256),
    expiresAt: Math.floor(Date.parse(at) / 1000) + retention * 86_400,
    // The sparse index of entries not yet in the chain (sealAuditChain reads it).
    GSI1PK: pendingIndexPk(PK),
    GSI1SK: SK,
  };
}

/**
 * Called by transactWrite: the entry to put in this transaction (the first one of the operation that has
 * room; with auditAtCommit, the first commit), or undefined. `committed` marks it written once the transaction committed.
 */
export function auditItemFor(itemCount: number, commit = false): { entry: Record<string, unknown>; committed: (ok: boolean) => void } | undefined {
  const operation = currentAuditOperation();
  if (!operation || operation.attached || operation.written || itemCount >= 100) return undefined;
  if (operation.auditAtCommit && !commit) return undefined;
  const entry = auditEntryItem(operation, 'SUCCESS');
  operation.attached = entry.SK as string;
  return {
    entry,
    committed: (ok) => {
      if (ok) operation.written = true;
      else operation.attached = undefined;
    },
  };
}
