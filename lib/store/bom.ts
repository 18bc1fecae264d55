import * as z from 'zod';
import type { Store } from './client.js';
import { componentKey, componentRecord, type ComponentRecord } from './component.js';
import { batchGetItems, batchGetRecords, keyString, listKeysWithPrefix, parseItem, queryNewestFirst, type Key, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';

/** The current BOM of an assembly: one item, rewritten with each BOM change (lines are not items of their own). */
export const bomKey = (orgId: string, libraryId: string, assemblyId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `BOM#${assemblyId}` });
/** One snapshot per BOM version (AssemblyLinkHistory). */
export const bomSnapshotKey = (orgId: string, libraryId: string, assemblyId: string, bomVersion: number) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `BOMH#${assemblyId}#${String(bomVersion).padStart(10, '0')}`,
});
/** The documents linked to a component: one item per component. */
export const documentLinksKey = (orgId: string, libraryId: string, componentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `DOCS#${componentId}` });

/** Deletes an assembly's current BOM (its component is deleted). */
export function bomDelete(orgId: string, libraryId: string, assemblyId: string): WriteItem {
  return { Delete: { Key: bomKey(orgId, libraryId, assemblyId) } };
}

/** Deletes a component's document links (the component is deleted). */
export function documentLinksDelete(orgId: string, libraryId: string, componentId: string): WriteItem {
  return { Delete: { Key: documentLinksKey(orgId, libraryId, componentId) } };
}

/** The assembly has no BOM lines (none, or an emptied BOM): a component may stop being an assembly. */
export function bomEmptyCheck(orgId: string, libraryId: string, assemblyId: string, onConditionFailed: () => Error): WriteItem {
  return {
    ConditionCheck: { Key: bomKey(orgId, libraryId, assemblyId), ConditionExpression: 'attribute_not_exists(PK) OR size(childIds) = :none', ExpressionAttributeValues: { ':none': 0 } },
    onConditionFailed,
  };
}

