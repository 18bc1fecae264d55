import type { Store } from '../store/client.js';
import { getSourcing, type PartRecord, type QuoteRecord, type SourcingRecord } from '../store/sourcing.js';
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

const byRank = (a: PartRecord, b: PartRecord) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

export function sourcingView(s: SourcingRecord): ComponentSourcingView {
  return { componentId: s.componentId, parts: [...s.parts].sort(byRank).map((p) => partView(s, p)), primaryPartId: s.primaryPartId, primaryQuoteId: s.primaryQuoteId };
}

/** A component's sourcing (empty when it has none). */
export async function sourcingOf(store: Store, ref: LibraryRef, componentId: string): Promise<ComponentSourcingView> {
  const record = await getSourcing(store, ref.organizationId, ref.libraryId, componentId);
  return record ? sourcingView(record) : { componentId, parts: [], primaryPartId: null, primaryQuoteId: null };
}
