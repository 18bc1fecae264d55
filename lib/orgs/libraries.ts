import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { seedLibraryConfigPuts } from '../config/libraryConfig.js';
import { AlreadyExistsError, InvalidInputError } from '../errors.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite } from '../store/items.js';
import { getLibrary, getLibraryStats, libraryPuts, listLibraries, type LibraryRecord, type LibraryStatsRecord } from '../store/library.js';
import { assertValidSlug } from '../model/slugs.js';

export const createLibraryInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(200),
  slug: z.string(),
  description: z.string().max(2000).nullish(),
});
export type CreateLibraryInput = z.infer<typeof createLibraryInput>;

export function newLibraryRecord(organizationId: string, input: CreateLibraryInput, createdBy: string, at = nowIso()): LibraryRecord {
  const parsed = createLibraryInput.safeParse(input);
  if (!parsed.success) throw new InvalidInputError(parsed.error.issues.map((issue) => issue.message).join('; '));
  assertValidSlug(parsed.data.slug, 'Library');
  return {
    id: randomUUID(),
    organizationId,
    name: parsed.data.name,
    slug: parsed.data.slug,
    description: parsed.data.description ?? null,
    createdAt: at,
    createdBy,
  };
}

/** The items of a new library: the library, its slug, and its default configuration documents. */
export function newLibraryItems(library: LibraryRecord) {
  return [...libraryPuts(library), ...seedLibraryConfigPuts(library.organizationId, library.id, library.createdBy, library.createdAt)];
}

/** Creates a library with its default configuration; its slug is unique in the organization. One transaction. */
export async function createLibrary(store: Store, organizationId: string, input: CreateLibraryInput, createdBy: string): Promise<LibraryRecord> {
  const library = newLibraryRecord(organizationId, input, createdBy);
  await transactWrite(store, newLibraryItems(library), { otherwise: () => new AlreadyExistsError(`A library with slug "${library.slug}" already exists in this organization`, { field: 'slug' }) });
  return library;
}

export async function librariesOfOrganization(store: Store, organizationId: string): Promise<LibraryRecord[]> {
  const libraries = await listLibraries(store, organizationId);
  return libraries.sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug));
}

export function libraryStats(store: Store, library: LibraryRecord): Promise<LibraryStatsRecord> {
  return getLibraryStats(store, library.organizationId, library.id);
}

/** A library by id, for resolvers of fields that name one (null: gone). */
export async function findLibrary(store: Store, organizationId: string, libraryId: string): Promise<LibraryRecord | null> {
  return (await getLibrary(store, organizationId, libraryId)) ?? null;
}