export const bomLine = z.object({
  lineId: z.string(),
  childId: z.string().uuid(),
  quantity: z.number().nullable(),
  refDes: z.string().nullable(),
  itemNumber: z.string().nullable(),
  notes: z.string().nullable(),
  /** Pins the line to a child version (`<childId>:<version>`); null follows the latest. */
  childHistoryId: z.string().nullable(),
  /** Ranked substitutes of the child in this assembly only (component ids, preferred first). */
  substitutes: z.array(z.string().uuid()).default([]),
  createdByIntegrationId: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type BomLine = z.infer<typeof bomLine>;

/** The components lines use, each once: children and their substitutes (a BOM's `childIds`). */
export const bomChildIds = (lines: readonly Pick<BomLine, 'childId' | 'substitutes'>[]): string[] => [...new Set(lines.flatMap((l) => [l.childId, ...(l.substitutes ?? [])]))];

export const bomRecord = z.object({
  assemblyId: z.string().uuid(),
  bomVersion: z.number().int().positive(),
  lines: z.array(bomLine),
  /** The distinct child ids, substitutes included (`bomChildIds`), for where-used, deletes and cycles. */
  childIds: z.array(z.string()),
  updatedAt: z.string(),
  updatedBy: z.string(),
  /** Set while the call that wrote it is not committed (large item writes); readers then check the write. */
  writeId: z.string().nullable().default(null),
});
export type BomRecord = z.infer<typeof bomRecord>;

export const bomSnapshotRecord = bomRecord.extend({ actingIntegrationId: z.string().nullable() });
export type BomSnapshotRecord = z.infer<typeof bomSnapshotRecord>;

export const documentLink = z.object({ linkId: z.string(), documentId: z.string().uuid(), createdAt: z.string(), createdBy: z.string() });
export type DocumentLinkRecord = z.infer<typeof documentLink>;

export const documentLinksRecord = z.object({
  componentId: z.string().uuid(),
  links: z.array(documentLink),
  updatedAt: z.string(),
  writeId: z.string().nullable().default(null),
});
export type DocumentLinksRecord = z.infer<typeof documentLinksRecord>;

export function bomItem(orgId: string, libraryId: string, record: BomRecord) {
  return { ...bomKey(orgId, libraryId, record.assemblyId), entity: 'Bom', ...record };
}

export function bomSnapshotItem(orgId: string, libraryId: string, record: BomSnapshotRecord) {
  return { ...bomSnapshotKey(orgId, libraryId, record.assemblyId, record.bomVersion), entity: 'BomSnapshot', ...record };
}

export function documentLinksItem(orgId: string, libraryId: string, record: DocumentLinksRecord) {
  return { ...documentLinksKey(orgId, libraryId, record.componentId), entity: 'DocumentLinks', ...record };
}

/** Puts an assembly's current BOM. */
export function bomPut(orgId: string, libraryId: string, record: BomRecord): WriteItem {
  return { Put: { Item: bomItem(orgId, libraryId, record) } };
}

/** Puts the snapshot of a BOM version: fails if that version has one (a concurrent writer of the same version). */
export function bomSnapshotPut(orgId: string, libraryId: string, record: BomSnapshotRecord): WriteItem {
  return { Put: { Item: bomSnapshotItem(orgId, libraryId, record), ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** Puts a component's document links. */
export function documentLinksPut(orgId: string, libraryId: string, record: DocumentLinksRecord): WriteItem {
  return { Put: { Item: documentLinksItem(orgId, libraryId, record) } };
}

/** The assembly's BOM is still at the version read (null: it still has none). */
export function bomVersionCheck(orgId: string, libraryId: string, assemblyId: string, bomVersion: number | null, onConditionFailed: () => Error): WriteItem {
  return {
    ConditionCheck: {
      Key: bomKey(orgId, libraryId, assemblyId),
      ...(bomVersion === null ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'bomVersion = :v', ExpressionAttributeValues: { ':v': bomVersion } }),
    },
    onConditionFailed,
  };
}

/** Current BOMs of several assemblies (absent: no BOM yet). */
export function getBoms(store: Store, orgId: string, libraryId: string, assemblyIds: string[], consistent = false): Promise<Map<string, BomRecord>> {
  return batchGetRecords(store, assemblyIds, (id) => bomKey(orgId, libraryId, id), bomRecord, 'BOM', consistent);
}

export function getDocumentLinks(store: Store, orgId: string, libraryId: string, componentIds: string[], consistent = false): Promise<Map<string, DocumentLinksRecord>> {
  return batchGetRecords(store, componentIds, (id) => documentLinksKey(orgId, libraryId, id), documentLinksRecord, 'document links', consistent);
}

/**
 * Components with the BOMs and document links of some of them (`parentIds`), strongly consistent, in one
 * BatchGetItem per 100 keys. Components are as stored: those of a large write that has not committed are
 * included (their `writeId` says so; `getComponents` leaves them out).
 */
export async function getComponentsWithRelations(
  store: Store,
  orgId: string,
  libraryId: string,
  componentIds: string[],
  parentIds: string[],
): Promise<{ components: ComponentRecord[]; boms: Map<string, BomRecord>; links: Map<string, DocumentLinksRecord> }> {
  const keys: Key[] = [...componentIds.map((id) => componentKey(orgId, libraryId, id)), ...parentIds.flatMap((id) => [bomKey(orgId, libraryId, id), documentLinksKey(orgId, libraryId, id)])];
  const items = await batchGetItems(store, keys, true);
  const components = componentIds.flatMap((id) => {
    const item = items.get(keyString(componentKey(orgId, libraryId, id)));
    return item ? [parseItem(componentRecord, item, 'component')] : [];
  });
  const boms = new Map<string, BomRecord>();
  const links = new Map<string, DocumentLinksRecord>();
  for (const id of parentIds) {
    const bom = items.get(keyString(bomKey(orgId, libraryId, id)));
    if (bom) boms.set(id, parseItem(bomRecord, bom, 'BOM'));
    const link = items.get(keyString(documentLinksKey(orgId, libraryId, id)));
    if (link) links.set(id, parseItem(documentLinksRecord, link, 'document links'));
  }
  return { components, boms, links };
}

/** BOM snapshots of an assembly, newest first. */
export function listBomSnapshots(store: Store, orgId: string, libraryId: string, assemblyId: string, limit: number): Promise<BomSnapshotRecord[]> {
  return queryNewestFirst(store, libraryPartition(orgId, libraryId), `BOMH#${assemblyId}#`, limit, bomSnapshotRecord, 'BOM snapshot');
}

/** Keys of every BOM snapshot of an assembly, for permanent deletion. */
export function listBomSnapshotKeys(store: Store, orgId: string, libraryId: string, assemblyId: string): Promise<{ PK: string; SK: string }[]> {
  return listKeysWithPrefix(store, libraryPartition(orgId, libraryId), `BOMH#${assemblyId}#`);
}
