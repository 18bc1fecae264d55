import { ComponentLockedError, ComponentNotFoundError, ConcurrentWriteError, IntegrationAccessError } from '../errors.js';
import { nativePrincipalId, writeDecision, type AccessPolicy, type SourcingAttribute } from '../model/attributeAccess.js';
import { searchEntryPut } from '../search/entries.js';
import { getAccessPolicy } from '../store/accessPolicy.js';
import type { Store } from '../store/client.js';
import { getComponent, normalizeMpn, type ComponentRecord } from '../store/component.js';
import { componentHistoryPut, type HistoryChange } from '../store/componentHistory.js';
import { componentVersionPut } from '../store/componentWrites.js';
import { failingWith, nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { getSourcing, mpnIndexDelete, mpnIndexPut, sourcingPut, type SourcingRecord } from '../store/sourcing.js';

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

/** Normalized MPN -> ids of the parts carrying it, in part order. */
function partsByMpn(s: SourcingRecord): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of s.parts) map.set(normalizeMpn(part.mpn), [...(map.get(normalizeMpn(part.mpn)) ?? []), part.id]);
  return map;
}

/** What search filters of a component's sourcing (ComponentRecord.sourcingIndex). */
export function sourcingIndexOf(s: Pick<SourcingRecord, 'parts'>): NonNullable<ComponentRecord['sourcingIndex']> {
  return {
    mpns: [...new Set(s.parts.map((p) => normalizeMpn(p.mpn)))],
    manufacturerIds: [...new Set(s.parts.map((p) => p.manufacturerId))],
  };
}

/** The MPN index entries a sourcing change puts or deletes (only those whose parts changed). */
export function mpnIndexChanges(orgId: string, libraryId: string, before: SourcingRecord, after: SourcingRecord): WriteItem[] {
  const old = partsByMpn(before);
  const now = partsByMpn(after);
  const items: WriteItem[] = [];
  for (const [mpn, partIds] of now) {
    if (JSON.stringify(old.get(mpn)) !== JSON.stringify(partIds)) items.push(mpnIndexPut(orgId, libraryId, { mpn, componentId: after.componentId, partIds }));
  }
  for (const mpn of old.keys()) if (!now.has(mpn)) items.push(mpnIndexDelete(orgId, libraryId, mpn, after.componentId));
  return items;
}

/** The pseudo-attributes a change writes: parts and the primary source are `sourcing.parts`, quotes `sourcing.quotes`. */
export function sourcingAttributesOf(changes: readonly HistoryChange[]): SourcingAttribute[] {
  const touched = new Set<SourcingAttribute>();
  for (const { field } of changes) touched.add(field.startsWith('sourcing.quote.') ? 'sourcing.quotes' : 'sourcing.parts');
  return [...touched].sort();
}

/**
 * The acting principal (the integration, or the native principal for people) must be allowed to write each
 * pseudo-attribute the change touches, by the same rules as an attribute (writeDecision): NO_WRITE or
 * another linked manager → ATTRIBUTE_WRITE_DENIED, managed with no manager linked → ATTRIBUTE_FROZEN.
 */
export function checkSourcingWrite(policy: AccessPolicy, actor: SourcingActor, component: Pick<ComponentRecord, 'id' | 'links'>, changes: readonly HistoryChange[]): void {
  const principal = actor.actingIntegrationId ?? nativePrincipalId;
  for (const attribute of sourcingAttributesOf(changes)) {
    const decision = writeDecision(policy, principal, attribute, component.links);
    if (!decision.allowed) {
      throw new IntegrationAccessError(decision.code, `${attribute} of component ${component.id} cannot be written: ${decision.reason}`, {
        attributeId: attribute,
        componentId: component.id,
        principal,
        managers: decision.managers,
      });
    }
  }
}

const emptySourcing = (componentId: string, at: string): SourcingRecord => ({ componentId, parts: [], primaryPartId: null, primaryQuoteId: null, rev: 0, updatedAt: at });

/**
 * One sourcing write, in ONE transaction (after the access check: checkSourcingWrite): the component's sourcing item (condition: the rev read), the
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
  const [component, stored, policy] = await Promise.all([
    getComponent(store, actor.organizationId, actor.libraryId, componentId, true),
    getSourcing(store, actor.organizationId, actor.libraryId, componentId),
    getAccessPolicy(store, actor.organizationId, actor.libraryId),
  ]);
  if (!component) throw new ComponentNotFoundError(componentId);
  const at = nowIso();
  const current = stored ?? emptySourcing(componentId, at);
  const { next, changes, amlChange, result } = await change(current, component, at);
  checkSourcingWrite(policy, actor, component, changes);
  if (amlChange && component.lockedBy) throw new ComponentLockedError(component.id, component.lockedBy);
  const modified = amlChange && component.state === 'RELEASED';
  const after: ComponentRecord = {
    ...component,
    state: modified ? 'MODIFIED' : component.state,
    version: component.version + 1,
    updatedAt: at,
    updatedBy: actor.userId,
    sourcingIndex: sourcingIndexOf(next),
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
    // The MPN index entries (findPartsByMpn) move with the item they index.
    ...mpnIndexChanges(actor.organizationId, actor.libraryId, current, next),
  ]);
  return result;
}
