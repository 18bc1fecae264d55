import { z } from 'zod';
import type { Store } from './client.js';
import { getItem, queryAll } from './items.js';

const orgPartition = (orgId: string) => `ORG#${orgId}`;
export const libraryKey = (orgId: string, libraryId: string) => ({ PK: orgPartition(orgId), SK: `LIB#${libraryId}` });
/** Uniqueness of a library slug within its organization; maps the slug to the library id. */
export const librarySlugKey = (orgId: string, slug: string) => ({ PK: orgPartition(orgId), SK: `LIBSLUG#${slug}` });
/** Partition of everything inside one library (components and their satellites arrive with their issues). */
export const libraryPartition = (orgId: string, libraryId: string) => `ORG#${orgId}#LIB#${libraryId}`;
export const libraryStatsKey = (orgId: string, libraryId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: 'STATS' });

export const libraryRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type LibraryRecord = z.infer<typeof libraryRecord>;

/** Counters kept by the component writes of the library; a library without the item has none yet. */
export const libraryStatsRecord = z.object({
  componentCount: z.number().int().default(0),
  partCount: z.number().int().default(0),
  assemblyCount: z.number().int().default(0),
  documentCount: z.number().int().default(0),
});
export type LibraryStatsRecord = z.infer<typeof libraryStatsRecord>;

const slugRecord = z.object({ libraryId: z.string().uuid() });

export function libraryPuts(library: LibraryRecord) {
  return [
    { Put: { Item: { ...libraryKey(library.organizationId, library.id), entity: 'Library', ...library }, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Put: {
        Item: { ...librarySlugKey(library.organizationId, library.slug), entity: 'LibrarySlug', libraryId: library.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

export function getLibrary(store: Store, orgId: string, libraryId: string): Promise<LibraryRecord | undefined> {
  return getItem(store, libraryKey(orgId, libraryId), libraryRecord, 'library');
}

export async function findLibraryIdBySlug(store: Store, orgId: string, slug: string): Promise<string | undefined> {
  return (await getItem(store, librarySlugKey(orgId, slug), slugRecord, 'library slug'))?.libraryId;
}

export function listLibraries(store: Store, orgId: string): Promise<LibraryRecord[]> {
  return queryAll(
    store,
    { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': orgPartition(orgId), ':prefix': 'LIB#' } },
    libraryRecord,
    'library',
  );
}

export async function getLibraryStats(store: Store, orgId: string, libraryId: string): Promise<LibraryStatsRecord> {
  return (await getItem(store, libraryStatsKey(orgId, libraryId), libraryStatsRecord, 'library stats')) ?? libraryStatsRecord.parse({});
}
