import type { ChangeOrderRecord } from '../store/changeOrder.js';
import { closeReleasedChangeRequest } from '../store/changeRequest.js';
import type { Store } from '../store/client.js';
import { nowIso } from '../store/items.js';

/**
 * After a release commits: the change requests promoted into the order become CLOSED. Idempotent: only
 * requests still open and linked to this order change, so running it again (or after a close by hand)
 * changes nothing.
 */
export async function closeReleasedRequests(store: Store, order: ChangeOrderRecord, by: string): Promise<void> {
  if (order.resolution !== 'APPROVED') return;
  const at = nowIso();
  for (const id of order.changeRequestIds) {
    await closeReleasedChangeRequest(store, order.organizationId, order.libraryId, id, order.id, { action: 'CLOSE', by, at, comment: order.number, status: 'CLOSED' });
  }
}
