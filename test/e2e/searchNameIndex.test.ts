import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../../lib/store/items.js';
import { describe, expect, it } from 'vitest';
import { bulkManifestItem } from '../../lib/search/table/bulkLoad.js';
import { compact, packBlocks } from '../../lib/search/table/compaction.js';
import type { RowFields } from '../../lib/search/table/rows.js';
import { minIndexedRows } from '../../lib/search/table/nameIndex.js';
import { LibrarySnapshot } from '../../lib/search/table/snapshot.js';
import { columnPartKey, readManifest, readNameIndexParts } from '../../lib/search/table/storage.js';
import { gqlOk, newTenant, testStore, type Tenant } from '../support/api.js';
import { searchRow } from '../support/searchRows.js';
import { loadSearchLibrary as loadLibrary } from '../support/bulkSearchLibrary.js';
import { compactSearchIndex, seedComponents, updateAt } from './searchHelpers.js';

type Page = { component: { filter: { totalCount: number; edges: { node: { id: string } }[] } } };
const filterQuery = 'query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount edges { node { id } } } } }';

/** The ids a name condition finds (first 1,000, default order). */
async function found(tenant: Tenant, operators: Record<string, string>, field: 'name' | 'identifier' = 'name'): Promise<{ totalCount: number; ids: string[] }> {
  const condition = field === 'name' ? { name: operators } : { identifier: { displayValue: operators } };
  const data = await gqlOk<Page>(tenant, filterQuery, { input: { and: [condition], pagination: { first: 1000 } } });
  return { totalCount: data.component.filter.totalCount, ids: data.component.filter.edges.map((e) => e.node.id) };
}

/**
 * Each needle through `contains` (the name index for 3 code units and more) and through `like`, which reads
 * the names themselves: both must find the same components, and notContains exactly the others.
 */
async function expectIndexAgreesWithNames(tenant: Tenant, total: number): Promise<void> {
  // The needles are independent reads: asked at once, each needle's three answers compared as before.
  await Promise.all(
    ['bracket', 'BRACKET 0', 'r brac', 'ket 10k', 'x7r usb-c', 'ISTOR', 'no such name', 'k 0', '12'].map(async (needle) => {
      const [contains, like, notContains] = await Promise.all([found(tenant, { contains: needle }), found(tenant, { like: `%${needle}%` }), found(tenant, { notContains: needle })]);
      expect(contains, needle).toEqual(like);
      expect(notContains.totalCount, needle).toBe(total - contains.totalCount);
    }),
  );
  // CPNs the same way, through their own index.
  await Promise.all(
    ['100-5', '0012', '-5000', '00-', '9999', 'zzz', '10'].map(async (needle) => {
      const [contains, like, notContains] = await Promise.all([
        found(tenant, { contains: needle }, 'identifier'),
        found(tenant, { like: `%${needle}%` }, 'identifier'),
        found(tenant, { notContains: needle }, 'identifier'),
      ]);
      expect(contains, needle).toEqual(like);
      expect(notContains.totalCount, needle).toBe(total - contains.totalCount);
    }),
  );
}

