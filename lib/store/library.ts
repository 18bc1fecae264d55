import * as z from 'zod';
import type { Store } from './client.js';
import { AlreadyExistsError } from '../errors.js';
import { getItem, type WriteItem, queryPrefix } from './items.js';

const orgPartition = (orgId: string) => `ORG#${orgId}`;
export const libraryKey = (orgId: string, libraryId: string) => ({ PK: orgPartition(orgId), SK: `LIB#${libraryId}` });
/** Uniqueness of a library slug within its organization; maps the slug to the library id. */
export const librarySlugKey = (orgId: string, slug: string) => ({ PK: orgPartition(orgId), SK: `LIBSLUG#${slug}` });
/** Partition of everything inside one library (components and their satellites arrive with their issues). */
export const libraryPartition = (orgId: string, libraryId: string) => `ORG#${orgId}#LIB#${libraryId}`;

export const libraryRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.string(),
  /** Set while an import writes into the library (libraryTransfer.ts): the library is closed until it commits. */
  importing: z.object({ importId: z.string(), startedAt: z.string(), startedBy: z.string() }).nullish(),
  /** The API import job holding the library (importJob.ts): at most one is queued or running. */
  importJob: z.object({ jobId: z.string(), createdAt: z.string() }).nullish(),
});
export type LibraryRecord = z.infer<typeof libraryRecord>;

/** Counts of a library's components (archived included, deleted not). */
export interface LibraryStatsRecord {
  componentCount: number;
  partCount: number;
  assemblyCount: number;
  documentCount: number;
}

const slugRecord = z.object({ libraryId: z.string().uuid() });

/** A new library and its slug; a taken slug (in its organization) is AlreadyExistsError. */
export function libraryPuts(library: LibraryRecord): WriteItem[] {
  return [
    { Put: { Item: { ...libraryKey(library.organizationId, library.id), entity: 'Library', ...library }, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Put: {
        Item: { ...librarySlugKey(library.organizationId, library.slug), entity: 'LibrarySlug', libraryId: library.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
      onConditionFailed: () => new AlreadyExistsError(`A library with slug "${library.slug}" already exists in this organization`, { field: 'slug' }),
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
  return queryPrefix(store, orgPartition(orgId), 'LIB#', libraryRecord, 'library');
}

/**
 * Counts the library's components by type, reading only the category type of each. Cost grows with the
 * library (about 1 RCU per 8 KB of component items read); the search projection makes this one read.
 */
export async function getLibraryStats(store: Store, orgId: string, libraryId: string): Promise<LibraryStatsRecord> {
  const rows = await queryPrefix(store, libraryPartition(orgId, libraryId), 'C#', z.object({ category: z.object({ type: z.string() }) }), 'component type', {
    ProjectionExpression: 'category.#type',
    ExpressionAttributeNames: { '#type': 'type' },
  });
  const count = (type: string) => rows.filter((row) => row.category.type === type).length;
  return { componentCount: rows.length, partCount: count('PART'), assemblyCount: count('ASSEMBLY'), documentCount: count('DOCUMENT') };
}
