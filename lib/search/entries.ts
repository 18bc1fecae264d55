import { randomUUID } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import * as z from 'zod';
import { categoryTypes, classifications } from '../model/vocabulary.js';
import type { ComponentRecord } from '../store/component.js';
import { libraryPartition } from '../store/library.js';

/**
 * The searchable projection of one component: what filters, grouping and ordering read. Every component
 * write puts its entry (a "delta", `SD#<componentId>`) in the same transaction, so search never misses a
 * write and concurrent writers never overwrite each other's entries. Compaction (`table/compaction.ts`)
 * folds deltas into compressed column blocks and then deletes each delta only if it is unchanged since it
 * was read (its `token`).
 */
export interface SearchProjection {
  id: string;
  name: string;
  description: string | null;
  cpn: string;
  eid: string | null;
  revisionValue: string;
  state: 'RELEASED' | 'MODIFIED';
  statusId: string;
  statusName: string;
  statusMapsTo: string;
  categoryId: string;
  categoryName: string;
  categoryType: string;
  labels: string[];
  isArchived: boolean;
  notRevisionManaged: boolean;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
  version: number;
  /** Normalized MPNs of the component's manufacturer parts, and their manufacturers' ids. */
  mpns?: string[];
  manufacturerIds?: string[];
}

/**
 * Search items have an item collection of their own inside the library (`<library partition>#SEARCH`):
 * a search queries only them, however many components, histories and CPN claims the library holds.
 */
export const searchPartition = (orgId: string, libraryId: string) => `${libraryPartition(orgId, libraryId)}#SEARCH`;

export const searchEntryKey = (orgId: string, libraryId: string, componentId: string) => ({ PK: searchPartition(orgId, libraryId), SK: `SD#${componentId}` });

export function projectionOf(record: ComponentRecord): SearchProjection {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    cpn: record.cpn,
    eid: record.eid,
    revisionValue: record.revisionValue,
    state: record.state,
    statusId: record.statusId,
    statusName: record.status.name,
    statusMapsTo: record.status.mapsTo,
    categoryId: record.categoryId,
    categoryName: record.category.name,
    categoryType: record.category.type,
    labels: record.labels,
    isArchived: record.isArchived,
    notRevisionManaged: record.notRevisionManaged,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    createdBy: record.createdBy,
    updatedBy: record.updatedBy,
    version: record.version,
    mpns: record.sourcingIndex?.mpns ?? [],
    manufacturerIds: record.sourcingIndex?.manufacturerIds ?? [],
  };
}

/** Stored compressed (about 400 bytes instead of 950): every search reads the outstanding entries. */
const packProjection = (projection: SearchProjection) => brotliCompressSync(Buffer.from(JSON.stringify(projection)));

/**
 * The transaction Put of a component's search entry. `token` is new on every put: compaction deletes the
 * entry only while it still holds the token it read, so a write that lands during a compaction is never
 * lost (a configuration sync re-puts the same version). `writeId`: the entry of a component of a large
 * write, invisible until that write commits.
 */
export function searchEntryPut(record: ComponentRecord, writeId?: string) {
  return {
    Put: {
      Item: {
        ...searchEntryKey(record.organizationId, record.libraryId, record.id),
        entity: 'SearchEntry',
        componentId: record.id,
        deleted: false,
        at: record.updatedAt,
        version: record.version,
        token: randomUUID(),
        projection: packProjection(projectionOf(record)),
        ...(writeId ? { writeId } : {}),
      },
    },
  };
}

/**
 * The entry of a deleted component: a tombstone, so that compacted search data forgets it too. It keeps the
 * component's createdAt, which places its block row without reading the library's id column.
 */
export function searchEntryTombstone(orgId: string, libraryId: string, componentId: string, at: string, createdAt?: string) {
  return {
    Put: {
      Item: {
        ...searchEntryKey(orgId, libraryId, componentId),
        entity: 'SearchEntry',
        componentId,
        deleted: true,
        at,
        version: 0,
        token: randomUUID(),
        projection: null,
        ...(createdAt ? { createdAt } : {}),
      },
    },
  };
}

const searchProjectionSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  cpn: z.string(),
  eid: z.string().nullable(),
  revisionValue: z.string(),
  state: z.enum(['RELEASED', 'MODIFIED']),
  statusId: z.string(),
  statusName: z.string(),
  statusMapsTo: z.enum(classifications),
  categoryId: z.string(),
  categoryName: z.string(),
  categoryType: z.enum(categoryTypes),
  labels: z.array(z.string()),
  isArchived: z.boolean(),
  notRevisionManaged: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: z.string(),
  updatedBy: z.string(),
  version: z.number().int(),
  mpns: z.array(z.string()).default([]),
  manufacturerIds: z.array(z.string()).default([]),
});

/** A search entry as read back. */
export const searchEntryRecord = z.object({
  componentId: z.string(),
  deleted: z.boolean(),
  at: z.string(),
  version: z.number().int(),
  token: z.string(),
  projection: z
    .instanceof(Uint8Array)
    .nullable()
    .transform((data) => (data ? searchProjectionSchema.parse(JSON.parse(brotliDecompressSync(data).toString('utf8'))) : null)),
  /** Set while the component belongs to a large item write that has not committed (store/pendingWrite.ts). */
  writeId: z.string().nullish(),
  /** A tombstone's component createdAt (absent on tombstones written before it was kept). */
  createdAt: z.string().nullish(),
});
export type SearchEntryRecord = z.infer<typeof searchEntryRecord>;
