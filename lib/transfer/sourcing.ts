import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { ConcurrentWriteError, type ImportProblem } from '../errors.js';
import type { LibraryRef } from '../model/scope.js';
import { limits, mpnProblem, normalizeName, rateProblem, storedRowProblems, vendorNameProblem } from '../sourcing/input.js';
import { isCurrency } from '../sourcing/pricing.js';
import { mpnIndexChanges, sourcingIndexOf } from '../sourcing/writes.js';
import type { Store } from '../store/client.js';
import type { ComponentRecord } from '../store/component.js';
import type { HistoryChange } from '../store/componentHistory.js';
import { storableNumberProblem } from '../numbers.js';
import {
  exchangeRatesPut,
  getExchangeRates,
  listSourcings,
  listVendors,
  partRecord,
  quoteRecord,
  sourcingKey,
  vendorKinds,
  vendorNameClaim,
  vendorPut,
  type ExchangeRatesRecord,
  type SourcingRecord,
  type VendorKind,
  type VendorRecord,
} from '../store/sourcing.js';
import { SourcingError } from '../sourcing/errors.js';
import { transactWrite, type WriteItem } from '../store/items.js';

/**
 * Sourcing in the library export (format.ts): the organization's vendor directory and the library's exchange
 * rates in the manifest (`sourcing`), each component's manufacturer parts, quotes and primary source in the
 * component (`sourcing`). Vendors belong to the organization: an import matches each exported vendor to one of
 * the target organization's by its name or an alias (per kind, case-insensitively, whitespace collapsed) or
 * creates it, and rewrites every vendor id (parts, quotes, history changes). A component's `sourcingIndex`
 * (what search filters on) is derived anew from the parts imported; the file's is not read. Part and quote
 * ids are kept (they are scoped by their component).
 */

export const exportedVendor = z.object({
  id: z.string().min(1),
  kind: z.enum(vendorKinds),
  name: z.string().trim().min(1).max(limits.text),
  website: z.string().nullable(),
  aliases: z.array(z.string().trim().min(1).max(limits.text)).max(limits.aliases),
});
export type ExportedVendor = z.infer<typeof exportedVendor>;

export const exportedManifestSourcing = z.object({
  vendors: z.array(exportedVendor),
  /** The library's exchange rates (null: the library never set any). */
  exchangeRates: z.object({ baseCurrency: z.string(), rates: z.record(z.string(), z.number()) }).nullable(),
});
export type ExportedManifestSourcing = z.infer<typeof exportedManifestSourcing>;

/** A component's sourcing item as stored but its rev; vendor ids are references to `sourcing.vendors`. */
export const exportedComponentSourcing = z.object({
  parts: z.array(
    partRecord.extend({
      manufacturerId: z.string().min(1),
      quotes: z.array(
        quoteRecord.extend({
          distributorId: z.string().min(1),
          priceBreaks: z.array(z.object({ minQuantity: z.number(), unitPrice: z.number().nullable() })),
        }),
      ),
    }),
  ),
  primaryPartId: z.string().nullable(),
  primaryQuoteId: z.string().nullable(),
  updatedAt: z.string(),
});
export type ExportedComponentSourcing = z.infer<typeof exportedComponentSourcing>;

const byKindAndName = (a: VendorRecord, b: VendorRecord) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);

/** The directory, the rates and every sourcing item of the library (two Queries and a GetItem). */
export async function exportSourcing(store: Store, ref: LibraryRef): Promise<{ manifest: ExportedManifestSourcing; byComponent: Map<string, ExportedComponentSourcing> }> {
  const [vendors, rates, sourcings] = await Promise.all([
    listVendors(store, ref.organizationId),
    getExchangeRates(store, ref.organizationId, ref.libraryId),
    listSourcings(store, ref.organizationId, ref.libraryId),
  ]);
  return {
    manifest: {
      vendors: vendors.sort(byKindAndName).map((v) => ({ id: v.id, kind: v.kind, name: v.name, website: v.website, aliases: v.aliases })),
      exchangeRates: rates ? { baseCurrency: rates.baseCurrency, rates: rates.rates } : null,
    },
    byComponent: new Map(sourcings.map((s) => [s.componentId, { parts: s.parts, primaryPartId: s.primaryPartId, primaryQuoteId: s.primaryQuoteId, updatedAt: s.updatedAt }])),
  };
}

/** What an import does with the sourcing: the vendor id map and the vendors it creates (validated, nothing written). */
export interface SourcingPlan {
  vendorIds: Map<string, string>;
  create: VendorRecord[];
  exchangeRates: ExchangeRatesRecord | null;
  previousRatesVersion: number;
}

