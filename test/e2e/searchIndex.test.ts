import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { searchPartition } from '../../lib/search/entries.js';
import { compact } from '../../lib/search/table/compaction.js';
import { reindexLibrary } from '../../lib/search/table/reindex.js';
import { LibrarySnapshot } from '../../lib/search/table/snapshot.js';
import { acquireLease, readManifest } from '../../lib/search/table/storage.js';
import { mergeFanIn } from '../../lib/search/table/compaction.js';
import { gqlOk, newTenant, testStore } from '../support/api.js';
import { compactSearchIndex, seedComponents, updateAt } from './searchHelpers.js';
import { newMeter, withMeter } from '../../lib/store/meter.js';

const countQuery = 'query { component { filter { totalCount } } }';

describe('the search index', () => {
  it('is rebuilt from the components by reindexLibrary, without undoing later writes', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const library = { organizationId: tenant.organization.id, libraryId: tenant.library.id };
    const seeded = await seedComponents(store, tenant, 90);
    await compactSearchIndex(store, tenant);
    // A library whose components have no search data (written before search entries existed).
    const items = await store.ddb.send(
      new QueryCommand({ TableName: store.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': searchPartition(library.organizationId, library.libraryId) } }),
    );
    expect(items.Items!.length).toBeGreaterThan(1);
    for (const item of items.Items!) await store.ddb.send(new DeleteCommand({ TableName: store.tableName, Key: { PK: item.PK, SK: item.SK } }));
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, countQuery)).component.filter.totalCount).toBe(0);

    await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [seeded[0]!.id] });
    expect(await reindexLibrary(store, library)).toBe(89);
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, countQuery)).component.filter.totalCount).toBe(89);
    await compactSearchIndex(store, tenant);
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, countQuery)).component.filter.totalCount).toBe(89);
  }, 60_000);
});

