import type { Store } from '../store/client.js';
import { getComponents } from '../store/component.js';
import type { Key } from '../store/items.js';
import { abortPendingWrite, deletePendingItems, markPendingWriteSettled, stripWriteId } from '../store/pendingWrite.js';
import { putSearchEntryIfNewer } from '../search/table/reindex.js';

/**
 * Settling a write too large for one transaction (an item write, a change order's release): after its
 * commit record says COMMITTED or ABORTED, its items are made plain or removed, and the record is marked
 * settled (lib/store/pendingWrite.ts). Used by the writes themselves and by cleanupAbandonedWrites.
 */

/** Removes the items of a write that will never commit, then marks it settled. */
export async function settleAbortedWrite(store: Store, org: string, lib: string, writeId: string, keys: Key[], at: string): Promise<void> {
  if (!(await abortPendingWrite(store, org, lib, writeId))) return;
  await deletePendingItems(store, keys, writeId);
  await markPendingWriteSettled(store, org, lib, writeId, at);
}

/**
 * After the commit: the items lose their write id (they are visible either way), the components whose
 * search entries come after the commit get them, then the record is settled. Repeatable: cleanup runs it
 * again for a write whose process died after the commit.
 */
export async function settleCommittedWrite(store: Store, org: string, lib: string, writeId: string, keys: Key[], at: string, refreshSearchOf: string[] = []): Promise<void> {
  await stripWriteId(store, keys, writeId);
  const components = [...(await getComponents(store, org, lib, refreshSearchOf, true)).values()];
  for (let start = 0; start < components.length; start += 25) await Promise.all(components.slice(start, start + 25).map((c) => putSearchEntryIfNewer(store, c)));
  await markPendingWriteSettled(store, org, lib, writeId, at);
}