/**
 * Every problem of the sourcing of an import, with its path and code (as the sourcing writes check them:
 * vendors of the right kind, currencies, prices, limits, one MPN per manufacturer, the primary source), and
 * the plan: each exported vendor matched to one of the target organization's by a name or alias, or created.
 * Reads the target's directory and rates; writes nothing.
 */
export async function planSourcing(
  store: Store,
  target: LibraryRef,
  sourcing: ExportedManifestSourcing | undefined,
  components: { sourcing?: ExportedComponentSourcing | null }[],
  paths: { manifest: string; component: (i: number) => string },
  actor: { userId: string; at: string },
  problems: ImportProblem[],
): Promise<SourcingPlan> {
  const problem = (path: string, code: string, message: string) => problems.push({ path, code, message });
  const vendors = sourcing?.vendors ?? [];
  const [existing, currentRates] = await Promise.all([listVendors(store, target.organizationId), getExchangeRates(store, target.organizationId, target.libraryId)]);
  const claimed = new Map<string, VendorRecord>();
  for (const v of existing) for (const name of [v.name, ...v.aliases]) claimed.set(`${v.kind}#${normalizeName(name)}`, v);

  const vendorIds = new Map<string, string>();
  const kindOf = new Map<string, VendorKind>();
  const create: VendorRecord[] = [];
  const exportNames = new Map<string, number>();
  for (const [i, v] of vendors.entries()) {
    const where = `${paths.manifest}sourcing.vendors[${i}]`;
    if (kindOf.has(v.id)) problem(`${where}.id`, 'DUPLICATE_ID', `vendor id ${v.id} appears twice`);
    for (const { field, message } of storedRowProblems('vendor', v)) problem(`${where}.${field}`, 'BAD_USER_INPUT', message);
    for (const [k, name] of [v.name, ...v.aliases].entries()) {
      const invalid = vendorNameProblem(name);
      if (invalid) problem(`${where}.${k === 0 ? 'name' : `aliases[${k - 1}]`}`, 'BAD_USER_INPUT', invalid);
    }
    kindOf.set(v.id, v.kind);
    const names = [...new Set([v.name, ...v.aliases].map(normalizeName))];
    for (const name of names) {
      const other = exportNames.get(`${v.kind}#${name}`);
      if (other !== undefined) problem(`${where}.name`, 'ALREADY_EXISTS', `"${name}" is also a name of ${paths.manifest}sourcing.vendors[${other}]`);
      else exportNames.set(`${v.kind}#${name}`, i);
    }
    const matches = [...new Set(names.map((n) => claimed.get(`${v.kind}#${n}`)).filter((m): m is VendorRecord => m !== undefined))];
    if (matches.length > 1) {
      problem(where, 'VENDOR_AMBIGUOUS', `the names of ${v.name} reach ${matches.length} ${v.kind.toLowerCase()}s of the organization (${matches.map((m) => m.name).join(', ')})`);
    } else if (matches.length === 1) vendorIds.set(v.id, matches[0]!.id);
    else {
      const id = randomUUID();
      vendorIds.set(v.id, id);
      const display = new Map<string, string>();
      for (const n of [v.name, ...v.aliases]) if (!display.has(normalizeName(n))) display.set(normalizeName(n), n);
      create.push({
        id,
        organizationId: target.organizationId,
        kind: v.kind,
        name: v.name,
        website: v.website,
        aliases: [...display.values()].slice(1),
        rev: 1,
        createdAt: actor.at,
        updatedAt: actor.at,
      });
    }
  }

  const vendorProblem = (path: string, id: string, kind: VendorKind) => {
    if (kindOf.get(id) !== kind) problem(path, `${kind}_NOT_FOUND`, `${id} is not a ${kind.toLowerCase()} of ${paths.manifest}sourcing.vendors`);
  };
  for (const [i, c] of components.entries()) {
    const where = `${paths.component(i)}`;
    const s = c.sourcing;
    if (!s) continue;
    if (s.parts.length > limits.partsPerComponent) problem(`${where}.sourcing.parts`, 'TOO_MANY_SOURCING_ROWS', `a component has at most ${limits.partsPerComponent} manufacturer parts`);
    const ids = new Set<string>();
    const mpns = new Map<string, number>();
    for (const [j, part] of s.parts.entries()) {
      const at = `${where}.sourcing.parts[${j}]`;
      if (ids.has(part.id)) problem(`${at}.id`, 'DUPLICATE_ID', `part id ${part.id} appears twice`);
      ids.add(part.id);
      vendorProblem(`${at}.manufacturerId`, part.manufacturerId, 'MANUFACTURER');
      const badMpn = mpnProblem(part.mpn);
      if (badMpn) problem(`${at}.mpn`, 'BAD_USER_INPUT', badMpn);
      for (const { field, message } of storedRowProblems('part', part)) problem(`${at}.${field}`, 'BAD_USER_INPUT', message);
      const key = `${part.manufacturerId}#${part.mpn.toLowerCase()}`;
      if (mpns.has(key)) problem(`${at}.mpn`, 'DUPLICATE_MPN', `MPN ${part.mpn} of this manufacturer is also ${where}.sourcing.parts[${mpns.get(key)}]`);
      else mpns.set(key, j);
      if (part.quotes.length > limits.quotesPerPart) problem(`${at}.quotes`, 'TOO_MANY_SOURCING_ROWS', `a manufacturer part has at most ${limits.quotesPerPart} quotes`);
      for (const [q, quote] of part.quotes.entries()) {
        const qAt = `${at}.quotes[${q}]`;
        if (ids.has(quote.id)) problem(`${qAt}.id`, 'DUPLICATE_ID', `quote id ${quote.id} appears twice`);
        ids.add(quote.id);
        vendorProblem(`${qAt}.distributorId`, quote.distributorId, 'DISTRIBUTOR');
        for (const { field, message } of storedRowProblems('quote', quote)) problem(`${qAt}.${field}`, 'BAD_USER_INPUT', message);
        if (!isCurrency(quote.currency)) problem(`${qAt}.currency`, 'UNKNOWN_CURRENCY', `${quote.currency} is not an ISO 4217 currency code`);
        if (quote.priceBreaks.length > limits.priceBreaksPerQuote) problem(`${qAt}.priceBreaks`, 'TOO_MANY_SOURCING_ROWS', `a quote has at most ${limits.priceBreaksPerQuote} price breaks`);
        const seen = new Set<number>();
        for (const [b, pb] of quote.priceBreaks.entries()) {
          // At most 1,000,000,000 as createQuote takes it: PriceBreak.minQuantity is a GraphQL Int.
          if (!Number.isInteger(pb.minQuantity) || pb.minQuantity < 1 || pb.minQuantity > 1_000_000_000 || seen.has(pb.minQuantity))
            problem(`${qAt}.priceBreaks[${b}].minQuantity`, 'BAD_USER_INPUT', `minQuantity is a whole number from 1 to 1,000,000,000, once per quote (got ${pb.minQuantity})`);
          seen.add(pb.minQuantity);
          if (pb.unitPrice !== null && (storableNumberProblem(pb.unitPrice) !== null || pb.unitPrice < 0 || pb.unitPrice > 1e9))
            problem(`${qAt}.priceBreaks[${b}].unitPrice`, 'INVALID_PRICE', `a unit price is a finite number from 0 to 1,000,000,000 (got ${pb.unitPrice})`);
        }
      }
    }
    if (s.primaryPartId !== null) {
      const part = s.parts.find((p) => p.id === s.primaryPartId);
      if (!part) problem(`${where}.sourcing.primaryPartId`, 'PART_NOT_FOUND', `${s.primaryPartId} is not a part of the component`);
      else if (part.approval !== 'APPROVED') problem(`${where}.sourcing.primaryPartId`, 'PRIMARY_NOT_APPROVED', `the primary part ${part.mpn} is ${part.approval}`);
      else if (s.primaryQuoteId !== null && !part.quotes.some((q) => q.id === s.primaryQuoteId))
        problem(`${where}.sourcing.primaryQuoteId`, 'QUOTE_NOT_FOUND', `${s.primaryQuoteId} is not a quote of the primary part`);
    } else if (s.primaryQuoteId !== null) problem(`${where}.sourcing.primaryQuoteId`, 'BAD_USER_INPUT', 'a primary quote needs its primary part');
  }

  let exchangeRates: ExchangeRatesRecord | null = null;
  const rates = sourcing?.exchangeRates;
  if (rates) {
    const where = `${paths.manifest}sourcing.exchangeRates`;
    if (!isCurrency(rates.baseCurrency)) problem(`${where}.baseCurrency`, 'UNKNOWN_CURRENCY', `${rates.baseCurrency} is not an ISO 4217 currency code`);
    for (const [currency, rate] of Object.entries(rates.rates)) {
      if (!isCurrency(currency)) problem(`${where}.rates.${currency}`, 'UNKNOWN_CURRENCY', `${currency} is not an ISO 4217 currency code`);
      // The rule setExchangeRates applies: a rate DynamoDB cannot keep failed the import's commit after validation passed.
      const invalid = rateProblem(rate);
      if (invalid) problem(`${where}.rates.${currency}`, 'BAD_USER_INPUT', invalid);
      if (currency === rates.baseCurrency) problem(`${where}.rates.${currency}`, 'BAD_USER_INPUT', `${currency} is the base currency (its rate is 1)`);
    }
    exchangeRates = { baseCurrency: rates.baseCurrency, rates: rates.rates, version: (currentRates?.version ?? 0) + 1, updatedAt: actor.at, updatedBy: actor.userId };
  }
  return { vendorIds, create, exchangeRates, previousRatesVersion: currentRates?.version ?? 0 };
}

