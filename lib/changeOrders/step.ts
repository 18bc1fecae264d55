import type { ChangeOrderRecord } from '../store/changeOrder.js';
import { componentLock, componentUnlock } from '../store/component.js';
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
  /** A release too large for one transaction with its history: what goes before and after it. */
  large?: LargeRelease;
  /** Tidying after the commit that may fail without undoing it (the change orders index entries of components let go). */
  afterCommit?: () => Promise<void>;
}

/**
 * The commit-record design of large item writes (lib/store/pendingWrite.ts), for a release: the history
 * records are written first carrying a write id, invisible to readers; the transaction of the change order
 * and every component flips the commit record to COMMITTED; the search entries follow the commit, and
 * cleanup writes them again if the process died in between.
 */
export interface LargeRelease {
  writeId: string;
  /** History puts, each conditioned on its key being free. */
  pending: WriteItem[];
  componentIds: string[];
}

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

export const lockItems = (record: ChangeOrderRecord) => record.components.map((c) => ofComponent(c.componentId, componentLock(record.organizationId, record.libraryId, c.componentId, record.id)));
export const unlockItems = (record: ChangeOrderRecord) => record.components.map((c) => ofComponent(c.componentId, componentUnlock(record.organizationId, record.libraryId, c.componentId, record.id)));

export function resolve(record: ChangeOrderRecord, resolution: ChangeOrderResolution, at: string, by: string): void {
  record.resolution = resolution;
  record.currentStage = null;
  const actions = resolution === 'APPROVED' ? record.resolutions.onapproval : resolution === 'REJECTED' ? record.resolutions.onrejection : record.resolutions.onwithdrawal;
  record.status = closesItself(actions) ? 'CLOSED' : 'RESOLVED';
  history(record, resolution, by, at);
}
