import type { ChangeOrderRecord } from '../store/changeOrder.js';
import { randomUUID } from 'node:crypto';
import type { WriteEffects } from '../items/settle.js';
import { componentLock, componentLockAgain, componentUnlock } from '../store/componentWrites.js';
import { failingWith, type WriteItem } from '../store/items.js';
import { closesItself, type allowedFrom, type ChangeOrderResolution } from './lifecycle.js';
import type { StepMail } from './notifications.js';

/**
 * What one lifecycle action produces (the next record, the items written with it, the mails it sends), and
 * the record changes and component items actions share. `act.ts` runs a step; `actions.ts` and
 * `release.ts` build them.
 */

export type Action = keyof typeof allowedFrom;

export interface Step {
  record: ChangeOrderRecord;
  items: WriteItem[];
  mails: StepMail[];
  /** A step too large for one transaction (a release with its history, the locks of a large order): what goes before and after it. */
  large?: LargeRelease;
  /** Tidying after the commit that may fail without undoing it (the change orders index entries of components let go). */
  afterCommit?: () => Promise<void>;
}

/**
 * The commit-record design of large item writes (lib/store/pendingWrite.ts), for a change order step too
 * large for one transaction. A release: the history records are written first carrying a write id,
 * invisible to readers, and beyond `maxReleaseInOneCommit` components each component is marked with its
 * released version (`before`); the transaction of the change order (with every component, up to that size)
 * flips the commit record to COMMITTED; the marks are put in place, the search entries written and the
 * change requests closed after the commit, and cleanup does it again if the process died in between. A
 * large submit locks its components before the commit (`before`) and lets them go if it aborts; a large
 * reject, withdrawal or reset lets them go after it commits (`effects.unlock`).
 */
export interface LargeRelease {
  writeId: string;
  /** History puts, each conditioned on its key being free (keys the commit record lists). */
  pending: WriteItem[];
  /** Marks or locks written before the commit, in transactions that hold only while the write is PENDING. */
  before: WriteItem[];
  /** The components whose search entries are written after the commit. */
  componentIds: string[];
  effects: WriteEffects;
  /** Test hook of the local stack (x-plm-fault: change-order-release-crash): stop after half of `before`, as a process that died. */
  crash?: boolean | undefined;
}

/** DynamoDB's limit on the items of one transaction. */
export const maxTransactionItems = 100;

/** Up to this many components, a change order's locks go with its record and its mail's outbox item in one transaction. */
export const maxLocksInOneTransaction = maxTransactionItems - 2;

/** Raised inside an action when what it read is mid-change (another transaction committing): read again. */
export class ReadAgain extends Error {}

/** The lock, unlock or release of one of the change order's components failed. */
export class ComponentOfChangeOrderLost extends Error {
  constructor(readonly componentId: string) {
    super(`Component ${componentId} of the change order changed`);
  }
}

export const ofComponent = (componentId: string, item: WriteItem) => failingWith(item, () => new ComponentOfChangeOrderLost(componentId));

export const history = (record: ChangeOrderRecord, action: string, by: string, at: string, comment: string | null = null) => {
  record.history.push({ action, by, at, comment, status: record.status });
};

/** The locks of a submit: with the record up to `maxLocksInOneTransaction`, else before its commit (and let go if it aborts). */
export function locking(record: ChangeOrderRecord): Pick<Step, 'items' | 'large'> {
  if (record.components.length <= maxLocksInOneTransaction) return { items: lockItems(record) };
  const componentIds = record.components.map((c) => c.componentId);
  const before = componentIds.map((id) => ofComponent(id, componentLockAgain(record.organizationId, record.libraryId, id, record.id)));
  return { items: [], large: { writeId: randomUUID(), pending: [], before, componentIds: [], effects: { unlock: { changeOrderId: record.id, componentIds, when: 'ABORTED' } } } };
}

/** The unlocks of a reject, withdrawal or reset: with the record up to `maxLocksInOneTransaction`, else after its commit. */
export function unlocking(record: ChangeOrderRecord): Pick<Step, 'items' | 'large'> {
  if (record.components.length <= maxLocksInOneTransaction) return { items: unlockItems(record) };
  const componentIds = record.components.map((c) => c.componentId);
  return { items: [], large: { writeId: randomUUID(), pending: [], before: [], componentIds: [], effects: { unlock: { changeOrderId: record.id, componentIds, when: 'COMMITTED' } } } };
}

export const lockItems = (record: ChangeOrderRecord) => record.components.map((c) => ofComponent(c.componentId, componentLock(record.organizationId, record.libraryId, c.componentId, record.id)));
export const unlockItems = (record: ChangeOrderRecord) => record.components.map((c) => ofComponent(c.componentId, componentUnlock(record.organizationId, record.libraryId, c.componentId, record.id)));

export function resolve(record: ChangeOrderRecord, resolution: ChangeOrderResolution, at: string, by: string): void {
  record.resolution = resolution;
  record.currentStage = null;
  const actions = resolution === 'APPROVED' ? record.resolutions.onapproval : resolution === 'REJECTED' ? record.resolutions.onrejection : record.resolutions.onwithdrawal;
  record.status = closesItself(actions) ? 'CLOSED' : 'RESOLVED';
  history(record, resolution, by, at);
}