/** Rewrites the vendor ids of a history change of sourcing (`sourcing.part.<id>`: manufacturerId, `sourcing.quote.<id>`: distributorId). */
export function mapSourcingChange(change: HistoryChange, vendorIds: Map<string, string>): HistoryChange {
  const field = change.field.startsWith('sourcing.part.') ? 'manufacturerId' : change.field.startsWith('sourcing.quote.') ? 'distributorId' : null;
  if (!field) return change;
  const map = (value: unknown) => {
    if (!value || typeof value !== 'object') return value;
    const id = (value as Record<string, unknown>)[field];
    return typeof id === 'string' && vendorIds.has(id) ? { ...value, [field]: vendorIds.get(id) } : value;
  };
  return { ...change, from: map(change.from), to: map(change.to) };
}

/** The sourcing item and MPN index items of an imported component (vendor ids rewritten), and its sourcingIndex. */
export function sourcingItems(
  target: LibraryRef,
  componentId: string,
  exported: ExportedComponentSourcing,
  vendorIds: Map<string, string>,
): { items: Record<string, unknown>[]; sourcingIndex: NonNullable<ComponentRecord['sourcingIndex']> } {
  const map = (id: string) => vendorIds.get(id) ?? id;
  const record: SourcingRecord = {
    componentId,
    // Price breaks by minQuantity, as createQuote keeps them (Quote.unitPrice is the smallest break's price).
    parts: exported.parts.map((p) => ({
      ...p,
      manufacturerId: map(p.manufacturerId),
      quotes: p.quotes.map((q) => ({ ...q, distributorId: map(q.distributorId), priceBreaks: [...q.priceBreaks].sort((a, b) => a.minQuantity - b.minQuantity) })),
    })),
    primaryPartId: exported.primaryPartId,
    primaryQuoteId: exported.primaryQuoteId,
    rev: 1,
    updatedAt: exported.updatedAt,
  };
  const empty: SourcingRecord = { ...record, parts: [], primaryPartId: null, primaryQuoteId: null };
  const index = mpnIndexChanges(target.organizationId, target.libraryId, empty, record).map((w) => (w as { Put: { Item: Record<string, unknown> } }).Put.Item);
  return { items: [{ ...sourcingKey(target.organizationId, target.libraryId, componentId), entity: 'Sourcing', ...record }, ...index], sourcingIndex: sourcingIndexOf(record) };
}

