import { IntegrationAccessError, InvalidInputError, SourcingWithheldError } from '../errors.js';

/**
 * The principal and attribute access model, as pure rules over one library's policy (spec: "Principal and
 * attribute access model"). Every writer is a principal: people act as the service's own (native) principal,
 * an API key made for an integration acts as that integration.
 */

/** The reserved native principal of the service: the same id in every organization. */
export const nativePrincipalId = 'native';

/**
 * Sourcing as two pseudo-attributes of every library: designations on them work as on an attribute.
 * `sourcing.parts`: the manufacturer parts (the AML: parts, their approval, MPNs, rank) and the primary
 * source; `sourcing.quotes`: the quotes of those parts (prices, stock, lead time).
 */
export const sourcingAttributes = ['sourcing.parts', 'sourcing.quotes'] as const;
export type SourcingAttribute = (typeof sourcingAttributes)[number];
export const isSourcingAttribute = (id: string): id is SourcingAttribute => (sourcingAttributes as readonly string[]).includes(id);

export const writeDesignations = ['OPEN', 'WRITE', 'NO_WRITE', 'EXCLUSIVE_WRITE'] as const;
export type WriteDesignation = (typeof writeDesignations)[number];
export const readAccesses = ['READ', 'RECEIVE_ONLY', 'NO_ACCESS'] as const;
export type ReadAccess = (typeof readAccesses)[number];

/** One stored designation: what a principal may do with an attribute in this library. */
export interface AccessEntry {
  attribute: string;
  principal: string;
  write: WriteDesignation;
  read: ReadAccess;
}

export interface AccessPolicy {
  /** Increments with every change; a change is conditioned on the version it read. */
  version: number;
  /** As set, in the order first set (unchanged by reads: EXCLUSIVE_WRITE round-trips). */
  entries: AccessEntry[];
}

export const emptyPolicy: AccessPolicy = { version: 0, entries: [] };

export interface AccessEntryChange {
  attribute: string;
  principal: string;
  /** Omitted: the stored designation stays (OPEN when there is none). */
  write?: WriteDesignation | null | undefined;
  /** Omitted: the stored read access stays (READ when there is none). */
  read?: ReadAccess | null | undefined;
}

const isManager = (write: WriteDesignation) => write === 'WRITE' || write === 'EXCLUSIVE_WRITE';

/**
 * Designations one library's policy holds at most. The policy is one table item (DynamoDB's 400 KB) and an
 * entry takes about 160 bytes at the longest ids (a 64-character attribute id, an integration's UUID): past
 * this a write would fail in the table, so setAttributeAccess and a library import refuse it first.
 * Entries are kept once set (also back at OPEN and READ), so re-setting one never counts twice.
 */
export const maxAccessEntries = 2_000;

/**
 * The policy after the changes, applied in order (a later entry sees the earlier ones, so one call can hand
 * an attribute from one manager to another). The first change that breaks a rule refuses the whole call.
 */
