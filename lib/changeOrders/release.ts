import { randomUUID } from 'node:crypto';
import type { LibraryScope } from '../model/scope.js';
import { diffComponents } from '../components/rules.js';
import { loadLibraryConfiguration } from '../config/libraryConfig.js';
import { nextRevision } from '../config/revisionScheme.js';
import { NotFoundError } from '../errors.js';
import { settleAbortedWrite } from '../items/settle.js';
import { SimulatedCrashError } from '../items/writer.js';
import { searchEntryPut } from '../search/entries.js';
import type { ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { componentKey, componentReleaseMark, getComponents, type ComponentRecord } from '../store/component.js';
import { componentHistoryPut } from '../store/componentHistory.js';
import { componentVersionPut } from '../store/componentWrites.js';
import { nowIso, putKeys, transactWrite, type Key, type WriteItem } from '../store/items.js';
import { commitPendingWriteUpdate, getPendingWrites, pendingWriteStillPending, putPendingWrite, writeIdsHolding } from '../store/pendingWrite.js';
import { closingOf } from './requestClosing.js';
import { maxTransactionItems, ofComponent, ReadAgain, resolve, type LargeRelease, type Step } from './step.js';

/** The release of an approved change order, and the protocol of a release too large for one transaction. */

/**
 * Components in one change order. Up to `maxReleaseInOneCommit` a release changes every component, with the
 * change order, its mail's outbox item and the commit record, in ONE transaction (n + 3 items); beyond, each
 * component is first marked with its released version and the commit flips every mark at once (see `release`).
 */
export const maxComponentsPerChangeOrder = 1000;

/** Up to this many components, the commit transaction holds every component (with the order, the mail's outbox item and the commit record). */
export const maxReleaseInOneCommit = maxTransactionItems - 3;

/**
 * Up to this many components, a release also writes history and search entries in its one transaction: 3 items
 * a component, with the order, the mail's outbox item and (when it closes change requests) the commit record.
 */
const singleTransactionRelease = Math.floor((maxTransactionItems - 3) / 3);

/**
 * Releases the components of an approved change order, with it: each component becomes RELEASED at its next
 * revision (a Not Revision Managed component keeps its fixed revision), its lock is lifted, and a RELEASE
 * history record and its search entry are written. Each component write is conditioned on the version read
 * and on this change order's lock. Up to `singleTransactionRelease` components everything is one
 * transaction; beyond, the history records go first under a commit record (`LargeRelease`), and the one
 * transaction holds the change order, every component and the commit; beyond `maxReleaseInOneCommit`, each
 * component is marked with its released version before the commit (same conditions, and no other mark),
 * and the commit transaction holds the change order and the commit record only: readers see every marked
 * version once it committed, none before (lib/store/component.ts `pendingRelease`), and the approval returns
 * then: the marks are put in place, the history records made plain and the search entries written when the
 * jobs function settles the commit from the table's stream (`settleOn: STREAM`, lib/items/settleStream.ts;
 * cleanupAbandonedWrites as backstop), so search shows the release a few seconds later. The change requests
 * promoted into the order close when the commit record settles as COMMITTED (`closingOf`).
 * `fault`: the local stack's test hooks (`fail`: the commit fails at its last component write; `crash`: a
 * large release stops, as a process that died, after half its marks).
 */
export async function release(store: Store, scope: LibraryScope, record: ChangeOrderRecord, at: string, fault: { fail?: boolean; crash?: boolean } = {}): Promise<Omit<Step, 'mails'>> {
  const fail = !!fault.fail;
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
  const closeRequests = closingOf(record, scope.userId);
  const count = record.components.length;
  const single = count <= singleTransactionRelease;
  const marked = count > maxReleaseInOneCommit;
  const writeId = !single || closeRequests ? randomUUID() : undefined;
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
    entry.fromRevision = before.revisionValue;
    entry.toRevision = revisionValue;
    // The fault makes the last component write of the transaction fail, after all the others in it.
    const expectedVersion = fail && index === record.components.length - 1 ? -1 : before.version;
    // A mark that fails (another approval marked it first, or what was read changed) means: read again.
    componentPuts.push(
      marked
        ? componentReleaseMark(after, { version: expectedVersion, lockedBy: record.id }, writeId!)
        : ofComponent(after.id, componentVersionPut(after, { version: expectedVersion, lockedBy: record.id })),
    );
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
    historyPuts.push(componentHistoryPut(scope.organizationId, scope.libraryId, history, { once: true, writeId: single ? undefined : writeId }));
    searchPuts.push(searchEntryPut(after));
  }
  resolve(record, 'APPROVED', at, scope.userId);
  if (!writeId) return { record, items: [...componentPuts, ...historyPuts, ...searchPuts] };
  const commit = commitPendingWriteUpdate(scope.organizationId, scope.libraryId, writeId);
  const effects = { closeRequests };
  if (single) return { record, items: [...componentPuts, ...historyPuts, ...searchPuts, commit], large: { writeId, pending: [], before: [], componentIds: [], effects } };
  const componentIds = record.components.map((c) => c.componentId);
  if (!marked) return { record, items: [...componentPuts, commit], large: { writeId, pending: historyPuts, before: [], componentIds, effects, crash: fault.crash } };
  // Every component's lock and version are conditions of its mark; the commit transaction holds the order and the commit record.
  // Settled from the table's stream (settleOn STREAM): the approval returns at the commit, which readers already see whole.
  return {
    record,
    items: [commit],
    large: { writeId, pending: historyPuts, before: componentPuts, componentIds, effects: { ...effects, markedComponents: componentIds, settleOn: 'STREAM' }, crash: fault.crash },
  };
}

