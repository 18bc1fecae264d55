import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetItems, batchGetRecords, getItem, keyString, parseItem, queryPrefix, type Key, type WriteItem } from './items.js';
import { bomKey, bomRecord, type BomRecord } from './bom.js';
import { componentKey, componentRecord, type ComponentRecord } from './component.js';
import { libraryPartition } from './library.js';
/** The organization's partition (directory items live beside its members and roles). */
const organizationPartition = (orgId: string) => `ORG#${orgId}`;

/**
 * Sourcing (lib/sourcing/): the organization's directory of manufacturers and distributors, and one item per
 * component holding its manufacturer parts, their quotes and the primary source (like a BOM: one item, so
 * uniqueness of an MPN per manufacturer and the primary-source rule are checked on one record, and a cost
 * roll-up reads 100 components per BatchGetItem). The library's exchange rates are one item.
 */
export const vendorKinds = ['MANUFACTURER', 'DISTRIBUTOR'] as const;
export type VendorKind = (typeof vendorKinds)[number];

export const vendorKey = (orgId: string, vendorId: string) => ({ PK: organizationPartition(orgId), SK: `VENDOR#${vendorId}` });
/**
 * The form vendor names and aliases are compared in (the key of their claims): Unicode NFKC, so that a name
 * written with composed or decomposed accents (Würth), or in full-width letters (ＴＤＫ), is one name;
 * whitespace collapsed; lower case.
 */
export const normalizeVendorName = (name: string) => name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The most bytes (UTF-8) of a normalized vendor name, the sort key of its claim (at most 1,024 bytes in
 * DynamoDB): every 255-character name of the Basic Multilingual Plane fits; NFKC grows a few characters
 * (one Arabic ligature becomes 18), so 255 of those would not.
 */
export const maxVendorNameKeyBytes = 765;
export const vendorNameFits = (normalizedName: string) => Buffer.byteLength(normalizedName, 'utf8') <= maxVendorNameKeyBytes;

/** One per name and per alias of a vendor: names are unique per kind in the organization, case-insensitively. */
export const vendorNameKey = (orgId: string, kind: VendorKind, normalizedName: string) => ({ PK: organizationPartition(orgId), SK: `VENDORNAME#${kind}#${normalizedName}` });
export const sourcingKey = (orgId: string, libraryId: string, componentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `SRC#${componentId}` });
export const exchangeRatesKey = (orgId: string, libraryId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: 'SRCRATES' });
/**
 * One per normalized MPN and component that has a part of that MPN: findPartsByMpn is one Query of
 * `MPN#<mpn>#`. Owned by the component's sourcing item (written in its transaction, conditioned through it),
 * so two components never contend for an MPN.
 */
export const mpnIndexKey = (orgId: string, libraryId: string, mpn: string, componentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `MPN#${mpn}#${componentId}` });