export function applyChanges(policy: AccessPolicy, changes: readonly AccessEntryChange[]): AccessPolicy {
  const entries = policy.entries.map((entry) => ({ ...entry }));
  changes.forEach((change, index) => {
    const at = `entries[${index}]`;
    const existing = entries.find((e) => e.attribute === change.attribute && e.principal === change.principal);
    const write = change.write ?? existing?.write ?? 'OPEN';
    const read = change.read ?? existing?.read ?? 'READ';
    if (change.principal === nativePrincipalId && read !== 'READ') {
      throw new IntegrationAccessError('STORE_PRINCIPAL_ALWAYS_READS', `${at}: the service's own principal always reads "${change.attribute}"; it cannot be ${read}`, {
        entryIndex: index,
        attribute: change.attribute,
      });
    }
    const others = entries.filter((e) => e.attribute === change.attribute && e.principal !== change.principal);
    if (write === 'EXCLUSIVE_WRITE') {
      const manager = others.find((e) => isManager(e.write));
      if (manager) {
        throw new IntegrationAccessError(
          'EXCLUSIVE_WRITE_CONFLICT',
          `${at}: "${change.attribute}" cannot be managed exclusively by ${change.principal}: ${manager.principal} holds ${manager.write}; set it to OPEN or NO_WRITE first`,
          { entryIndex: index, attribute: change.attribute, principal: change.principal, heldBy: manager.principal, heldAs: manager.write },
        );
      }
    }
    if (write === 'WRITE') {
      const exclusive = others.find((e) => e.write === 'EXCLUSIVE_WRITE');
      if (exclusive) {
        throw new IntegrationAccessError('ATTRIBUTE_MANAGED_EXCLUSIVELY', `${at}: "${change.attribute}" is managed exclusively by ${exclusive.principal}; no other principal may write it`, {
          entryIndex: index,
          attribute: change.attribute,
          principal: change.principal,
          heldBy: exclusive.principal,
        });
      }
    }
    if (existing) Object.assign(existing, { write, read });
    else entries.push({ attribute: change.attribute, principal: change.principal, write, read });
  });
  if (entries.length > maxAccessEntries) {
    throw new InvalidInputError(`entries: the library's access policy would hold ${entries.length} designations; it holds at most ${maxAccessEntries}`, {
      field: 'entries',
      limit: maxAccessEntries,
    });
  }
  return { version: policy.version + 1, entries };
}

export function designationOf(policy: AccessPolicy, attribute: string, principal: string): AccessEntry {
  return policy.entries.find((e) => e.attribute === attribute && e.principal === principal) ?? { attribute, principal, write: 'OPEN', read: 'READ' };
}

/** The principals that manage an attribute (WRITE or EXCLUSIVE_WRITE); none means it is open. */
export function managersOf(policy: AccessPolicy, attribute: string): AccessEntry[] {
  return policy.entries.filter((e) => e.attribute === attribute && isManager(e.write));
}

export type WriteDecision = { allowed: true } | { allowed: false; code: 'ATTRIBUTE_WRITE_DENIED' | 'ATTRIBUTE_FROZEN'; reason: string; managers: string[] };

/**
 * May `principal` write `attribute` of a component linked to `links`? Open (no manager): yes, unless the
 * principal is designated NO_WRITE. Managed: only a linked manager; with no linked manager it is frozen.
 */
export function writeDecision(policy: AccessPolicy, principal: string, attribute: string, links: readonly string[]): WriteDecision {
  const own = designationOf(policy, attribute, principal);
  const managers = managersOf(policy, attribute).map((e) => e.principal);
  if (own.write === 'NO_WRITE') return { allowed: false, code: 'ATTRIBUTE_WRITE_DENIED', reason: `${principal} is designated NO_WRITE for "${attribute}"`, managers };
  if (managers.length === 0) return { allowed: true };
  const linkedManagers = managers.filter((m) => links.includes(m));
  if (linkedManagers.length === 0) {
    return {
      allowed: false,
      code: 'ATTRIBUTE_FROZEN',
      reason: `"${attribute}" is managed by ${managers.join(', ')}, none of them linked to this component: it is frozen until a manager is linked`,
      managers,
    };
  }
  if (linkedManagers.includes(principal)) return { allowed: true };
  return {
    allowed: false,
    code: 'ATTRIBUTE_WRITE_DENIED',
    reason: `"${attribute}" is managed by ${linkedManagers.join(', ')}${managers.includes(principal) ? `; ${principal} manages it too but is not linked to this component` : ''}`,
    managers,
  };
}

/** Whether `principal` is sent the value of `attribute` (the native principal always is). */
export function canRead(policy: AccessPolicy, principal: string, attribute: string): boolean {
  return principal === nativePrincipalId || designationOf(policy, attribute, principal).read === 'READ';
}

/**
 * Whether a history change's field is withheld (withheldAttributes): `attributeValues.<id>` of a withheld
 * attribute; `sourcing.part.<id>` and `sourcing.primary` when sourcing.parts is, `sourcing.quote.<id>` when
 * sourcing.quotes is (the changes carry the part's MPN and approval, the quote's prices). A kept
 * `sourcing.primary` still names the primary quote: withholdChanges takes it out.
 */
