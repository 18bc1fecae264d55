import { randomUUID } from 'node:crypto';
import { changeOrderMailPut, type ChangeOrderMailInput } from '../../lib/store/changeOrderMail.js';

/** A change order as an outbox item carries it, for items written by a test (no order item behind it). */
export const sweptOrder = (organizationId: string, libraryId: string, index: number) => ({
  id: randomUUID(),
  number: `CO-${String(index).padStart(6, '0')}`,
  organizationId,
  libraryId,
  createdBy: randomUUID(),
  resolution: null,
  components: [],
  componentCount: 0,
});

/**
 * An outbox item as a build before the due index wrote it (049020e): the mails and the order, `sentAt` null,
 * a week's TTL, and none of the sweep's fields (no attempts, no next attempt, no index keys).
 */
export function preIndexChangeOrderMailItem(input: Omit<ChangeOrderMailInput, 'nextAttemptAt'>): Record<string, unknown> {
  const { Put } = changeOrderMailPut(input) as { Put: { Item: Record<string, unknown> } };
  const { attempts: _a, nextAttemptAt: _n, leasedUntil: _l, lastAttemptAt: _la, lastError: _e, failedAt: _f, attemptBase: _b, GSI1PK: _pk, GSI1SK: _sk, ...item } = Put.Item;
  return item;
}
