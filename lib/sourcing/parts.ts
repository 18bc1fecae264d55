import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import type { Store } from '../store/client.js';
import type { PartRecord, QuoteRecord, SourcingRecord } from '../store/sourcing.js';
import { resolveVendor } from './directory.js';
import { SourcingError } from './errors.js';
import { breaksOf, limits, parseInput, partInput, partUpdate, quoteInput, quoteUpdate } from './input.js';
import { partView, quoteView, sourcingView, type ComponentSourcingView, type PartView, type QuoteView } from './model.js';
import { changeSourcing, type SourcingActor } from './writes.js';

/** Manufacturer parts, their quotes and the primary source of a component (the approved manufacturer list). */

const amlOf = (p: PartRecord) => ({ manufacturerId: p.manufacturerId, mpn: p.mpn, approval: p.approval, lifecycle: p.lifecycle });
const quoteOf = (q: QuoteRecord) => ({
  distributorId: q.distributorId,
  distributorPartNumber: q.distributorPartNumber,
  currency: q.currency,
  priceBreaks: q.priceBreaks,
  moq: q.moq,
  orderMultiple: q.orderMultiple,
  stock: q.stock,
  leadTimeDays: q.leadTimeDays,
  validUntil: q.validUntil,
});

function findPart(sourcing: SourcingRecord, partId: string): PartRecord {
  const part = sourcing.parts.find((p) => p.id === partId);
  if (!part) throw new SourcingError('PART_NOT_FOUND', `Manufacturer part ${partId} is not a part of component ${sourcing.componentId}`, { field: 'partId', id: partId });
  return part;
}

function findQuote(sourcing: SourcingRecord, quoteId: string): { part: PartRecord; quote: QuoteRecord } {
  for (const part of sourcing.parts) {
    const quote = part.quotes.find((q) => q.id === quoteId);
    if (quote) return { part, quote };
  }
  throw new SourcingError('QUOTE_NOT_FOUND', `Quote ${quoteId} is not a quote of component ${sourcing.componentId}`, { field: 'id', id: quoteId });
}

/** One MPN per manufacturer once per component (MPNs compared case-insensitively). */
function checkUnique(parts: readonly PartRecord[], candidate: PartRecord): void {
  const clash = parts.find((p) => p.id !== candidate.id && p.manufacturerId === candidate.manufacturerId && p.mpn.toLowerCase() === candidate.mpn.toLowerCase());
  if (clash) throw new SourcingError('DUPLICATE_MPN', `MPN ${candidate.mpn} of this manufacturer is already part ${clash.id} of the component`, { field: 'mpn', partId: clash.id });
}

/**
 * The non-null fields of a Part or Quote answer that an update must send when the caller cannot read the row
 * (its answer is only what it sent: sentPart, sentQuote). Checked on the input alone, before the stored row
 * is read. Each entry: the field named in the refusal, and the input keys any one of which sends it.
 */
const partRequired: [string, string[]][] = [
  ['manufacturerId', ['manufacturerId', 'manufacturerName']],
  ['mpn', ['mpn']],
  ['lifecycle', ['lifecycle']],
  ['approval', ['approval']],
];
const quoteRequired: [string, string[]][] = [
  ['distributorId', ['distributorId', 'distributorName']],
  ['currency', ['currency']],
];
function requireSent(input: Record<string, unknown>, required: [string, string[]][], attribute: string): void {
  const missing = required.find(([, keys]) => keys.every((key) => input[key] === undefined || input[key] === null));
  if (missing) {
    throw new SourcingError('BAD_USER_INPUT', `${missing[0]}: required in an update by a caller from which ${attribute} is withheld (its answer carries only what it sends)`, {
      field: missing[0],
      reason: 'SOURCING_WITHHELD',
    });
  }
}

/**
 * A written part as a caller that cannot read it is answered: the ids and what this call sent, never the
 * stored values; fields not sent: null (description, datasheetUrl, rank), isLegacyImport false, isPrimary
 * false, no quotes, createdAt the write's time.
 */
