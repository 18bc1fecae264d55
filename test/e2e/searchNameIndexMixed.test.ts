import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { bulkManifestItem } from '../../lib/search/table/bulkLoad.js';
import { minIndexedRows } from '../../lib/search/table/nameIndex.js';
import { LibrarySnapshot } from '../../lib/search/table/snapshot.js';
import { acquireLease, columnPartKey, deleteKeys, hasNameIndex, readManifest, readNameIndexParts, releaseLease, type LibraryRef } from '../../lib/search/table/storage.js';
import type { Store } from '../../lib/store/client.js';
import { cpnClaimPut } from '../../lib/store/cpn.js';
import { batchWrite } from '../../lib/store/items.js';
import { gqlOk, newTenant, testStore, type Tenant } from '../support/api.js';
import { fixtureCreatedAt, loadSearchLibrary as loadLibrary } from '../support/bulkSearchLibrary.js';
import { createAt, seededInput, updateAt } from './searchHelpers.js';

/**
 * One snapshot whose blocks answer a name (or CPN) `contains` both ways: an indexed block through its
 * trigram buckets, a block written before the index and a block too small for one through their names,
 * and outstanding deltas (renames, deletes, creates) over rows of each. Every answer is checked against
 * the names and CPNs the test wrote.
 */

type Kind = 'indexed' | 'legacy' | 'small' | 'new';
interface Component {
  id: string;
  name: string;
  cpn: string;
  createdAt: number;
  kind: Kind;
  deleted?: boolean;
}

const widgets = ['Widget', 'WIDGET', 'widget', 'wIdGeT'];

/** The n-th loaded name: needles recur at different rates (case, ß, dotted İ, a surrogate pair, final sigma, combining accent). */
function nameOf(n: number): string {
  const words = [n % 97 === 0 ? 'Gizmo' : widgets[n % 4]!];
  if (n % 5 === 1) words.push('Straße');
  if (n % 5 === 2) words.push('STRASSE');
  if (n % 7 === 3) words.push('İzmir');
  if (n % 7 === 4) words.push('izmir');
  if (n % 11 === 5) words.push('🔩 M3');
  if (n % 13 === 6) words.push('ΣΟΦΟΣ');
  if (n % 17 === 7) words.push(n % 2 ? 'Bracket' : 'BRACKET');
  if (n % 19 === 8) words.push('Café');
  if (n % 19 === 9) words.push('CAFE\u0301');
  words.push(`#${n}`);
  return words.join(' ');
}

// Blocks of the loaded library: indexed (rows 0–3,999), legacy (4,000–7,999, its index dropped), small (8,000–8,299).
const blockSize = minIndexedRows;
const loaded = 2 * blockSize + 300;
const kindOf = (n: number): Kind => (n < blockSize ? 'indexed' : n < 2 * blockSize ? 'legacy' : 'small');

/** Name needles: 3 code units and more once lowercased (the index), shorter ones and one too long to be worth the index. */
const nameNeedles = ['widget', 'WIDGET', 'straße', 'STRASS', 'İzm', 'izm', '🔩 m', 'σοφ', 'ΦΟΣ', 'caf', 'café', 'ket', '#12', '#80', 'gizmo', 'widget straße', 'zzq'];
const shortNameNeedles = ['ß', 'ΣΟ', '🔩', 'İ', '12'];
const cpnNeedles = ['0-50', '410', '00-504', '-508', '6000', 'zzz', '99', '1', '0-'];

const filterQuery = `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) {
  totalCount pageInfo { hasNextPage endCursor } edges { node { id } } } } }`;
type Page = { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: { id: string } }[] };
type Field = 'name' | 'cpn';
type Direction = 'ASC' | 'DESC';

async function filter(tenant: Tenant, field: Field, operators: Record<string, string>, pagination: { first: number; after?: string | null; direction: Direction }): Promise<Page> {
  const condition = field === 'name' ? { name: operators } : { identifier: { displayValue: operators } };
  const input = { and: [condition], pagination: { first: pagination.first, after: pagination.after ?? null, orderBy: { field: 'CREATED_AT', direction: pagination.direction } } };
  return (await gqlOk<{ component: { filter: Page } }>(tenant, filterQuery, { input })).component.filter;
}