describe('compaction', () => {
  const library = (tenant: { organization: { id: string }; library: { id: string } }) => ({ organizationId: tenant.organization.id, libraryId: tenant.library.id });
  const deltaCount = async (tenant: { organization: { id: string }; library: { id: string } }) => {
    const { Count } = await testStore().ddb.send(
      new QueryCommand({
        TableName: testStore().tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sd)',
        ExpressionAttributeValues: { ':pk': searchPartition(tenant.organization.id, tenant.library.id), ':sd': 'SD#' },
        Select: 'COUNT',
      }),
    );
    return Count ?? 0;
  };

  it('keeps a write that lands while it runs, and a second compaction of the same read commits nothing', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const seeded = await seedComponents(store, tenant, 70);
    await compactSearchIndex(store, tenant);
    for (const component of seeded.slice(0, 5)) await updateAt(store, tenant, { id: component.id, name: `${component.name} v2` }, new Date().toISOString());
    const first = await LibrarySnapshot.read(store, library(tenant), []);
    const second = await LibrarySnapshot.read(store, library(tenant), []);
    await Promise.all([first.ensure([]), second.ensure([])]);
    expect(first.deltas).toHaveLength(5);
    // A write lands after the compaction read the deltas: its entry must survive the compaction.
    await updateAt(store, tenant, { id: seeded[0]!.id, name: 'renamed during compaction' }, new Date().toISOString());
    expect(await compact(store, first)).toBe('committed');
    expect(await compact(store, second)).toBe('stale');
    expect(await deltaCount(tenant)).toBe(1);
    const names = await gqlOk<{ component: { filter: { totalCount: number; edges: { node: { id: string } }[] } } }>(
      tenant,
      'query { component { filter(input: { and: [{ name: { eq: "renamed during compaction" } }] }) { totalCount edges { node { id } } } } }',
    );
    expect(names.component.filter.edges.map((e) => e.node.id)).toEqual([seeded[0]!.id]);
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, countQuery)).component.filter.totalCount).toBe(70);
  }, 60_000);

  it('does not run while another holds the lease', async () => {
    const tenant = await newTenant();
    const store = testStore();
    await seedComponents(store, tenant, 3);
    expect(await acquireLease(store, library(tenant), 'someone else', Date.now(), 60_000)).toBe(true);
    const snapshot = await LibrarySnapshot.read(store, library(tenant), []);
    await snapshot.ensure([]);
    expect(snapshot.manifest.lease?.owner).toBe('someone else');
    expect(await compact(store, snapshot)).toBe('busy');
    expect(await deltaCount(tenant)).toBe(3);
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, countQuery)).component.filter.totalCount).toBe(3);
  });

  it('places the deltas of changed and deleted components by createdAt and their id parts, not the id column', async () => {
    const tenant = await newTenant();
    const store = testStore();
    // 25 components share each createdAt: placing a delta compares the ids of those 25 rows only.
    const seeded = await seedComponents(store, tenant, 450);
    await compactSearchIndex(store, tenant);
    await updateAt(store, tenant, { id: seeded[30]!.id, name: 'changed after compaction' }, new Date().toISOString());
    await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [seeded[400]!.id] });
    const snapshot = await LibrarySnapshot.read(store, library(tenant), []);
    const meter = newMeter();
    await withMeter(meter, () => snapshot.ensure([]));
    expect(snapshot.usedIdFallback).toBe(false);
    expect([...snapshot.locations.keys()].sort()).toEqual([seeded[30]!.id, seeded[400]!.id].sort());
    // The createdAt column, then the ids of the rows created at the deltas' createdAt (here the whole id
    // column is as cheap: 450 rows); before, a tombstone could be placed only by reading every id.
    expect(meter.requests).toBe(2);
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, countQuery)).component.filter.totalCount).toBe(449);
    const renamed = await gqlOk<{ component: { filter: { edges: { node: { id: string } }[] } } }>(
      tenant,
      'query { component { filter(input: { and: [{ name: { contains: "after compaction" } }] }) { edges { node { id } } } } }',
    );
    expect(renamed.component.filter.edges.map((e) => e.node.id)).toEqual([seeded[30]!.id]);
  }, 60_000);

  it('merges blocks as they fill, and a search over merged blocks sees every component once', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const seeded = await seedComponents(store, tenant, (mergeFanIn + 1) * 1000, { write: 'batch' });
    await compactSearchIndex(store, tenant);
    expect((await readManifest(store, library(tenant))).blocks.map((b) => b.rows)).toEqual(Array(mergeFanIn + 1).fill(1000));
    await updateAt(store, tenant, { id: seeded[11]!.id, name: 'changed before the merge' }, new Date().toISOString());
    const snapshot = await LibrarySnapshot.read(store, library(tenant), []);
    await snapshot.ensure([]);
    expect(await compact(store, snapshot)).toBe('committed');
    // The first 8 blocks (one row of them superseded) are one now; the full tail stays; the changed row is new.
    expect((await readManifest(store, library(tenant))).blocks.map((b) => b.rows)).toEqual([1000, mergeFanIn * 1000 - 1, 1]);
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, countQuery)).component.filter.totalCount).toBe((mergeFanIn + 1) * 1000);
    const found = await gqlOk<{ component: { filter: { totalCount: number; edges: { node: { id: string } }[] } } }>(
      tenant,
      'query { component { filter(input: { and: [{ name: { contains: "before the merge" } }] }) { totalCount edges { node { id } } } } }',
    );
    expect(found.component.filter.edges.map((e) => e.node.id)).toEqual([seeded[11]!.id]);
    const page = await gqlOk<{ component: { filter: { totalCount: number; edges: { node: { id: string } }[] } } }>(
      tenant,
      'query { component { filter(input: { and: [{ name: { contains: "resistor" } }], pagination: { first: 1000 } }) { totalCount edges { node { id } } } } }',
    );
    expect(page.component.filter.totalCount).toBe(900);
    expect(new Set(page.component.filter.edges.map((e) => e.node.id)).size).toBe(900);
  }, 300_000);
});
