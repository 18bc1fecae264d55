import type { ChangeOrderRecord } from '../store/changeOrder.js';
import type { PendingWriteRecord } from '../store/pendingWrite.js';

/**
 * The change requests promoted into an order close when its release commits: the release's commit record
 * names them (`closeRequests`), and settling it as COMMITTED closes each (lib/items/settle.ts), in the
 * request or, if the process died after the commit, by cleanupAbandonedWrites. Idempotent: only requests
 * still open and linked to this order change, so settling again (or after a close by hand) changes nothing.
 */
export function closingOf(order: ChangeOrderRecord, by: string): PendingWriteRecord['closeRequests'] {
  if (order.changeRequestIds.length === 0) return null;
  return { changeOrderId: order.id, number: order.number, by, ids: order.changeRequestIds };
}
