import type { Store } from '../store/client.js';
import { getComponents, normalizeMpn } from '../store/component.js';
import { findMpnIndex, getSourcing, getSourcings, type PartRecord, type QuoteRecord, type SourcingRecord } from '../store/sourcing.js';
import { SourcingError } from './errors.js';
import type { LibraryRef } from '../model/scope.js';

/** The sourcing domain's types, as resolvers and GraphQL mappers see them. */
export type { VendorRecord as Vendor, ExchangeRatesRecord } from '../store/sourcing.js';

export interface QuoteView extends QuoteRecord {
  componentId: string;
  partId: string;
  isPrimary: boolean;
}

export interface PartView extends Omit<PartRecord, 'quotes'> {
  componentId: string;
  isPrimary: boolean;
  quotes: QuoteView[];
}

export interface ComponentSourcingView {
  componentId: string;
  /** By rank (unranked last), then creation. */
  parts: PartView[];
  primaryPartId: string | null;
  primaryQuoteId: string | null;
}

export function quoteView(s: SourcingRecord, partId: string, quote: QuoteRecord): QuoteView {
  return { ...quote, componentId: s.componentId, partId, isPrimary: s.primaryQuoteId === quote.id };
}

export function partView(s: SourcingRecord, part: PartRecord): PartView {
  return { ...part, componentId: s.componentId, isPrimary: s.primaryPartId === part.id, quotes: part.quotes.map((q) => quoteView(s, part.id, q)) };
}

/**
 * By rank, then creation; parts created at one time (a CSV import) keep their stored order (the sort is
 * stable), which is the order of the sheet's rows, never the order of their random ids.
 */
export const byRank = (a: Pick<PartRecord, 'rank' | 'createdAt'>, b: Pick<PartRecord, 'rank' | 'createdAt'>) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || a.createdAt.localeCompare(b.createdAt);

export function sourcingView(s: SourcingRecord): ComponentSourcingView {
  return { componentId: s.componentId, parts: [...s.parts].sort(byRank).map((p) => partView(s, p)), primaryPartId: s.primaryPartId, primaryQuoteId: s.primaryQuoteId };
}

/**
 * The view an integration receives when its read designation (RECEIVE_ONLY or NO_ACCESS) withholds a
 * sourcing pseudo-attribute: without `sourcing.parts` no parts (so no quotes) and no primary source;
 * without `sourcing.quotes` the parts without their quotes and no primary quote.
 */
export function withholdSourcing<S extends SourcingShape>(view: S, withheld: ReadonlySet<string>): S {
  if (withheld.has('sourcing.parts')) return { ...view, parts: [], primaryPartId: null, primaryQuoteId: null };
  if (withheld.has('sourcing.quotes')) return { ...view, parts: view.parts.map(withholdQuotes), primaryQuoteId: null };
  return view;
}

/** What withholdSourcing reads of a component's sourcing: the view's, and the export's (lib/transfer). */
interface SourcingShape {
  parts: readonly { quotes: readonly unknown[] }[];
  primaryPartId: string | null;
  primaryQuoteId: string | null;
}

/** A part as withheld quotes leave it (findPartsByMpn: parts withheld give no part at all). */
export const withholdQuotes = <P extends { quotes: readonly unknown[] }>(part: P): P => ({ ...part, quotes: [] });

/** A component's sourcing (empty when it has none). */
export async function sourcingOf(store: Store, ref: LibraryRef, componentId: string): Promise<ComponentSourcingView> {
  const record = await getSourcing(store, ref.organizationId, ref.libraryId, componentId);
  return record ? sourcingView(record) : { componentId, parts: [], primaryPartId: null, primaryQuoteId: null };
}

/**
 * Manufacturer parts of the library with this MPN (compared normalized: no spaces, case-insensitive), by
 * component id: one Query of the MPN index, then the sourcing items and components named (BatchGetItem per
 * 100). Parts of deleted components are left out.
 */
export async function findPartsByMpn(store: Store, ref: LibraryRef, mpn: string): Promise<PartView[]> {
  const wanted = normalizeMpn(mpn);
  if (wanted === '' || wanted.length > 255) throw new SourcingError('BAD_USER_INPUT', 'mpn: 1 to 255 characters', { field: 'mpn' });
  const entries = await findMpnIndex(store, ref.organizationId, ref.libraryId, wanted);
  const ids = [...new Set(entries.map((e) => e.componentId))].sort();
  if (ids.length === 0) return [];
  const [sourcing, components] = await Promise.all([getSourcings(store, ref.organizationId, ref.libraryId, ids), getComponents(store, ref.organizationId, ref.libraryId, ids)]);
  return ids.flatMap((id) => {
    const s = sourcing.get(id);
    if (!s || !components.has(id)) return [];
    return s.parts.filter((p) => normalizeMpn(p.mpn) === wanted).map((p) => partView(s, p));
  });
}