function sentPart(input: z.infer<typeof partUpdate>, written: PartRecord, at: string): PartView {
  return {
    id: written.id,
    componentId: input.componentId,
    manufacturerId: written.manufacturerId,
    mpn: input.mpn ?? written.mpn,
    description: input.description ?? null,
    datasheetUrl: input.datasheetUrl ?? null,
    lifecycle: input.lifecycle ?? written.lifecycle,
    approval: input.approval ?? written.approval,
    rank: input.rank ?? null,
    isLegacyImport: input.isLegacyImport ?? false,
    isPrimary: false,
    quotes: [],
    createdAt: at,
    updatedAt: at,
  };
}

/** A quote's terms as the input gives them (absent: null; not legacy): a new quote's, or what a blind caller sent. */
function sentQuoteTerms(input: Omit<z.infer<typeof quoteUpdate>, 'id' | 'isLegacyImport'> & { isLegacyImport?: boolean | null | undefined }) {
  return {
    distributorPartNumber: input.distributorPartNumber ?? null,
    moq: input.moq ?? null,
    orderMultiple: input.orderMultiple ?? null,
    leadTimeDays: input.leadTimeDays ?? null,
    stock: input.stock ?? null,
    validUntil: input.validUntil ?? null,
    isLegacyImport: input.isLegacyImport ?? false,
  };
}

/** A written quote as a caller that cannot read it is answered (as sentPart): prices only when sent (else no breaks). */
function sentQuote(input: z.infer<typeof quoteUpdate>, written: QuoteRecord, partId: string, priceBreaks: QuoteRecord['priceBreaks'] | null, at: string): QuoteView {
  return {
    id: written.id,
    componentId: input.componentId,
    partId,
    distributorId: written.distributorId,
    ...sentQuoteTerms(input),
    currency: input.currency ?? written.currency,
    priceBreaks: priceBreaks ?? [],
    isPrimary: false,
    createdAt: at,
    updatedAt: at,
  };
}

const replacePart = (s: SourcingRecord, part: PartRecord): SourcingRecord => ({ ...s, parts: s.parts.map((p) => (p.id === part.id ? part : p)) });

export async function createPart(store: Store, actor: SourcingActor, raw: unknown): Promise<PartView> {
  const input = parseInput(partInput, raw);
  const manufacturer = await resolveVendor(store, actor.organizationId, 'MANUFACTURER', input.manufacturerId, input.manufacturerName);
  return changeSourcing(store, actor, input.componentId, 'sourcing.parts', (current, { at }) => {
    if (current.parts.length >= limits.partsPerComponent)
      throw new SourcingError('TOO_MANY_SOURCING_ROWS', `A component has at most ${limits.partsPerComponent} manufacturer parts`, { field: 'componentId' });
    const part: PartRecord = {
      id: randomUUID(),
      manufacturerId: manufacturer.id,
      mpn: input.mpn,
      description: input.description ?? null,
      datasheetUrl: input.datasheetUrl ?? null,
      lifecycle: input.lifecycle ?? 'UNKNOWN',
      approval: input.approval ?? 'NOT_APPROVED',
      rank: input.rank ?? null,
      isLegacyImport: input.isLegacyImport ?? false,
      quotes: [],
      createdAt: at,
      updatedAt: at,
    };
    checkUnique(current.parts, part);
    const next = { ...current, parts: [...current.parts, part] };
    return { next, changes: [{ field: `sourcing.part.${part.id}`, from: null, to: amlOf(part) }], amlChange: true, result: partView(next, part) };
  });
}