/** The live components in a search's order: createdAt, then id, both the same direction. */
function ordered(components: Component[], direction: Direction): Component[] {
  const sign = direction === 'ASC' ? 1 : -1;
  return components.filter((c) => !c.deleted).sort((a, b) => sign * (a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
}

const holds = (component: Component, field: Field, needle: string) => (field === 'name' ? component.name : component.cpn).toLowerCase().includes(needle.toLowerCase());

/**
 * contains and notContains of each needle, newest and oldest first (a first page reaches the deltas and the
 * small and legacy blocks one way, the indexed block the other): the count and the page's ids as the model says.
 */
async function expectAnswers(tenant: Tenant, model: Component[], field: Field, needles: string[]): Promise<void> {
  for (const needle of needles) {
    for (const [operator, negate] of [
      ['contains', false],
      ['notContains', true],
    ] as const) {
      const expected = model.filter((c) => holds(c, field, needle) !== negate);
      for (const direction of ['DESC', 'ASC'] as const) {
        const page = await filter(tenant, field, { [operator]: needle }, { first: 60, direction });
        const label = `${field} ${operator} ${JSON.stringify(needle)} ${direction}`;
        expect(page.totalCount, label).toBe(ordered(expected, direction).length);
        expect(
          page.edges.map((e) => e.node.id),
          label,
        ).toEqual(
          ordered(expected, direction)
            .slice(0, 60)
            .map((c) => c.id),
        );
      }
    }
  }
}

/** Every page of a condition, `first` at a time: exactly the model's order, and the kinds each page holds. */
async function pageThrough(tenant: Tenant, model: Component[], field: Field, operators: Record<string, string>, first: number, direction: Direction): Promise<Kind[][]> {
  const byId = new Map(model.map((c) => [c.id, c]));
  const ids: string[] = [];
  const kinds: Kind[][] = [];
  let after: string | null = null;
  for (;;) {
    const page: Page = await filter(tenant, field, operators, { first, after, direction });
    ids.push(...page.edges.map((e) => e.node.id));
    kinds.push([...new Set(page.edges.map((e) => byId.get(e.node.id)!.kind))]);
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  const [operator, needle] = Object.entries(operators)[0]!;
  const expected = ordered(
    model.filter((c) => holds(c, field, needle) !== (operator === 'notContains')),
    direction,
  );
  expect(ids, `${field} ${JSON.stringify(operators)} by ${first} ${direction}`).toEqual(expected.map((c) => c.id));
  return kinds;
}

/** Pages that hold rows of both kinds: a page that crosses from one kind of block into the other. */
const crossing = (pages: Kind[][], a: Kind, b: Kind) => pages.filter((kinds) => kinds.includes(a) && kinds.includes(b)).length;

/** Whether a name (or CPN) matcher answered each block from its index: the index leaves the block's names unread. */
async function answeredByIndex(store: Store, library: LibraryRef, field: Field, needle: string): Promise<boolean[]> {
  const snapshot = await LibrarySnapshot.read(store, library, []);
  await snapshot.ensure([]);
  await snapshot.nameMatcher([needle.toLowerCase()], field);
  const blocks = snapshot.manifest.blocks.map(() => true);
  for (const row of snapshot.rows()) if (row.block >= 0 && (field === 'name' ? row.name : row.cpn) !== undefined) blocks[row.block] = false;
  return blocks;
}

const deleteMutation = 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }';

async function rename(store: Store, tenant: Tenant, model: Component[], n: number, name: string): Promise<void> {
  await updateAt(store, tenant, { id: model[n]!.id, name }, new Date().toISOString());
  model[n]!.name = name;
}

/** Deletes a loaded component through component.delete (the fixture writes no CPN claims: this one gets its claim first). */
async function remove(store: Store, tenant: Tenant, model: Component[], n: number): Promise<void> {
  const { id, cpn } = model[n]!;
  const claim = cpnClaimPut(tenant.organization.id, tenant.library.id, cpn, { cpn, componentId: id, at: new Date().toISOString() });
  await batchWrite(store, [{ put: claim.Put!.Item as Record<string, unknown> }]);
  await gqlOk(tenant, deleteMutation, { ids: [id] });
  model[n]!.deleted = true;
}

async function create(store: Store, tenant: Tenant, model: Component[], name: string, at: string): Promise<void> {
  const base = seededInput(model.length);
  const cpn = `${base.cpn!.split('-')[0]}-${60_000 + model.length - loaded}`;
  const record = await createAt(store, tenant, { ...base, name, cpn }, at);
  model.push({ id: record.id, name, cpn: record.cpn, createdAt: Date.parse(record.createdAt), kind: 'new' });
}

describe('a snapshot of indexed and unindexed blocks', () => {
  it('answers name and CPN contains/notContains, and pages, across both, with edits outstanding over each', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const library = { organizationId: tenant.organization.id, libraryId: tenant.library.id };
    const ids = await loadLibrary(store, tenant, loaded, { blockRows: blockSize, input: (n) => ({ ...seededInput(n), name: nameOf(n) }) });
    const model: Component[] = ids.map((id, n) => ({ id, name: nameOf(n), cpn: seededInput(n).cpn!, createdAt: fixtureCreatedAt(n), kind: kindOf(n) }));

    // The middle block as written before the indexes: no name or CPN index in the manifest, none stored.
    const bulk = await readManifest(store, library);
    const legacyBlock = bulk.blocks[1]!;
    const legacyIndex = [...(await readNameIndexParts(store, library, legacyBlock.names!.id)), ...(await readNameIndexParts(store, library, legacyBlock.cpns!.id, 'cpn'))];
    await deleteKeys(
      store,
      legacyIndex.map((part) => columnPartKey(library.organizationId, library.libraryId, part.column, part.blockId, part.start)),
    );
    const { names: _names, cpns: _cpns, ...legacy } = legacyBlock;
    await store.ddb.send(new PutCommand({ TableName: store.tableName, ...bulkManifestItem(library, bulk.watermark, [bulk.blocks[0]!, legacy, bulk.blocks[2]!]) }));
    const mixed = await readManifest(store, library);
    expect(mixed.blocks.map((block) => [block.rows, hasNameIndex(block), hasNameIndex(block, 'cpn')])).toEqual([
      [blockSize, true, true],
      [blockSize, false, false],
      [300, false, false],
    ]);

    // A compaction under way (its lease held) keeps this state: a search that reads the legacy block's names
    // would otherwise fold the deltas and index the block before the next search.
    const owner = randomUUID();
    expect(await acquireLease(store, library, owner, Date.now(), 30 * 60 * 1000)).toBe(true);

    // Outstanding deltas over rows of every block (renames that gain and lose needles, deletes) and new components.
    for (const [n, name] of [
      [0, 'WIDGET Straße İzmir renamed'],
      [1, 'plain part izmir'],
      [3999, 'Café 🔩 m3 ΣΟΦΟΣ'],
      [4000, 'widget CAFE\u0301 bracket'],
      [4001, 'Gizmo'],
      [4096, 'ĞİZMO İzmir straße'],
      [7999, 'wIdGeT #12 renamed'],
      [8000, 'Straße 🔩 M3'],
      [8150, 'Gizmo #12'],
      [8299, 'BRACKET widget'],
    ] as const)
      await rename(store, tenant, model, n, name);
    for (const n of [2, 4002, 8002]) await remove(store, tenant, model, n);
    for (const [i, name] of ['Widget İzmir new', 'STRASSE café new', '🔩 M3 ΣΟΦΟΣ new', 'gizmo #12 new'].entries()) await create(store, tenant, model, name, `2025-01-01T00:0${i}:00.000Z`);

    // The name index answers the indexed block only; the other two are read by their names.
    expect(await answeredByIndex(store, library, 'name', 'straße')).toEqual([true, false, false]);
    expect(await answeredByIndex(store, library, 'cpn', '410')).toEqual([true, false, false]);

    await expectAnswers(tenant, model, 'name', [...nameNeedles, ...shortNameNeedles]);
    await expectAnswers(tenant, model, 'cpn', cpnNeedles);
    // Pages that cross from the small block into the legacy one and from the legacy one into the indexed one.
    const byName = await pageThrough(tenant, model, 'name', { contains: 'caf' }, 37, 'DESC');
    expect(crossing(byName, 'small', 'legacy')).toBeGreaterThan(0);
    expect(crossing(byName, 'legacy', 'indexed')).toBeGreaterThan(0);
    const byNameUp = await pageThrough(tenant, model, 'name', { notContains: 'widget' }, 11, 'ASC');
    expect(crossing(byNameUp, 'indexed', 'legacy') + crossing(byNameUp, 'legacy', 'small')).toBeGreaterThan(0);
    const byCpn = await pageThrough(tenant, model, 'cpn', { contains: '410' }, 53, 'DESC');
    expect(crossing(byCpn, 'legacy', 'indexed')).toBeGreaterThan(0);
    expect((await readManifest(store, library)).version).toBe(mixed.version);

    // With the lease gone, the next search that reads the legacy block's names folds the deltas and indexes
    // that block (names only: CPN indexes are not added to older blocks): still a mix, for CPNs.
    await releaseLease(store, library, owner);
    await filter(tenant, 'name', { contains: 'straße' }, { first: 1, direction: 'DESC' });
    const upgraded = await readManifest(store, library);
    expect(upgraded.version).toBeGreaterThan(mixed.version);
    expect(upgraded.blocks.map((block) => [hasNameIndex(block), hasNameIndex(block, 'cpn')])).toEqual([
      [true, true],
      [true, false],
      [false, false],
    ]);
    for (const [n, name] of [
      [5, 'renamed İzmir caf'],
      [4005, 'renamed STRASSE 🔩 m'],
      [8005, 'renamed gizmo ΣΟΦΟΣ'],
    ] as const)
      await rename(store, tenant, model, n, name);
    await remove(store, tenant, model, 4010);
    await create(store, tenant, model, 'Widget bracket newer', '2025-02-01T00:00:00.000Z');
    expect(await answeredByIndex(store, library, 'name', 'straße')).toEqual([true, true, false]);
    expect(await answeredByIndex(store, library, 'cpn', '410')).toEqual([true, false, false]);
    await expectAnswers(tenant, model, 'name', ['widget', 'straße', 'İzm', 'izm', '🔩 m', 'ΦΟΣ', 'caf', '#12', 'gizmo', 'widget straße', 'é']);
    await expectAnswers(tenant, model, 'cpn', ['410', '00-504', '6000', '99']);
    const after = await pageThrough(tenant, model, 'cpn', { contains: '410' }, 53, 'DESC');
    expect(crossing(after, 'legacy', 'indexed')).toBeGreaterThan(0);
  }, 600_000);
});
