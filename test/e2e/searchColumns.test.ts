import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { bulkManifestItem } from '../../lib/search/table/bulkLoad.js';
import { columnNames, type ColumnName } from '../../lib/search/table/columns.js';
import { packBlocks } from '../../lib/search/table/compaction.js';
import { minIndexedRows } from '../../lib/search/table/nameIndex.js';
import type { RowFields } from '../../lib/search/table/rows.js';
import { LibrarySnapshot } from '../../lib/search/table/snapshot.js';
import { hasNameIndex, readColumn, readManifest, writeParts } from '../../lib/search/table/storage.js';
import { gqlOk, newTenant, testStore, type Tenant } from '../support/api.js';
import { loadSearchLibrary as loadLibrary } from '../support/bulkSearchLibrary.js';
import { compactSearchIndex, markReleased, putUser, seedComponents, updateAt } from './searchHelpers.js';

const filterQuery = 'query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount edges { node { id } } } } }';
const groupsQuery = `query($by: ComponentGroupBy!) { component { componentGroups(groupBy: $by, pagination: { first: 50 }, previewSize: 3) {
  totalCount edges { node { key label totalCount components { edges { node { id } } } } } } } }`;
const languageQuery = 'query($query: String!) { component { filterWithQuery(query: $query, pagination: { first: 100 }) { totalCount edges { node { id } } } } }';

/** Filters and groups over every field the split groups hold: what a library answers, whatever its blocks' layout. */
async function answers(tenant: Tenant, userId: string): Promise<unknown[]> {
  const filters: Record<string, unknown>[][] = [
    [{ status: { mapsTo: { in: ['DESIGN', 'PRODUCTION'] } } }],
    [{ status: { name: { contains: 'o' } } }],
    [{ category: { type: { eq: 'PART' } } }, { labels: { name: { eq: 'rohs' } } }],
    [{ category: { id: { in: ['resistor', 'pcb'] } } }],
    [{ labels: { name: { neq: 'reach' } } }],
    [{ revision: { value: { eq: 'A' } } }],
    [{ state: { eq: 'RELEASED' } }],
    [{ createdBy: { id: { eq: userId } } }],
    [{ updatedBy: { id: { neq: userId } } }],
    [{ isArchived: { eq: false } }],
  ];
  const results: unknown[] = [];
  for (const and of filters) results.push(await gqlOk(tenant, filterQuery, { input: { and, pagination: { first: 100 } } }));
  for (const by of ['CATEGORY', 'STATUS', 'TYPE', 'MODIFIED_BY', 'LABEL']) results.push(await gqlOk(tenant, groupsQuery, { by }));
  results.push(await gqlOk(tenant, languageQuery, { query: 'type:part label:rohs' }));
  return results;
}

const legacyColumns: ColumnName[] = ['m', 'c', 'p', 'u', 'n', 'd', 'e', 'i'];

