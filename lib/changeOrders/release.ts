import { randomUUID } from 'node:crypto';
import type { LibraryScope } from '../model/scope.js';
import { diffComponents } from '../components/rules.js';
import { loadLibraryConfiguration } from '../config/libraryConfig.js';
import { nextRevision } from '../config/revisionScheme.js';
import { NotFoundError } from '../errors.js';
import { settleAbortedWrite } from '../items/settle.js';
import { searchEntryPut } from '../search/entries.js';
import type { ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { componentHistoryPut, componentVersionPut, getComponents, type ComponentRecord } from '../store/component.js';
import { nowIso, putKeys, transactWrite, type Key, type WriteItem } from '../store/items.js';
import { commitPendingWriteUpdate, getPendingWrites, putPendingWrite, writeIdsHolding } from '../store/pendingWrite.js';
import { ofComponent, ReadAgain, resolve, type LargeRelease, type Step } from './step.js';

/** The release of an approved change order, and the protocol of a release too large for one transaction. */

/** DynamoDB's limit on the items of one transaction. */
const maxTransactionItems = 100;

/**
 * Components in one change order. A release changes every component, with the change order and the commit
 * record, in ONE transaction (n + 2 items), so it lands whole or not at all; see `release`.
 */
export const maxComponentsPerChangeOrder = maxTransactionItems - 2;

/** Up to this many components, a release also writes history and search entries in its one transaction. */
const singleTransactionRelease = Math.floor((maxTransactionItems - 1) / 3);

/**
 * Releases the components of an approved change order, with it: each component becomes RELEASED at its next
 * revision (a Not Revision Managed component keeps its fixed revision), its lock is lifted, and a RELEASE
 * history record and its search entry are written. Each component write is conditioned on the version read
 * and on this change order's lock. Up to `singleTransactionRelease` components everything is one
 * transaction; beyond, the history records go first under a commit record (`LargeRelease`), and the one
 * transaction holds the change order, every component and the commit.
 */
export async function release(store: Store, scope: LibraryScope, record: ChangeOrderRecord, at: string, fail = false): Promise<Omit<Step, 'mails'>> {
  const [config, components] = await Promise.all([
    loadLibraryConfiguration(store, scope.organizationId, scope.libraryId),
    getComponents(
      store,
      scope.organizationId,
      scope.libraryId,
      record.components.map((c) => c.componentId),
      true,
    ),
  ]);
  const writeId = record.components.length > singleTransactionRelease ? randomUUID() : undefined;
  const componentPuts: WriteItem[] = [];
  const historyPuts: WriteItem[] = [];
  const searchPuts: WriteItem[] = [];
  // When the released revisions take effect: the release, or its ON_DATE when that is still to come.
  const effectiveAt = record.effectivity === 'ON_DATE' && record.effectiveAt && record.effectiveAt > at ? record.effectiveAt : at;
  for (const [index, entry] of record.components.entries()) {
    const before = components.get(entry.componentId);
    if (!before) throw new NotFoundError('Component', entry.componentId);
    // Read while another approval of this change order was committing: the next read sees it resolved.
    if (before.lockedBy !== record.id) throw new ReadAgain();
    const revisionValue = before.notRevisionManaged ? before.revisionValue : nextRevision(config.revisionScheme, before.revisionValue);
    const after: ComponentRecord = {
      ...before,
      state: 'RELEASED',
      revisionValue,
      lastReleasedNotRevisionManaged: before.notRevisionManaged,
      version: before.version + 1,
      lockedBy: null,
      updatedAt: at,
      updatedBy: scope.userId,
    };
    entry.toRevision = revisionValue;
    // The fault makes the last component write of the transaction fail, after all the others in it.
    const expectedVersion = fail && index === record.components.length - 1 ? -1 : before.version;
    componentPuts.push(ofComponent(after.id, componentVersionPut(after, { version: expectedVersion, lockedBy: record.id })));
    const history = {
      componentId: after.id,
      version: after.version,
      action: 'RELEASE' as const,
      at,
      effectiveAt,
      by: scope.userId,
      actingIntegrationId: null,
      changes: [...diffComponents(before, after), { field: 'changeOrder', from: null, to: record.number }],
    };
    historyPuts.push(componentHistoryPut(scope.organizationId, scope.libraryId, history, { once: true, writeId }));
    searchPuts.push(searchEntryPut(after));
  }
  resolve(record, 'APPROVED', at, scope.userId);
  if (!writeId) return { record, items: [...componentPuts, ...historyPuts, ...searchPuts] };
  return {
    record,
    items: [...componentPuts, commitPendingWriteUpdate(scope.organizationId, scope.libraryId, writeId)],
    large: { writeId, pending: historyPuts, componentIds: record.components.map((c) => c.componentId) },
  };
}

/**
 * Writes the invisible history records of a large release under its commit record. Keys already taken mean
 * another approval of the same change order is releasing it (read again: it resolves the order), or one
 * that failed left them; those of an aborted write, or of one pending longer than a release can take, are
 * cleared first (aborting is conditional, so a write that commits meanwhile is never undone).
 */
export async function writePendingRelease(store: Store, scope: LibraryScope, large: LargeRelease, at: string): Promise<void> {
  const { organizationId: org, libraryId: lib } = scope;
  const keys = putKeys(large.pending);
  await putPendingWrite(store, org, lib, { writeId: large.writeId, status: 'PENDING', keys, createdAt: at, refreshSearchOf: large.componentIds, settledAt: null });
  try {
    await transactWrite(store, large.pending, { otherwise: () => new ReadAgain(), onConflict: () => new ReadAgain() });
  } catch (error) {
    await settleAbortedWrite(store, org, lib, large.writeId, keys, at);
    if (!(error instanceof ReadAgain)) throw error;
    await clearAbandonedReleases(store, scope, keys);
    throw new ReadAgain();
  }
}

/** A release commits within seconds; one pending this long was abandoned by its process. */
const abandonedReleaseMs = 60_000;

async function clearAbandonedReleases(store: Store, scope: LibraryScope, keys: Key[]): Promise<void> {
  const { organizationId: org, libraryId: lib } = scope;
  const writeIds = await writeIdsHolding(store, keys);
  for (const write of (await getPendingWrites(store, org, lib, writeIds)).values()) {
    const abandoned = write.status === 'ABORTED' || (write.status === 'PENDING' && Date.now() - Date.parse(write.createdAt) > abandonedReleaseMs);
    if (abandoned) await settleAbortedWrite(store, org, lib, write.writeId, write.keys, nowIso());
  }
}