export async function updatePart(store: Store, actor: SourcingActor, raw: unknown): Promise<PartView> {
  const input = parseInput(partUpdate, raw);
  const manufacturer = input.manufacturerId || input.manufacturerName ? await resolveVendor(store, actor.organizationId, 'MANUFACTURER', input.manufacturerId, input.manufacturerName) : null;
  return changeSourcing(store, actor, input.componentId, 'sourcing.parts', (current, { at, readsRow }) => {
    // A caller who cannot read the part is answered what it sends (sentPart): the non-null fields must be sent.
    if (!readsRow) requireSent(input, partRequired, 'sourcing.parts');
    const before = findPart(current, input.id);
    const after: PartRecord = {
      ...before,
      manufacturerId: manufacturer?.id ?? before.manufacturerId,
      mpn: input.mpn ?? before.mpn,
      description: input.description === undefined ? before.description : input.description,
      datasheetUrl: input.datasheetUrl === undefined ? before.datasheetUrl : input.datasheetUrl,
      lifecycle: input.lifecycle ?? before.lifecycle,
      approval: input.approval ?? before.approval,
      rank: input.rank === undefined ? before.rank : input.rank,
      isLegacyImport: input.isLegacyImport ?? before.isLegacyImport,
      updatedAt: at,
    };
    checkUnique(current.parts, after);
    if (current.primaryPartId === after.id && after.approval !== 'APPROVED') {
      throw new SourcingError('PRIMARY_NOT_APPROVED', `Part ${after.id} is the primary source: only an APPROVED part may be primary; move or clear the primary source first`, { field: 'approval' });
    }
    // For a caller who cannot read the part, from what it sent (it always sends approval, manufacturer and
    // MPN): the component's state (RELEASED → MODIFIED) must not tell it whether they differed from the stored ones.
    const amlChange = readsRow ? after.approval !== before.approval || after.manufacturerId !== before.manufacturerId || after.mpn !== before.mpn : true;
    const next = replacePart(current, after);
    return {
      next,
      changes: [{ field: `sourcing.part.${after.id}`, from: { ...amlOf(before), rank: before.rank }, to: { ...amlOf(after), rank: after.rank } }],
      amlChange,
      result: readsRow ? partView(next, after) : sentPart(input, after, at),
    };
  });
}

/** Removes a part with its quotes; the primary source goes with it when it was the primary part. */
export async function deletePart(store: Store, actor: SourcingActor, componentId: string, partId: string): Promise<ComponentSourcingView> {
  return changeSourcing(store, actor, componentId, 'sourcing.parts', (current) => {
    const part = findPart(current, partId);
    const wasPrimary = current.primaryPartId === partId;
    const next: SourcingRecord = { ...current, parts: current.parts.filter((p) => p.id !== partId), ...(wasPrimary ? { primaryPartId: null, primaryQuoteId: null } : {}) };
    const changes = [
      { field: `sourcing.part.${partId}`, from: amlOf(part), to: null },
      ...(wasPrimary ? [{ field: 'sourcing.primary', from: { partId, quoteId: current.primaryQuoteId }, to: null }] : []),
    ];
    return { next, changes, amlChange: true, result: sourcingView(next) };
  });
}

export async function createQuote(store: Store, actor: SourcingActor, raw: unknown): Promise<QuoteView> {
  const input = parseInput(quoteInput, raw);
  const priceBreaks = breaksOf(input);
  const distributor = await resolveVendor(store, actor.organizationId, 'DISTRIBUTOR', input.distributorId, input.distributorName);
  return changeSourcing(store, actor, input.componentId, 'sourcing.quotes', (current, { at }) => {
    const part = findPart(current, input.partId);
    if (part.quotes.length >= limits.quotesPerPart) throw new SourcingError('TOO_MANY_SOURCING_ROWS', `A manufacturer part has at most ${limits.quotesPerPart} quotes`, { field: 'partId' });
    const quote: QuoteRecord = {
      id: randomUUID(),
      distributorId: distributor.id,
      ...sentQuoteTerms(input),
      currency: input.currency,
      priceBreaks,
      createdAt: at,
      updatedAt: at,
    };
    const next = replacePart(current, { ...part, quotes: [...part.quotes, quote] });
    return { next, changes: [{ field: `sourcing.quote.${quote.id}`, from: null, to: quoteOf(quote) }], amlChange: false, result: quoteView(next, part.id, quote) };
  });
}