describe('the name index', () => {
  it('answers name contains without the name column, as the names do, with edits outstanding, and is added to blocks written before it', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const library = { organizationId: tenant.organization.id, libraryId: tenant.library.id };
    const size = minIndexedRows + 500;
    const ids = await loadLibrary(store, tenant, size);
    const manifest = await readManifest(store, library);
    expect(manifest.blocks.map((block) => [block.rows, block.names !== undefined, (block.cpns?.buckets ?? 0) > 0])).toEqual([[size, true, true]]);

    // A search with a name needle reads the needle's buckets: no block row gets its name.
    const snapshot = await LibrarySnapshot.read(store, library, []);
    await snapshot.ensure([]);
    const matcher = await snapshot.nameMatcher(['bracket']);
    const cpnMatcher = await snapshot.nameMatcher(['100-5'], 'cpn');
    const rows = snapshot.rows();
    expect(rows.every((row) => row.name === undefined && row.cpn === undefined)).toBe(true);
    expect(rows.filter((row) => cpnMatcher.contains(row, '100-5')).length).toBeGreaterThan(0);
    expect(rows.filter((row) => matcher.contains(row, 'bracket')).length).toBeGreaterThan(0);
    expect(snapshot.readUnindexedNames).toBe(false);

    await expectIndexAgreesWithNames(tenant, size);

    // Outstanding edits: renamed components match by their new names only.
    await updateAt(store, tenant, { id: ids[0]!, name: 'renamed Bracket-less part' }, new Date().toISOString());
    await updateAt(store, tenant, { id: ids[1]!, name: 'plain widget' }, new Date().toISOString());
    await expectIndexAgreesWithNames(tenant, size);
    expect((await found(tenant, { contains: 'bracket-less' })).ids).toEqual([ids[0]]);

    // A block written before the index: searches read its names, and the next compaction adds its index.
    const current = await readManifest(store, library);
    await store.ddb.send(
      new PutCommand({
        TableName: store.tableName,
        ...bulkManifestItem(
          library,
          current.watermark,
          current.blocks.map(({ names: _names, ...block }) => block),
        ),
      }),
    );
    const legacy = await LibrarySnapshot.read(store, library, []);
    await legacy.ensure([]);
    await legacy.nameMatcher(['bracket']);
    expect(legacy.readUnindexedNames).toBe(true);
    await expectIndexAgreesWithNames(tenant, size);
    const upgrade = await LibrarySnapshot.read(store, library, []);
    await upgrade.ensure([]);
    if (!(await readManifest(store, library)).blocks[0]!.names) expect(await compact(store, upgrade)).toBe('committed');
    const upgraded = await readManifest(store, library);
    // The block has an index again, under a fresh id, and a search no longer reads its names.
    expect(upgraded.blocks[0]!.names?.buckets).toBeGreaterThan(0);
    expect(upgraded.blocks[0]!.names!.id).not.toBe(upgraded.blocks[0]!.id);
    const after = await LibrarySnapshot.read(store, library, []);
    await after.ensure([]);
    await after.nameMatcher(['bracket']);
    expect(after.readUnindexedNames).toBe(false);
    await expectIndexAgreesWithNames(tenant, size);
  }, 300_000);

  it("is deleted with the other parts of a block no manifest names (a failed compaction's)", async () => {
    const tenant = await newTenant();
    const store = testStore();
    const library = { organizationId: tenant.organization.id, libraryId: tenant.library.id };
    await seedComponents(store, tenant, 3);
    await compactSearchIndex(store, tenant);
    // A block written by a compaction that never committed, 11 minutes ago.
    const at = Date.parse('2024-01-01T00:00:00.000Z');
    const rows: RowFields[] = Array.from({ length: minIndexedRows }, (_, n) =>
      searchRow(n, { name: `orphan part ${n}`, description: null, cpn: `900-${n}`, eid: null, labels: [], createdAt: at, updatedAt: at, createdBy: tenant.user.id, updatedBy: tenant.user.id }),
    );
    const orphan = packBlocks(rows, rows.length);
    const blockId = orphan.blocks[0]!.id;
    expect(orphan.blocks[0]!.names?.buckets).toBeGreaterThan(0);
    const createdAt = new Date(Date.now() - 11 * 60 * 1000).toISOString();
    await batchWrite(
      store,
      orphan.parts.map((part) => ({
        put: { ...columnPartKey(library.organizationId, library.libraryId, part.column, part.blockId, part.start), entity: 'SearchColumn', data: part.data, createdAt },
      })),
    );
    expect((await readNameIndexParts(store, library, blockId)).length).toBeGreaterThan(0);
    expect((await readNameIndexParts(store, library, blockId, 'cpn')).length).toBeGreaterThan(0);
    const snapshot = await LibrarySnapshot.read(store, library, ['f']);
    await snapshot.ensure(['f']);
    expect(new Set(snapshot.orphans.map((part) => part.blockId))).toEqual(new Set([blockId]));
    expect(await compact(store, snapshot)).toBe('committed');
    expect(await readNameIndexParts(store, library, blockId)).toEqual([]);
    expect(await readNameIndexParts(store, library, blockId, 'cpn')).toEqual([]);
    expect((await gqlOk<Page>(tenant, filterQuery, { input: { and: [{ name: { contains: 'orphan' } }] } })).component.filter.totalCount).toBe(0);
  }, 300_000);
});