export const vendorRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  kind: z.enum(vendorKinds),
  name: z.string(),
  website: z.string().nullable(),
  aliases: z.array(z.string()),
  rev: z.number().int().positive(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type VendorRecord = z.infer<typeof vendorRecord>;

export const lifecycles = ['ACTIVE', 'NRND', 'LAST_TIME_BUY', 'OBSOLETE', 'UNKNOWN'] as const;
export const approvals = ['APPROVED', 'PROTOTYPE_ONLY', 'NOT_APPROVED'] as const;

export const priceBreakRecord = z.object({ minQuantity: z.number().int().positive(), unitPrice: z.number().nonnegative().nullable() });
export type PriceBreakRecord = z.infer<typeof priceBreakRecord>;

export const quoteRecord = z.object({
  id: z.string().uuid(),
  distributorId: z.string().uuid(),
  distributorPartNumber: z.string().nullable(),
  currency: z.string(),
  priceBreaks: z.array(priceBreakRecord),
  moq: z.number().int().positive().nullable(),
  orderMultiple: z.number().int().positive().nullable(),
  leadTimeDays: z.number().int().nonnegative().nullable(),
  stock: z.number().int().nonnegative().nullable(),
  validUntil: z.string().nullable(),
  isLegacyImport: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type QuoteRecord = z.infer<typeof quoteRecord>;

export const partRecord = z.object({
  id: z.string().uuid(),
  manufacturerId: z.string().uuid(),
  mpn: z.string(),
  description: z.string().nullable(),
  datasheetUrl: z.string().nullable(),
  lifecycle: z.enum(lifecycles),
  approval: z.enum(approvals),
  rank: z.number().int().nonnegative().nullable(),
  isLegacyImport: z.boolean(),
  quotes: z.array(quoteRecord),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PartRecord = z.infer<typeof partRecord>;

export const sourcingRecord = z.object({
  componentId: z.string().uuid(),
  parts: z.array(partRecord),
  primaryPartId: z.string().nullable(),
  primaryQuoteId: z.string().nullable(),
  /** Conditions every write: 0 for a component that never had sourcing (no item). */
  rev: z.number().int().nonnegative(),
  updatedAt: z.string(),
});
export type SourcingRecord = z.infer<typeof sourcingRecord>;

export const exchangeRatesRecord = z.object({
  baseCurrency: z.string(),
  /** Units of the base currency one unit of each currency is worth. */
  rates: z.record(z.string(), z.number().positive()),
  version: z.number().int().nonnegative(),
  updatedAt: z.string(),
  updatedBy: z.string(),
});
export type ExchangeRatesRecord = z.infer<typeof exchangeRatesRecord>;

// ---- directory ------------------------------------------------------------------------------------------

export function listVendors(store: Store, orgId: string): Promise<VendorRecord[]> {
  return queryPrefix(store, organizationPartition(orgId), 'VENDOR#', vendorRecord, 'vendor');
}

export function getVendors(store: Store, orgId: string, ids: string[]): Promise<Map<string, VendorRecord>> {
  return batchGetRecords(store, ids, (id) => vendorKey(orgId, id), vendorRecord, 'vendor');
}

/** The vendor a name or alias names (normalized), if any. */
export async function vendorIdByName(store: Store, orgId: string, kind: VendorKind, normalizedName: string): Promise<string | undefined> {
  const item = await getItem(store, vendorNameKey(orgId, kind, normalizedName), z.object({ vendorId: z.string() }).passthrough(), 'vendor name');
  return item?.vendorId;
}

/** Puts a vendor: a new one (absent), or a new rev of the one read (condition on its rev). */
export function vendorPut(record: VendorRecord, previousRev: number | null, onConditionFailed: () => Error): WriteItem {
  return {
    Put: {
      Item: { ...vendorKey(record.organizationId, record.id), entity: 'Vendor', ...record },
      ...(previousRev === null ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': previousRev } }),
    },
    onConditionFailed,
  };
}

/** Claims a name (or alias) for a vendor; fails when another vendor of the kind holds it. */
export function vendorNameClaim(orgId: string, kind: VendorKind, normalizedName: string, vendorId: string, onConditionFailed: () => Error): WriteItem {
  return {
    Put: {
      Item: { ...vendorNameKey(orgId, kind, normalizedName), entity: 'VendorName', vendorId },
      ConditionExpression: 'attribute_not_exists(PK) OR vendorId = :id',
      ExpressionAttributeValues: { ':id': vendorId },
    },
    onConditionFailed,
  };
}

/**
 * Keys of the vendors and name claims a library import created (tagged with its `importId`): what
 * import-abort deletes besides the library's items.
 */
export async function listImportedVendorKeys(store: Store, orgId: string, importId: string): Promise<Key[]> {
  const row = z.object({ PK: z.string(), SK: z.string() });
  const options = { FilterExpression: 'importId = :importId', ExpressionAttributeValues: { ':importId': importId }, ProjectionExpression: 'PK, SK' };
  const lists = await Promise.all(['VENDOR#', 'VENDORNAME#'].map((prefix) => queryPrefix(store, organizationPartition(orgId), prefix, row, 'vendor key', options)));
  return lists.flat();
}

/** Releases a name the vendor no longer carries. */
export function vendorNameRelease(orgId: string, kind: VendorKind, normalizedName: string, vendorId: string): WriteItem {
  return { Delete: { Key: vendorNameKey(orgId, kind, normalizedName), ConditionExpression: 'attribute_not_exists(PK) OR vendorId = :id', ExpressionAttributeValues: { ':id': vendorId } } };
}

// ---- component sourcing ---------------------------------------------------------------------------------

export async function getSourcing(store: Store, orgId: string, libraryId: string, componentId: string): Promise<SourcingRecord | undefined> {
  return (await getSourcings(store, orgId, libraryId, [componentId], true)).get(componentId);
}

/** Sourcing of several components: one BatchGetItem per 100; absent: no sourcing yet. */
export function getSourcings(store: Store, orgId: string, libraryId: string, componentIds: string[], consistent = false): Promise<Map<string, SourcingRecord>> {
  return batchGetRecords(store, componentIds, (id) => sourcingKey(orgId, libraryId, id), sourcingRecord, 'sourcing', consistent);
}

/** Every sourcing item of a library (risks). */
export function listSourcings(store: Store, orgId: string, libraryId: string): Promise<SourcingRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'SRC#', sourcingRecord, 'sourcing');
}

/** Puts a component's sourcing at rev + 1, on condition it is still at the rev read (0: absent). */
export function sourcingPut(orgId: string, libraryId: string, record: SourcingRecord, previousRev: number, onConditionFailed: () => Error): WriteItem {
  return {
    Put: {
      Item: { ...sourcingKey(orgId, libraryId, record.componentId), entity: 'Sourcing', ...record },
      ...(previousRev === 0 ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': previousRev } }),
    },
    onConditionFailed,
  };
}

export function sourcingDelete(orgId: string, libraryId: string, componentId: string): WriteItem {
  return { Delete: { Key: sourcingKey(orgId, libraryId, componentId) } };
}

// ---- MPN index ------------------------------------------------------------------------------------------

export const mpnIndexRecord = z.object({ mpn: z.string(), componentId: z.string().uuid(), partIds: z.array(z.string()) });
export type MpnIndexRecord = z.infer<typeof mpnIndexRecord>;

/** Puts the index entry of one (normalized) MPN of a component: the ids of its parts with that MPN. */
export function mpnIndexPut(orgId: string, libraryId: string, record: MpnIndexRecord): WriteItem {
  return { Put: { Item: { ...mpnIndexKey(orgId, libraryId, record.mpn, record.componentId), entity: 'MpnIndex', ...record } } };
}

export function mpnIndexDelete(orgId: string, libraryId: string, mpn: string, componentId: string): WriteItem {
  return { Delete: { Key: mpnIndexKey(orgId, libraryId, mpn, componentId) } };
}

/** The components with a part of this normalized MPN (an MPN holding `#` shares a prefix: filtered exactly). */
export async function findMpnIndex(store: Store, orgId: string, libraryId: string, mpn: string): Promise<MpnIndexRecord[]> {
  const found = await queryPrefix(store, libraryPartition(orgId, libraryId), `MPN#${mpn}#`, mpnIndexRecord, 'MPN index');
  return found.filter((r) => r.mpn === mpn);
}

// ---- exchange rates -------------------------------------------------------------------------------------

export function getExchangeRates(store: Store, orgId: string, libraryId: string): Promise<ExchangeRatesRecord | undefined> {
  return getItem(store, exchangeRatesKey(orgId, libraryId), exchangeRatesRecord, 'exchange rates');
}

export function exchangeRatesPut(orgId: string, libraryId: string, record: ExchangeRatesRecord, previousVersion: number, onConditionFailed: () => Error): WriteItem {
  return {
    Put: {
      Item: { ...exchangeRatesKey(orgId, libraryId), entity: 'ExchangeRates', ...record },
      ...(previousVersion === 0 ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': previousVersion } }),
    },
    onConditionFailed,
  };
}

// ---- cost roll-up reads ---------------------------------------------------------------------------------

/**
 * The first read of a roll-up, one BatchGetItem: the component, its BOM and the library's exchange rates.
 */
export async function readRollupStart(
  store: Store,
  orgId: string,
  libraryId: string,
  componentId: string,
): Promise<{ component: ComponentRecord | undefined; bom: BomRecord | undefined; rates: ExchangeRatesRecord | undefined }> {
  const keys: Key[] = [componentKey(orgId, libraryId, componentId), bomKey(orgId, libraryId, componentId), exchangeRatesKey(orgId, libraryId)];
  const items = await batchGetItems(store, keys);
  const [c, b, r] = keys.map((key) => items.get(keyString(key)));
  const component = c ? parseItem(componentRecord, c, 'component') : undefined;
  return {
    // A component of a large write that has not committed carries writeId: a roll-up treats it as absent.
    component: component && !component.writeId ? component : undefined,
    bom: b ? parseItem(bomRecord, b, 'BOM') : undefined,
    rates: r ? parseItem(exchangeRatesRecord, r, 'exchange rates') : undefined,
  };
}
