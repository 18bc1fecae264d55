import type { LibraryScope } from '../model/scope.js';
import { ComponentLockedError, ConcurrentWriteError, NotFoundError } from '../errors.js';
import { ChangeOrderError } from './errors.js';
import { settleAbortedWrite, settleCommittedWrite } from '../items/settle.js';
import { SimulatedCrashError } from '../items/writer.js';
import { changeOrderDelete, changeOrderPut, type ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { getComponents } from '../store/component.js';
import { failingWith, nowIso, putKeys, transactWrite } from '../store/items.js';
import { allowedFrom } from './lifecycle.js';
import { mailOutboxItem } from './notifications.js';
import { changeOrderById } from './queries.js';
import { ReleaseInProgress, writeBeforeCommit } from './release.js';
import { ComponentOfChangeOrderLost, ReadAgain, type Action, type Step } from './step.js';

export interface ChangeOrderDeps {
  store: Store;
  /** Test hook of the local stack (x-plm-fault): the release transaction fails at its last item. */
  failRelease?: boolean;
  /** Test hook of the local stack (x-plm-fault): a large release stops after half its marks, as a process that died. */
  crashRelease?: boolean;
  /** Test hook of the local stack (x-plm-fault): a step with a commit record stops right after its commit, before settling it. */
  crashAfterCommit?: boolean;
}

/** Waits a little longer each attempt, so a racing writer can finish what it began. */
const backOff = (attempt: number) => new Promise((r) => setTimeout(r, 20 * 2 ** attempt + Math.random() * 20));

/** How long an approval waits for another approval's large release of the same order to commit or fail. */
const releaseWaitMs = 120_000;

/**
 * Applies one lifecycle action: reads the change order (strongly consistent), checks the action is allowed
 * from its status, lets `apply` produce the next record with the items that go with it, and writes all in
 * one transaction conditioned on the revision read, with the step's mails as one outbox item (sent from the
 * table's stream by the jobs function: `notifications.ts`), so they go if and only if the step committed. A
 * concurrent change (another vote) makes it read again and re-apply, so two approvals racing on the last vote
 * resolve, and release, exactly once.
 */
export async function act(deps: ChangeOrderDeps, scope: LibraryScope, id: string, action: Action, apply: (record: ChangeOrderRecord, at: string) => Promise<Step>): Promise<ChangeOrderRecord> {
  const waitingSince = Date.now();
  for (let attempt = 0; ; attempt += 1) {
    const current = await changeOrderById(deps.store, scope, id);
    if (!allowedFrom[action]!.includes(current.status)) {
      throw new ChangeOrderError('CHANGE_ORDER_STATE', `Cannot ${action} change order ${current.number}: it is ${current.status}${current.resolution ? ` (${current.resolution})` : ''}`, {
        status: current.status,
        action,
      });
    }
    const at = nowIso();
    let step: Step;
    try {
      step = await apply(structuredClone(current), at);
    } catch (error) {
      if (error instanceof ReadAgain && attempt < 5) continue;
      throw error instanceof ReadAgain ? new ConcurrentWriteError(`Change order ${current.number}`) : error;
    }
    const next = { ...step.record, updatedAt: at, rev: current.rev + 1 };
    const { large } = step;
    if (large) {
      try {
        await writeBeforeCommit(deps.store, scope, large, at);
      } catch (error) {
        if (error instanceof ComponentOfChangeOrderLost) throw await lockFailure(deps.store, scope, current, error.componentId);
        if (!(error instanceof ReadAgain)) throw error;
        // Another approval is releasing this order: wait for it (the order then reads resolved).
        if (error instanceof ReleaseInProgress && Date.now() - waitingSince < releaseWaitMs) {
          attempt = 0;
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        if (attempt >= 5) throw new ConcurrentWriteError(`Change order ${current.number}`);
        await backOff(attempt);
        continue;
      }
    }
    const changed = () => new ConcurrentWriteError(`Change order ${current.number}`);
    const orderItem = action === 'delete' ? changeOrderDelete(current) : changeOrderPut(next, current.rev);
    try {
      await transactWrite(deps.store, [failingWith(orderItem, () => new ChangeOrderChanged()), ...step.items, ...mailOutboxItem(next, step.mails, at)], {
        otherwise: changed,
        onConflict: () => new ChangeOrderChanged(),
      });
    } catch (error) {
      if (large) await settleAbortedWrite(deps.store, scope.organizationId, scope.libraryId, large.writeId, putKeys(large.pending), at, large.effects);
      if (error instanceof ChangeOrderChanged) {
        if (attempt < 5) continue;
        throw changed();
      }
      if (error instanceof ComponentOfChangeOrderLost) throw await lockFailure(deps.store, scope, current, error.componentId);
      throw error;
    }
    // Committed: what is left (marks put in place, write ids off the history, search entries, locks let go,
    // change requests closed) is repeatable, and cleanup of abandoned writes redoes it if this fails, so a
    // failure here does not fail the approval that landed. A large release leaves it to the jobs function,
    // fed the commit by the table's stream (settleOn STREAM): its settling takes longer than a request may.
    if (large && deps.crashAfterCommit) throw new SimulatedCrashError('simulated crash after the commit of a change order step');
    if (large && large.effects.settleOn !== 'STREAM')
      await settleCommittedWrite(deps.store, scope.organizationId, scope.libraryId, large.writeId, putKeys(large.pending), at, large.componentIds, large.effects).catch(() => undefined);
    // Repeatable tidying (index entries of components let go): a stale entry is harmless, readers confirm it.
    if (step.afterCommit) await step.afterCommit().catch(() => undefined);
    return next;
  }
}

/** The change order changed since it was read (another vote): read it again. */
class ChangeOrderChanged extends Error {}

/** Which component made a lock (or release) fail: held by another change order, or changed meanwhile. */
async function lockFailure(store: Store, scope: LibraryScope, record: ChangeOrderRecord, componentId: string) {
  const component = componentId ? (await getComponents(store, scope.organizationId, scope.libraryId, [componentId], true)).get(componentId) : undefined;
  if (!component) return new NotFoundError('Component', componentId || 'of this change order');
  if (component.lockedBy && component.lockedBy !== record.id) return new ComponentLockedError(component.id, component.lockedBy);
  return new ConcurrentWriteError(`Component ${component.cpn} of ${record.number}`);
}