/**
 * Writes what goes before the commit of a large step: its commit record (PENDING), the invisible history
 * records, then the marks or locks, in transactions of 98 items and a check that the write is still
 * PENDING (so nothing lands after an abort). Keys already taken mean another approval of the same change
 * order is releasing it (read again: it resolves the order; `ReleaseInProgress` while that release is
 * fresh), or one that failed left them; those of an aborted write, or of one pending longer than a release
 * can take, are cleared first (aborting is conditional, so a write that commits meanwhile is never undone).
 * A failure aborts this write; a component's lock lost is `ComponentOfChangeOrderLost`.
 */
export async function writeBeforeCommit(store: Store, scope: LibraryScope, large: LargeRelease, at: string): Promise<void> {
  const { organizationId: org, libraryId: lib } = scope;
  const keys = putKeys(large.pending);
  await putPendingWrite(store, org, lib, { writeId: large.writeId, status: 'PENDING', keys, createdAt: at, refreshSearchOf: large.componentIds, settledAt: null, ...large.effects });
  const still = pendingWriteStillPending(org, lib, large.writeId);
  const chunk = maxTransactionItems - 2;
  try {
    for (let start = 0; start < large.pending.length; start += chunk)
      await transactWrite(store, [...large.pending.slice(start, start + chunk), still], { otherwise: () => new ReadAgain(), onConflict: () => new ReadAgain() });
    for (let start = 0; start < large.before.length; start += chunk) {
      if (large.crash && start >= large.before.length / 2) throw new SimulatedCrashError('simulated crash in the middle of a large release');
      await transactWrite(store, [...large.before.slice(start, start + chunk), still], { otherwise: () => new ReadAgain(), onConflict: () => new ReadAgain() });
    }
  } catch (error) {
    if (error instanceof SimulatedCrashError) throw error;
    await settleAbortedWrite(store, org, lib, large.writeId, keys, at, large.effects);
    if (!(error instanceof ReadAgain)) throw error;
    const marked = (large.effects.markedComponents ?? []).map((id) => componentKey(org, lib, id));
    if (await clearAbandonedReleases(store, scope, [...keys, ...marked])) throw new ReleaseInProgress();
    throw new ReadAgain();
  }
}

/** Another release of the same change order is writing: wait for it to commit or fail, then read again. */
export class ReleaseInProgress extends ReadAgain {}

/** A release commits within seconds (a large one within a minute); one pending this long was abandoned by its process. */
const abandonedReleaseMs = 120_000;

/** Settles the writes holding these keys that were abandoned; true when one that holds them is still in flight. */
async function clearAbandonedReleases(store: Store, scope: LibraryScope, keys: Key[]): Promise<boolean> {
  const { organizationId: org, libraryId: lib } = scope;
  const writeIds = await writeIdsHolding(store, keys);
  let inFlight = false;
  for (const write of (await getPendingWrites(store, org, lib, writeIds)).values()) {
    const abandoned = write.status === 'ABORTED' || (write.status === 'PENDING' && Date.now() - Date.parse(write.createdAt) > abandonedReleaseMs);
    if (abandoned) await settleAbortedWrite(store, org, lib, write.writeId, write.keys, nowIso(), write);
    else if (write.status === 'PENDING') inFlight = true;
  }
  return inFlight;
}