/** The exchange rates item of the import's commit transaction (conditioned on the version read). */
export function ratesCommitItem(target: LibraryRef, plan: SourcingPlan): Record<string, unknown> | null {
  if (!plan.exchangeRates) return null;
  const conflict = () => new ConcurrentWriteError("The library's exchange rates (changed during the import)");
  return exchangeRatesPut(target.organizationId, target.libraryId, plan.exchangeRates, plan.previousRatesVersion, conflict) as unknown as Record<string, unknown>;
}

/**
 * Creates the vendors the plan creates, one transaction each (the vendor and its name claims: a name claimed
 * meanwhile is ALREADY_EXISTS), each item tagged with the import's id. Adds the keys written to `written`, so
 * that a failed import deletes them (and import-abort finds them by the tag).
 */
export async function createPlannedVendors(store: Store, plan: SourcingPlan, importId: string, written: { PK: string; SK: string }[]): Promise<void> {
  for (const vendor of plan.create) {
    const names = new Map<string, string>();
    for (const n of [vendor.name, ...vendor.aliases]) if (!names.has(normalizeName(n))) names.set(normalizeName(n), n);
    const items: WriteItem[] = [
      vendorPut(vendor, null, () => new SourcingError('ALREADY_EXISTS', `vendor ${vendor.id} exists`)),
      ...[...names].map(([n, original]) =>
        vendorNameClaim(
          vendor.organizationId,
          vendor.kind,
          n,
          vendor.id,
          () => new SourcingError('ALREADY_EXISTS', `A ${vendor.kind.toLowerCase()} named "${original}" was created during the import`, { name: original }),
        ),
      ),
    ];
    // Tagged with the import's id, so that import-abort finds them after a crash.
    for (const item of items) (item as { Put: { Item: Record<string, unknown> } }).Put.Item.importId = importId;
    await transactWrite(store, items);
    for (const item of items) {
      const put = (item as { Put: { Item: Record<string, unknown> } }).Put.Item;
      written.push({ PK: put.PK as string, SK: put.SK as string });
    }
  }
}
