import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, testStore, type Tenant } from '../support/api.js';
import { seed } from '../support/seed.js';
import { compactSearchIndex } from './searchHelpers.js';

const filterQuery = `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id name createdAt updatedAt } } } } }`;

interface Node {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}
interface Page {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: Node }[];
}

async function page(tenant: Tenant, input: object): Promise<Page> {
  return (await gqlOk<{ component: { filter: Page } }>(tenant, filterQuery, { input })).component.filter;
}

/** Every page of a filter, calling between(pageNumber) after each page. */
async function pageThrough(tenant: Tenant, first: number, orderBy?: object, between?: (pageNumber: number) => Promise<void>, and: object[] = []): Promise<Node[]> {
  const nodes: Node[] = [];
  let after: string | null = null;
  for (let n = 1; ; n += 1) {
    const result: Page = await page(tenant, { and, pagination: { first, after, ...(orderBy ? { orderBy } : {}) } });
    expect(result.edges.length).toBeLessThanOrEqual(first);
    nodes.push(...result.edges.map((e) => e.node));
    if (!result.pageInfo.hasNextPage) return nodes;
    expect(result.pageInfo.endCursor).toBe(result.edges.at(-1)!.cursor);
    after = result.pageInfo.endCursor;
    await between?.(n);
  }
}

const update = 'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id name } } }';

describe('paging through 10,000 components', () => {
  let tenant: Tenant;
  let seededIds: Set<string>;

  beforeAll(async () => {
    // This test reads and pages: the library is written as an import writes one (component items and search
    // blocks of 1,000 rows, the layout a compaction leaves), not created and compacted one by one (the
    // tests below page through libraries made by component.create and compaction).
    const seeded = await seed().components(10_000, { write: 'bulk' }).build();
    tenant = seeded.tenant;
    seededIds = new Set(seeded.components.map((c) => c.id));
    // A hang guard, not a budget.
  }, 600_000);

  it('returns each component exactly once, 50 at a time, newest first', async () => {
    const nodes = await pageThrough(tenant, 50);
    expect(nodes).toHaveLength(10_000);
    expect(new Set(nodes.map((n) => n.id))).toEqual(seededIds);
    for (let i = 1; i < nodes.length; i++) expect(nodes[i - 1]!.createdAt >= nodes[i]!.createdAt).toBe(true);
  }, 480_000);

  it('returns each exactly once by name, 1000 at a time', async () => {
    const nodes = await pageThrough(tenant, 1000, { field: 'NAME', direction: 'ASC' });
    expect(nodes.map((n) => n.id).sort()).toEqual([...seededIds].sort());
    const names = nodes.map((n) => n.name.toLowerCase());
    expect(names).toEqual([...names].sort());
  }, 120_000);
});

describe('paging while the library changes', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    ({ tenant } = await seed().components(300, { compact: true }).build());
  }, 120_000);

  it.each([
    ['CREATED_AT', 'DESC'],
    ['UPDATED_AT', 'DESC'],
    ['NAME', 'ASC'],
    ['CPN', 'DESC'],
  ])(
    'never repeats or skips an unchanged component (%s %s), across edits, creates, deletes and a compaction',
    async (field, direction) => {
      const before = await pageThrough(tenant, 1000);
      const changed = new Set<string>();
      const nodes = await pageThrough(tenant, 40, { field, direction }, async (n) => {
        if (n !== 2) return;
        // Edit some components already seen and some not yet, delete a few, add new ones, then compact.
        const edited = [...before.slice(10, 20), ...before.slice(200, 210)];
        await gqlOk(tenant, update, { inputs: edited.map((c) => ({ id: c.id, name: `${c.name} edited ${field}` })) });
        const deleted = before.slice(250, 255).map((c) => c.id);
        await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: deleted });
        await gqlOk(tenant, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', {
          inputs: Array.from({ length: 5 }, (_, i) => ({ name: `new during paging ${field} ${i}`, categoryId: 'mechanical' })),
        });
        for (const id of [...edited.map((c) => c.id), ...deleted]) changed.add(id);
        await compactSearchIndex(testStore(), tenant);
      });
      const seen = nodes.map((n) => n.id);
      // The guarantee is for components that did not change: an edited one whose new sort value lies past the
      // cursor (a rename of the very component the page ended on) is rightly met again.
      const seenUnchanged = seen.filter((id) => !changed.has(id));
      expect(new Set(seenUnchanged).size).toBe(seenUnchanged.length);
      const unchanged = before.filter((c) => !changed.has(c.id)).map((c) => c.id);
      expect(unchanged.filter((id) => !seen.includes(id))).toEqual([]);
    },
    120_000,
  );
});

describe('concurrent writers and compactions', () => {
  it('lose no search entry', async () => {
    const { tenant, components: seeded } = await seed().components(150, { compact: true }).build();
    let writing = true;
    // Ten writers rename components (two of them the same ones), while searches and compactions run.
    const writers = Array.from({ length: 10 }, async (_, w) => {
      for (let round = 0; round < 8; round++) {
        const targets = seeded.slice((w % 8) * 15, (w % 8) * 15 + 15).slice(round % 3, (round % 3) + 5);
        await gqlOk(tenant, update, { inputs: targets.map((c) => ({ id: c.id, name: `${c.name.split(' #')[0]} #${w}-${round}` })) });
      }
    });
    const readers = (async () => {
      while (writing) {
        await page(tenant, { pagination: { first: 10 } });
        await compactSearchIndex(testStore(), tenant).catch(() => undefined);
      }
    })();
    await Promise.all(writers);
    writing = false;
    await readers;

    const truth = new Map<string, string>();
    for (let start = 0; start < seeded.length; start += 100) {
      const ids = seeded.slice(start, start + 100).map((c) => c.id);
      const data = await gqlOk<{ component: { findAll: { edges: { node: { id: string; name: string } }[] } } }>(
        tenant,
        'query($filter: ComponentFilterInput) { component { findAll(filter: $filter, pagination: { first: 100 }) { edges { node { id name } } } } }',
        { filter: { ids } },
      );
      for (const { node } of data.component.findAll.edges) truth.set(node.id, node.name);
    }
    const searched = await pageThrough(tenant, 1000);
    expect(searched).toHaveLength(150);
    expect(new Map(searched.map((n) => [n.id, n.name]))).toEqual(truth);
    // And the search data itself (not only the fetched records) is current: each final name finds its component.
    const renamed = [...truth.entries()].filter(([, name]) => name.includes(' #'));
    expect(renamed.length).toBeGreaterThan(50);
    for (const [id, name] of renamed.slice(0, 20)) {
      const found = await page(tenant, { and: [{ name: { eq: name } }] });
      expect(found.edges.map((e) => e.node.id)).toEqual([id]);
    }
    await compactSearchIndex(testStore(), tenant);
    const after = await page(tenant, { and: [{ name: { contains: ' #' } }], pagination: { first: 1000 } });
    expect(after.totalCount).toBe(renamed.length);
  }, 120_000);
});
