import { changeOrderLockGuard, getChangeOrder } from '../store/changeOrder.js';
import { closeReleasedChangeRequest } from '../store/changeRequest.js';
import type { Store } from '../store/client.js';
import { applyReleaseMarks, componentsMarkedBy, getComponents, removeReleaseMarks, type ComponentRecord } from '../store/component.js';
import { componentUnlock } from '../store/componentWrites.js';
import { transactWrite, type Key } from '../store/items.js';
import { abortPendingWrite, deletePendingItems, getPendingWrites, markPendingWriteSettled, stripWriteId, type PendingWriteRecord } from '../store/pendingWrite.js';
import { putSearchEntriesIfNewer } from '../search/table/reindex.js';

/**
 * Settling a write too large for one transaction (an item write, a change order's release, the locks of a
 * large change order): after its commit record says COMMITTED or ABORTED, its items are made plain or
 * removed, its marks applied or removed, its locks let go, its change requests closed, and the record is
 * marked settled (lib/store/pendingWrite.ts). Used by the writes themselves and by cleanupAbandonedWrites.
 */

/** What a write does besides its items, as its commit record holds it. */
export type WriteEffects = Partial<Pick<PendingWriteRecord, 'markedComponents' | 'unlock' | 'closeRequests' | 'settleOn'>>;

/** Removes the items of a write that will never commit, then marks it settled. */
export async function settleAbortedWrite(store: Store, org: string, lib: string, writeId: string, keys: Key[], at: string, effects: WriteEffects = {}): Promise<void> {
  if (!(await abortPendingWrite(store, org, lib, writeId))) return;
  await deletePendingItems(store, keys, writeId);
  // Only the components that carry this write's mark (read first: an abort usually comes before most marks).
  const marked = effects.markedComponents ?? [];
  for (let start = 0; start < marked.length; start += 100) {
    const stillMarked = (await componentsMarkedBy(store, org, lib, marked.slice(start, start + 100), writeId)).map((c) => c.id);
    await removeReleaseMarks(store, org, lib, stillMarked, writeId);
  }
  if (effects.unlock?.when === 'ABORTED') await unlockComponentsOf(store, org, lib, effects.unlock.changeOrderId, effects.unlock.componentIds);
  await markPendingWriteSettled(store, org, lib, writeId, at);
}

/**
 * After the commit: marked components get their released version, the items lose their write id (they are
 * visible either way), the components whose search entries come after the commit get them, locks go, change
 * requests close, then the record is settled. Repeatable: cleanup runs it again for a write whose process
 * died after the commit.
 */
export async function settleCommittedWrite(
  store: Store,
  org: string,
  lib: string,
  writeId: string,
  keys: Key[],
  at: string,
  refreshSearchOf: string[] = [],
  effects: WriteEffects = {},
): Promise<void> {
  const marked = effects.markedComponents ?? [];
  const still: ComponentRecord[] = [];
  for (let start = 0; start < marked.length; start += 100) still.push(...(await componentsMarkedBy(store, org, lib, marked.slice(start, start + 100), writeId)));
  await applyReleaseMarks(store, still);
  await stripWriteId(store, keys, writeId);
  const components = [...(await getComponents(store, org, lib, refreshSearchOf, true)).values()];
  await putSearchEntriesIfNewer(store, components);
  if (effects.unlock?.when === 'COMMITTED') await unlockComponentsOf(store, org, lib, effects.unlock.changeOrderId, effects.unlock.componentIds);
  const close = effects.closeRequests;
  if (close) {
    for (const id of close.ids) await closeReleasedChangeRequest(store, org, lib, id, close.changeOrderId, { action: 'CLOSE', by: close.by, at, comment: close.number, status: 'CLOSED' });
  }
  await markPendingWriteSettled(store, org, lib, writeId, at);
}

/**
 * Settles a committed write from its commit record, read strongly consistent (the jobs function, fed the
 * record's change to COMMITTED by the table's stream: lib/items/settleStream.ts). Nothing when the write is
 * not COMMITTED or already settled (a redelivered stream record, or cleanup came first); and as
 * `settleCommittedWrite` is repeatable, two settlings at once are harmless too. True when it settled.
 */
export async function settleCommittedWriteById(store: Store, org: string, lib: string, writeId: string, at: string): Promise<boolean> {
  const write = (await getPendingWrites(store, org, lib, [writeId])).get(writeId);
  if (!write || write.status !== 'COMMITTED' || write.settledAt) return false;
  await settleCommittedWrite(store, org, lib, writeId, write.keys, at, write.refreshSearchOf, write);
  return true;
}

/** Change order statuses in which an order holds its components' locks. */
const holding = new Set(['OPEN', 'ON_HOLD']);

/**
 * Lets go the locks a change order holds on these components while the order does not hold them (not OPEN
 * or ON_HOLD, or deleted): in transactions of 99 components, each with the order's guard
 * (`changeOrderLockGuard`: the order as read, its rev moved), so a submit of the order racing this one
 * either committed first (the guard fails, the order is read again and found holding) or fails its commit
 * and locks again. Repeatable.
 */
export async function unlockComponentsOf(store: Store, org: string, lib: string, changeOrderId: string, componentIds: string[]): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const order = await getChangeOrder(store, org, lib, changeOrderId, true);
    if (order && holding.has(order.status)) return;
    const locked = [...(await getComponents(store, org, lib, componentIds, true)).values()].filter((c) => c.lockedBy === changeOrderId);
    if (locked.length === 0) return;
    try {
      for (let start = 0; start < locked.length; start += 99) {
        const chunk = locked.slice(start, start + 99).map((c) => componentUnlock(org, lib, c.id, changeOrderId));
        // The guard moves the order's rev: read it again for the next chunk.
        const current = start === 0 ? order : await getChangeOrder(store, org, lib, changeOrderId, true);
        if (current && holding.has(current.status)) return;
        await transactWrite(store, [...chunk, changeOrderLockGuard(org, lib, changeOrderId, current)]);
      }
      return;
    } catch {
      // The order changed (or a component was let go meanwhile): read both again.
    }
  }
  throw new Error(`Could not let go the locks of change order ${changeOrderId}`);
}
