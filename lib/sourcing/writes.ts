import { ComponentLockedError, ComponentNotFoundError, ConcurrentWriteError, IntegrationAccessError } from '../errors.js';
import { nativePrincipalId, withheldAttributes, writeDecision, type AccessPolicy, type SourcingAttribute } from '../model/attributeAccess.js';
import { searchEntryPut } from '../search/entries.js';
import { getAccessPolicy } from '../store/accessPolicy.js';
import type { Store } from '../store/client.js';
import { getComponent, normalizeMpn, type ComponentRecord } from '../store/component.js';
import { componentHistoryPut, type HistoryChange } from '../store/componentHistory.js';
import { componentVersionPut } from '../store/componentWrites.js';
import { failingWith, nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { SourcingError } from './errors.js';
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

/**
 * The acting principal (the integration, or the native principal for people) must be allowed to write the
 * pseudo-attribute the operation writes, by the same rules as an attribute (writeDecision): NO_WRITE or
 * another linked manager → ATTRIBUTE_WRITE_DENIED, managed with no manager linked → ATTRIBUTE_FROZEN. The
 * attribute comes from the operation (its kind), never from the stored sourcing: a caller who may not write
 * is refused the same whatever the stored parts and quotes are.
 */
export function checkSourcingWrite(policy: AccessPolicy, actor: SourcingActor, component: Pick<ComponentRecord, 'id' | 'links'>, attribute: SourcingAttribute): void {
  const principal = actor.actingIntegrationId ?? nativePrincipalId;
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

/**
 * Whether the acting principal reads the row an operation writes: a part needs `sourcing.parts`, a quote
 * both (componentSourcing gives no quote without its part). A caller who does not is answered only what it
 * sent (the operations in parts.ts) and its refusals carry no stored data (redacted).
 */
export function readsRow(withheld: ReadonlySet<string>, attribute: SourcingAttribute): boolean {
  return !withheld.has('sourcing.parts') && (attribute === 'sourcing.parts' || !withheld.has('sourcing.quotes'));
}

/**
 * A refusal of an operation's own checks (they read the stored sourcing) as a caller who cannot read the row
 * receives it: the code and the field, no stored data (DUPLICATE_MPN does not name the clashing part,
 * PRIMARY_NOT_APPROVED not the stored approval). The refusal itself stays: one bit (the MPN is taken, the
 * part is not approved or is primary, the limit is reached, the id is not there) documented in the guide.
 */
const redactedMessages: Record<string, string> = {
  DUPLICATE_MPN: 'This MPN of this manufacturer is already a part of the component',
  PRIMARY_NOT_APPROVED: 'Only an APPROVED part may be the primary source',
  TOO_MANY_SOURCING_ROWS: 'The component or part has as many sourcing rows as it may hold',
  PART_NOT_FOUND: 'The manufacturer part named is not a part of the component',
  QUOTE_NOT_FOUND: 'The quote named is not a quote of the component or part',
};
function redacted(error: SourcingError): SourcingError {
  // BAD_USER_INPUT of an operation is about the input alone (its message and reason are kept).
  if (error.code === 'BAD_USER_INPUT') return error;
  const field = error.details.field;
  return new SourcingError(error.code, redactedMessages[error.code] ?? `${typeof field === 'string' ? field : 'input'}: refused`, typeof field === 'string' ? { field } : {});
}

/** What an operation's change sees besides the stored sourcing. */
export interface SourcingChangeContext {
  component: ComponentRecord;
  at: string;
  /** Whether the caller reads the row it writes (readsRow): if not, the result is what it sent. */
  readsRow: boolean;
}

const emptySourcing = (componentId: string, at: string): SourcingRecord => ({ componentId, parts: [], primaryPartId: null, primaryQuoteId: null, rev: 0, updatedAt: at });

/**
 * One sourcing write of the pseudo-attribute `writes`, in ONE transaction: first the access check
 * (checkSourcingWrite, before the operation reads anything stored), then the operation's own checks
 * (`change`; redacted for a caller who cannot read the row), then the component's sourcing item (condition: the rev read), the
 * component at its next version (condition: the version and lock read; RELEASED → MODIFIED for an AML
 * change), its history record and its search entry. A concurrent write of either gives VERSION_CONFLICT and
 * writes nothing.
 */
export async function changeSourcing<T>(
  store: Store,
  actor: SourcingActor,
  componentId: string,
  writes: SourcingAttribute,
  change: (current: SourcingRecord, context: SourcingChangeContext) => SourcingChange<T> | Promise<SourcingChange<T>>,
): Promise<T> {
  const [component, stored, policy] = await Promise.all([
    getComponent(store, actor.organizationId, actor.libraryId, componentId, true),
    getSourcing(store, actor.organizationId, actor.libraryId, componentId),
    getAccessPolicy(store, actor.organizationId, actor.libraryId),
  ]);
  if (!component) throw new ComponentNotFoundError(componentId);
  checkSourcingWrite(policy, actor, component, writes);
  const at = nowIso();
  const current = stored ?? emptySourcing(componentId, at);
  const reads = readsRow(withheldAttributes(policy, actor.actingIntegrationId ?? nativePrincipalId), writes);
  const { next, changes, amlChange, result } = await (async () => change(current, { component, at, readsRow: reads }))().catch((error: unknown) => {
    throw !reads && error instanceof SourcingError ? redacted(error) : error;
  });
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