describe('the split column groups', () => {
  it('answer as blocks written with the m group do, and a library that mixes both answers the same', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const library = { organizationId: tenant.organization.id, libraryId: tenant.library.id };
    const seeded = await seedComponents(store, tenant, 60);
    const other = await putUser(store, 'Grace', 'Hopper', tenant.organization.id);
    for (const component of seeded.slice(0, 4)) await markReleased(store, component);
    for (const component of seeded.slice(10, 13)) await updateAt(store, tenant, { id: component.id, description: 'edited by another' }, new Date().toISOString(), other.id);
    await compactSearchIndex(store, tenant);
    const split = await readManifest(store, library);
    expect(split.blocks.every((block) => block.parts.m.length === 0 && block.parts.s.length > 0)).toBe(true);
    const expected = await answers(tenant, tenant.user.id);

    // The same rows as blocks written before the split: two blocks holding `m` instead.
    const snapshot = await LibrarySnapshot.read(store, library, columnNames);
    await snapshot.ensure(columnNames);
    const rows = snapshot.rows().map(({ block: _block, index: _index, ...fields }) => fields as RowFields);
    expect(rows).toHaveLength(60);
    const legacy = packBlocks(rows, 30, legacyColumns);
    await writeParts(store, library, legacy.parts);
    await store.ddb.send(new PutCommand({ TableName: store.tableName, ...bulkManifestItem(library, split.watermark, legacy.blocks) }));
    const written = await readManifest(store, library);
    expect(written.blocks.map((block) => [block.parts.m.length > 0, block.parts.s.length])).toEqual([
      [true, 0],
      [true, 0],
    ]);
    expect(await answers(tenant, tenant.user.id)).toEqual(expected);

    // A fold rewrites the tail block in the split groups and keeps the first as it was: both layouts at once.
    await updateAt(store, tenant, { id: seeded[59]!.id, description: 'edited after' }, new Date().toISOString());
    await compactSearchIndex(store, tenant);
    const mixed = await readManifest(store, library);
    expect(mixed.blocks.map((block) => block.parts.m.length > 0)).toEqual([true, false]);
    expect(await answers(tenant, tenant.user.id)).toEqual(expected);
  }, 300_000);

  it('are written for a block that predates them and the name index when a compaction adds its index: the block anew, split and indexed', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const library = { organizationId: tenant.organization.id, libraryId: tenant.library.id };
    const size = minIndexedRows + 100;
    const ids = await loadLibrary(store, tenant, size);

    // The same rows as one block written before the split groups and the indexes: `m`, no name or CPN index.
    const bulk = await readManifest(store, library);
    const snapshot = await LibrarySnapshot.read(store, library, columnNames);
    await snapshot.ensure(columnNames);
    const rows = snapshot.rows().map(({ block: _block, index: _index, ...fields }) => fields as RowFields);
    const legacy = packBlocks(rows, rows.length, legacyColumns);
    await writeParts(
      store,
      library,
      legacy.parts.filter((part) => part.column !== 't' && part.column !== 'q'),
    );
    const blocks = legacy.blocks.map(({ names: _names, cpns: _cpns, ...block }) => block);
    await store.ddb.send(new PutCommand({ TableName: store.tableName, ...bulkManifestItem(library, bulk.watermark, blocks) }));
    const written = await readManifest(store, library);
    expect(written.blocks.map((block) => [block.rows, block.parts.m.length > 0, block.parts.s.length, hasNameIndex(block), hasNameIndex(block, 'cpn')])).toEqual([[size, true, 0, false, false]]);

    // Edits outstanding over two of its rows; then what the library answers, by filters, groups and names.
    const other = await putUser(store, 'Ada', 'Lovelace', tenant.organization.id);
    await updateAt(store, tenant, { id: ids[7]!, name: 'renamed bracket', description: 'edited' }, new Date().toISOString(), other.id);
    await updateAt(store, tenant, { id: ids[size - 1]!, labels: ['reach'] }, new Date().toISOString());
    const expected = await answers(tenant, tenant.user.id);
    const byName = async () => gqlOk(tenant, filterQuery, { input: { and: [{ name: { contains: 'bracket' } }], pagination: { first: 100 } } });
    // This search reads the block's names (it has no index): it folds the edits and upgrades the block.
    const named = await byName();

    const upgraded = await readManifest(store, library);
    expect(upgraded.version).toBeGreaterThan(written.version);
    expect(upgraded.blocks.map((block) => [block.rows, block.parts.m.length, block.parts.s.length > 0, hasNameIndex(block), hasNameIndex(block, 'cpn')])).toEqual([
      [size - 2, 0, true, true, true],
      [2, 0, true, false, false],
    ]);
    expect(upgraded.blocks[0]!.id).not.toBe(written.blocks[0]!.id);
    // The legacy block's parts went with it.
    expect(await readColumn(store, library, 'm')).toEqual([]);
    expect(await answers(tenant, tenant.user.id)).toEqual(expected);
    expect(await byName()).toEqual(named);
    const after = await LibrarySnapshot.read(store, library, []);
    await after.ensure([]);
    await after.nameMatcher(['bracket']);
    expect(after.readUnindexedNames).toBe(false);
  }, 300_000);
});
