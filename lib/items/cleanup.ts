import type { Store } from '../store/client.js';
import { listPendingWrites } from '../store/pendingWrite.js';
import { settleAbortedWrite, settleCommittedWrite } from './settle.js';

/** A large item write normally commits within seconds; one pending longer than this was abandoned. */
export const abandonedAfterMs = 15 * 60 * 1000;

/**
 * Settles the large writes (item writes, change order releases) of a library that a crash left behind: a PENDING write older than the
 * threshold is aborted and its invisible items deleted; a COMMITTED one that still has items carrying its
 * write id gets them cleared. Safe to run at any time and repeatedly (every step is conditional).
 */
export async function cleanupAbandonedWrites(store: Store, organizationId: string, libraryId: string, olderThanMs = abandonedAfterMs, now = new Date()): Promise<{ aborted: number; settled: number }> {
  let aborted = 0;
  let settled = 0;
  for (const write of await listPendingWrites(store, organizationId, libraryId)) {
    if (write.status === 'COMMITTED') {
      await settleCommittedWrite(store, organizationId, libraryId, write.writeId, write.keys, now.toISOString(), write.refreshSearchOf, write);
      settled += 1;
    } else if (write.status === 'PENDING' && now.getTime() - Date.parse(write.createdAt) >= olderThanMs) {
      await settleAbortedWrite(store, organizationId, libraryId, write.writeId, write.keys, now.toISOString(), write);
      aborted += 1;
    } else if (write.status === 'ABORTED') {
      await settleAbortedWrite(store, organizationId, libraryId, write.writeId, write.keys, now.toISOString(), write);
      aborted += 1;
    }
  }
  return { aborted, settled };
}