function isWithheldChange(field: string, withheld: ReadonlySet<string>): boolean {
  if (field.startsWith('attributeValues.')) return withheld.has(field.slice('attributeValues.'.length));
  if (field.startsWith('sourcing.part.') || field === 'sourcing.primary') return withheld.has('sourcing.parts');
  if (field.startsWith('sourcing.quote.')) return withheld.has('sourcing.quotes');
  return false;
}

/** A `sourcing.primary` value ({ partId, quoteId } or null) without its quote. */
const primaryPartOnly = (value: unknown): unknown => (value && typeof value === 'object' && 'partId' in value ? { partId: (value as { partId: unknown }).partId, quoteId: null } : value);

/**
 * A history record's changes as a principal with this withheld set reads them (Component.history and the
 * export, exportFor, both): withheld changes left out (isWithheldChange); with only sourcing.quotes withheld a
 * `sourcing.primary` change keeps its partId and has quoteId null, and is left out when only the quote changed.
 * A record all of whose changes are withheld keeps its place, with no changes: the reader sees that a version
 * was written, by whom and when, never what (the versions show it anyway: Component.version and updatedAt, the
 * version numbers of the records around it, expectedVersion; an export must hold versions 1 to version to be
 * imported). An integration's blind writes (lib/components/rules.ts blindAttributes) read this way to it.
 */
export function withholdChanges<C extends { field: string; from?: unknown; to?: unknown }>(changes: readonly C[], withheld: ReadonlySet<string>): C[] {
  if (withheld.size === 0) return [...changes];
  return changes.flatMap((change) => {
    if (isWithheldChange(change.field, withheld)) return [];
    if (change.field !== 'sourcing.primary' || !withheld.has('sourcing.quotes')) return [change];
    const from = primaryPartOnly(change.from);
    const to = primaryPartOnly(change.to);
    return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ ...change, from, to }];
  });
}

/** The attributes whose values are withheld from `principal`. */
export function withheldAttributes(policy: AccessPolicy, principal: string): ReadonlySet<string> {
  if (principal === nativePrincipalId) return new Set();
  return new Set(policy.entries.filter((e) => e.principal === principal && e.read !== 'READ').map((e) => e.attribute));
}

/**
 * Refuses a read that would reveal sourcing `withheld` from the caller (SourcingWithheldError, naming the
 * field asked and the first pseudo-attribute of `needs` withheld): search conditions on sourcing, the risks,
 * the cost roll-up.
 */
export function refuseWithheldSourcing(withheld: ReadonlySet<string>, field: string, needs: readonly SourcingAttribute[]): void {
  const missing = needs.find((attribute) => withheld.has(attribute));
  if (missing) throw new SourcingWithheldError(field, missing);
}

/**
 * The integration lock of a component for a caller: locked when a linked principal other than the caller
 * manages one of the component's attributes (so the caller cannot write it); integrationId names it,
 * an exclusive manager first.
 */
export function integrationLock(policy: AccessPolicy, principal: string, attributes: readonly string[], links: readonly string[]): { locked: boolean; integrationId: string | null } {
  const holders = attributes
    .flatMap((attribute) => managersOf(policy, attribute))
    .filter((e) => e.principal !== principal && links.includes(e.principal))
    .sort((a, b) => (a.write === b.write ? 0 : a.write === 'EXCLUSIVE_WRITE' ? -1 : 1));
  return holders.length ? { locked: true, integrationId: holders[0]!.principal } : { locked: false, integrationId: null };
}

/**
 * What an attribute suggests for a principal that would take it over: EXCLUSIVE_WRITE when nobody else
 * manages it, WRITE when others share it, NO_WRITE when another manages it exclusively.
 */
export function suggestedDesignation(policy: AccessPolicy, principal: string, attribute: string): WriteDesignation {
  const others = managersOf(policy, attribute).filter((e) => e.principal !== principal);
  if (others.some((e) => e.write === 'EXCLUSIVE_WRITE')) return 'NO_WRITE';
  return others.length ? 'WRITE' : 'EXCLUSIVE_WRITE';
}