export async function updateQuote(store: Store, actor: SourcingActor, raw: unknown): Promise<QuoteView> {
  const input = parseInput(quoteUpdate, raw);
  const pricesGiven = input.priceBreaks !== undefined || input.unitPrice !== undefined;
  const priceBreaks = pricesGiven ? breaksOf(input) : null;
  const distributor = input.distributorId || input.distributorName ? await resolveVendor(store, actor.organizationId, 'DISTRIBUTOR', input.distributorId, input.distributorName) : null;
  return changeSourcing(store, actor, input.componentId, 'sourcing.quotes', (current, { at, readsRow }) => {
    // A caller who cannot read the quote is answered what it sends (sentQuote): the non-null fields must be sent.
    if (!readsRow) requireSent(input, quoteRequired, 'sourcing.quotes');
    const { part, quote: before } = findQuote(current, input.id);
    const keep = <K extends keyof QuoteRecord>(key: K, value: QuoteRecord[K] | undefined): QuoteRecord[K] => (value === undefined ? before[key] : value);
    const after: QuoteRecord = {
      ...before,
      distributorId: distributor?.id ?? before.distributorId,
      distributorPartNumber: keep('distributorPartNumber', input.distributorPartNumber),
      currency: input.currency ?? before.currency,
      priceBreaks: priceBreaks ?? before.priceBreaks,
      moq: keep('moq', input.moq),
      orderMultiple: keep('orderMultiple', input.orderMultiple),
      leadTimeDays: keep('leadTimeDays', input.leadTimeDays),
      stock: keep('stock', input.stock),
      validUntil: keep('validUntil', input.validUntil),
      isLegacyImport: input.isLegacyImport ?? before.isLegacyImport,
      updatedAt: at,
    };
    const next = replacePart(current, { ...part, quotes: part.quotes.map((q) => (q.id === after.id ? after : q)) });
    return {
      next,
      changes: [{ field: `sourcing.quote.${after.id}`, from: quoteOf(before), to: quoteOf(after) }],
      amlChange: false,
      result: readsRow ? quoteView(next, part.id, after) : sentQuote(input, after, part.id, priceBreaks, at),
    };
  });
}

export async function deleteQuote(store: Store, actor: SourcingActor, componentId: string, quoteId: string): Promise<ComponentSourcingView> {
  // A quote write also when the quote was the primary quote (the primary source keeps its part, loses the quote).
  return changeSourcing(store, actor, componentId, 'sourcing.quotes', (current) => {
    const { part, quote } = findQuote(current, quoteId);
    const wasPrimary = current.primaryQuoteId === quoteId;
    const next: SourcingRecord = { ...replacePart(current, { ...part, quotes: part.quotes.filter((q) => q.id !== quoteId) }), ...(wasPrimary ? { primaryQuoteId: null } : {}) };
    const changes = [
      { field: `sourcing.quote.${quoteId}`, from: quoteOf(quote), to: null },
      ...(wasPrimary ? [{ field: 'sourcing.primary', from: { partId: current.primaryPartId, quoteId }, to: { partId: current.primaryPartId, quoteId: null } }] : []),
    ];
    return { next, changes, amlChange: false, result: sourcingView(next) };
  });
}

/**
 * Marks the primary source: an APPROVED part of the component and, optionally, one of its quotes (the one a
 * cost roll-up prices). partId null clears it.
 */
export async function setPrimarySource(store: Store, actor: SourcingActor, input: { componentId: string; partId?: string | null; quoteId?: string | null }): Promise<ComponentSourcingView> {
  return changeSourcing(store, actor, input.componentId, 'sourcing.parts', (current) => {
    let partId: string | null = null;
    let quoteId: string | null = null;
    // An id is an id: an empty string names no part or quote (it is not null, which clears), never ignored.
    if (input.partId !== null && input.partId !== undefined) {
      const part = findPart(current, input.partId);
      if (part.approval !== 'APPROVED') throw new SourcingError('PRIMARY_NOT_APPROVED', `Part ${part.id} is ${part.approval}: only an APPROVED part may be the primary source`, { field: 'partId' });
      partId = part.id;
      if (input.quoteId !== null && input.quoteId !== undefined) {
        if (!part.quotes.some((q) => q.id === input.quoteId)) throw new SourcingError('QUOTE_NOT_FOUND', `Quote ${input.quoteId} is not a quote of part ${part.id}`, { field: 'quoteId' });
        quoteId = input.quoteId;
      }
    } else if (input.quoteId !== null && input.quoteId !== undefined) {
      throw new SourcingError('BAD_USER_INPUT', 'quoteId needs the partId it belongs to', { field: 'quoteId' });
    }
    const next = { ...current, primaryPartId: partId, primaryQuoteId: quoteId };
    const changes = [{ field: 'sourcing.primary', from: current.primaryPartId ? { partId: current.primaryPartId, quoteId: current.primaryQuoteId } : null, to: partId ? { partId, quoteId } : null }];
    return { next, changes, amlChange: false, result: sourcingView(next) };
  });
}
