import { ComponentLockedError, ComponentNotFoundError, ConcurrentWriteError } from '../errors.js';
import { searchEntryPut } from '../search/entries.js';
import type { Store } from '../store/client.js';
import { componentHistoryPut, componentVersionPut, getComponent, type ComponentRecord, type HistoryChange } from '../store/component.js';
import { failingWith, nowIso, transactWrite } from '../store/items.js';
import { getSourcing, sourcingPut, type SourcingRecord } from '../store/sourcing.js';

/** Who writes: the library, the person, and the integration the request acts for (null for people). */
export interface SourcingActor {
  organizationId: string;
  libraryId: string;
  userId: string;
  actingIntegrationId: string | null;
}

export interface SourcingChange<T> {
  next: SourcingRecord;
  /** What the history record says (fields `sourcing.part.<id>`, `sourcing.quote.<id>`, `sourcing.primary`). */
  changes: HistoryChange[];
  /**
   * Whether the change touches the approved manufacturer list (a part added, removed, its approval,
   * manufacturer or MPN changed): a RELEASED component becomes MODIFIED, and a component held by a change
   * order refuses it. Quotes, stock and the primary source never change the state.
   */
  amlChange: boolean;
  result: T;
}

const emptySourcing = (componentId: string, at: string): SourcingRecord => ({ componentId, parts: [], primaryPartId: null, primaryQuoteId: null, rev: 0, updatedAt: at });

/**
 * One sourcing write, in ONE transaction: the component's sourcing item (condition: the rev read), the
 * component at its next version (condition: the version and lock read; RELEASED → MODIFIED for an AML
 * change), its history record and its search entry. A concurrent write of either gives VERSION_CONFLICT and
 * writes nothing.
 */
export async function changeSourcing<T>(
  store: Store,
  actor: SourcingActor,
  componentId: string,
  change: (current: SourcingRecord, component: ComponentRecord, at: string) => SourcingChange<T> | Promise<SourcingChange<T>>,
): Promise<T> {
  const [component, stored] = await Promise.all([
    getComponent(store, actor.organizationId, actor.libraryId, componentId, true),
    getSourcing(store, actor.organizationId, actor.libraryId, componentId),
  ]);
  if (!component) throw new ComponentNotFoundError(componentId);
  const at = nowIso();
  const current = stored ?? emptySourcing(componentId, at);
  const { next, changes, amlChange, result } = await change(current, component, at);
  if (amlChange && component.lockedBy) throw new ComponentLockedError(component.id, component.lockedBy);
  const modified = amlChange && component.state === 'RELEASED';
  const after: ComponentRecord = {
    ...component,
    state: modified ? 'MODIFIED' : component.state,
    version: component.version + 1,
    updatedAt: at,
    updatedBy: actor.userId,
  };
  const history = componentHistoryPut(
    actor.organizationId,
    actor.libraryId,
    {
      componentId,
      version: after.version,
      action: 'UPDATE',
      at,
      by: actor.userId,
      actingIntegrationId: actor.actingIntegrationId,
      changes: [...changes, ...(modified ? [{ field: 'state', from: 'RELEASED', to: 'MODIFIED' }] : [])],
    },
    { once: true },
  );
  const conflict = () => new ConcurrentWriteError(`Component ${componentId} or its sourcing`);
  await transactWrite(store, [
    sourcingPut(actor.organizationId, actor.libraryId, { ...next, rev: current.rev + 1, updatedAt: at }, current.rev, conflict),
    componentVersionPut(after, { version: component.version, lockedBy: component.lockedBy }, conflict),
    failingWith(history, conflict),
    searchEntryPut(after),
  ]);
  return result;
}
