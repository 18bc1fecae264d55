import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, testStore, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { putUser, seedComponents, updateAt } from './searchHelpers.js';

const filterQuery = `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id name } } } } }`;
const filterWithQuery = `query($query: String!, $pagination: PaginationInput) { component { filterWithQuery(query: $query, pagination: $pagination) {
  totalCount edges { node { id name } } } } }`;
const operators = 'eq neq in notIn contains notContains like notLike';
const conditionFields = `status { id { ${operators} } name { ${operators} } mapsTo { ${operators} } }
  category { id { ${operators} } name { ${operators} } type { ${operators} } } state { eq } revision { value { eq neq in notIn lt gt } }
  createdBy { id { ${operators} } } updatedBy { id { ${operators} } } labels { name { ${operators} } } isPinned { eq } isBookmarked { eq } isArchived { eq }
  createdAt { before after on rangeStart rangeEnd } updatedAt { before after on rangeStart rangeEnd } name { ${operators} }
  identifier { displayValue { ${operators} } } description { contains doesNotContain like notLike }`;
const buildFromQuery = `query($query: String!) { component { buildFilterFromQuery(query: $query) {
  matchMode filterValues { field comparator value displayLabel } notFoundEntities { type name }
  filterInput { and { ${conditionFields} } or { ${conditionFields} } } } } }`;
const filterWithAI = `query($input: FilterWithAiInput!) { component { filterWithAI(input: $input) {
  components { id name } totalCount matchMode success interpretation error filterInput
  filterValues { field comparator value displayLabel } notFoundEntities { type name } } } }`;
const buildWithAI = `query($input: BuildAiFilterInput!) { component { buildFilterWithAI(input: $input) {
  success error matchMode interpretation filterValues { field comparator value displayLabel } notFoundEntities { type name }
  filterInput { and { ${conditionFields} } or { ${conditionFields} } } } } }`;

interface Connection {
  totalCount: number;
  edges: { node: { id: string; name: string } }[];
}
interface AiOutput {
  components: { id: string; name: string }[];
  totalCount: number;
  matchMode: string;
  success: boolean;
  interpretation: string | null;
  error: string | null;
  filterInput: Record<string, unknown> | null;
  filterValues: { field: string; comparator: string; value: string; displayLabel: string }[];
  notFoundEntities: { type: string; name: string }[] | null;
}

/** Drops the nulls GraphQL returns for unset fields of an output object. */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === null ? [] : [[k, compact(v)]])));
  }
  return value;
}

describe('query syntax and natural-language search', () => {
  let tenant: Tenant;
  let grace: string;

  beforeAll(async () => {
    tenant = await newTenant();
    const store = testStore();
    const seeded = await seedComponents(store, tenant, 120);
    grace = (await putUser(store, 'Grace', 'Hopper', tenant.organization.id)).id;
    // Grace changes twelve assemblies and documents today.
    const changed = seeded.filter((c) => c.category.type !== 'PART').slice(0, 12);
    for (const component of changed) await updateAt(store, tenant, { id: component.id, description: 'checked by Grace' }, new Date().toISOString(), grace);
  }, 120_000);

  async function filterNames(input: object): Promise<string[]> {
    return (await gqlOk<{ component: { filter: Connection } }>(tenant, filterQuery, { input })).component.filter.edges.map((e) => e.node.name);
  }

  it('filterWithQuery runs the key:value syntax as component.filter', async () => {
    const query = 'type:part status:design,prototype label:rohs name:*bracket*';
    const viaQuery = (await gqlOk<{ component: { filterWithQuery: Connection } }>(tenant, filterWithQuery, { query, pagination: { first: 200 } })).component.filterWithQuery;
    const equivalent = await filterNames({
      and: [{ category: { type: { eq: 'PART' } } }, { status: { id: { in: ['design', 'prototype'] } } }, { labels: { name: { eq: 'rohs' } } }, { name: { like: '%bracket%' } }],
      pagination: { first: 200 },
    });
    expect(viaQuery.totalCount).toBeGreaterThan(0);
    expect(viaQuery.edges.map((e) => e.node.name)).toEqual(equivalent);
  });

  it('buildFilterFromQuery returns the filter, usable as component.filter input', async () => {
    const { component } = await gqlOk<{ component: { buildFilterFromQuery: Record<string, unknown> & { filterInput: object } } }>(tenant, buildFromQuery, {
      query: 'type!:document label:RoHS by:grace label:nope',
    });
    const built = component.buildFilterFromQuery;
    expect(compact(built.filterInput)).toEqual({
      and: [{ category: { type: { neq: 'DOCUMENT' } } }, { labels: { name: { eq: 'rohs' } } }, { updatedBy: { id: { eq: grace } } }, { labels: { name: { eq: 'nope' } } }],
    });
    expect(built.notFoundEntities).toEqual([{ type: 'label', name: 'nope' }]);
    expect(built.filterValues).toContainEqual({ field: 'updatedBy.id', comparator: 'eq', value: grace, displayLabel: 'Changed by Grace Hopper' });
    expect(await filterNames(built.filterInput)).toEqual([]);
  });

  it('refuses a query it cannot read, saying where', async () => {
    const response = await expectError(tenant, filterWithQuery, { query: 'colour:red' }, 'BAD_USER_INPUT');
    expect(response.body.errors![0]!.message).toMatch(/character 1: unknown key "colour"/);
  });

  it('filterWithAI returns the first page of component.filter with its filterInput', async () => {
    const { component } = await gqlOk<{ component: { filterWithAI: AiOutput } }>(tenant, filterWithAI, { input: { query: 'assemblies or documents changed by Grace Hopper today' } });
    const result = component.filterWithAI;
    expect(result).toMatchObject({ success: true, matchMode: 'all', error: null, totalCount: 12, notFoundEntities: [] });
    expect(result.interpretation).toBe(`Type is Assembly or Document; Changed by Grace Hopper; Changed on ${new Date().toISOString().slice(0, 10)}`);
    expect(result.components).toHaveLength(12);
    expect(result.filterInput).toMatchObject({ pagination: { first: 20, orderBy: { field: 'CREATED_AT', direction: 'DESC' } } });
    expect(await filterNames(result.filterInput!)).toEqual(result.components.map((c) => c.name));
  });

  it('filterWithAI takes limit and orderBy; paging continues through component.filter', async () => {
    const orderBy = { field: 'NAME', direction: 'ASC' };
    const { component } = await gqlOk<{ component: { filterWithAI: AiOutput } }>(tenant, filterWithAI, { input: { query: 'parts in design with label rohs', limit: 5, orderBy } });
    const result = component.filterWithAI;
    expect(result.success).toBe(true);
    expect(result.components).toHaveLength(5);
    expect(result.totalCount).toBeGreaterThan(5);
    expect(result.filterInput!.pagination).toEqual({ first: 5, orderBy });
    const firstPage = (await gqlOk<{ component: { filter: Connection & { pageInfo: { endCursor: string } } } }>(tenant, filterQuery, { input: result.filterInput })).component.filter;
    expect(firstPage.edges.map((e) => e.node.id)).toEqual(result.components.map((c) => c.id));
    const rest = await filterNames({ ...result.filterInput, pagination: { first: 100, orderBy, after: firstPage.pageInfo.endCursor } });
    expect(rest).toHaveLength(result.totalCount - 5);
  });

  it('keeps the condition of a name not in the library (matching nothing), and reports it', async () => {
    const partly = (await gqlOk<{ component: { filterWithAI: AiOutput } }>(tenant, filterWithAI, { input: { query: 'documents modified by Bob' } })).component.filterWithAI;
    expect(partly).toMatchObject({ success: true, components: [], totalCount: 0, notFoundEntities: [{ type: 'user', name: 'Bob' }] });
    expect(partly.interpretation).toMatch(/not found: user "Bob"/);
    // Never silently widened: with no user Bob, "parts by Bob that are not obsolete" answers none.
    const notObsolete = (await gqlOk<{ component: { filterWithAI: AiOutput } }>(tenant, filterWithAI, { input: { query: 'parts by Bob that are not obsolete' } })).component.filterWithAI;
    expect(notObsolete).toMatchObject({ success: true, components: [], totalCount: 0, notFoundEntities: [{ type: 'user', name: 'Bob' }] });
    const unknownStatus = (await gqlOk<{ component: { filterWithAI: AiOutput } }>(tenant, filterWithAI, { input: { query: 'status frozen' } })).component.filterWithAI;
    expect(unknownStatus).toMatchObject({ success: true, components: [], totalCount: 0, notFoundEntities: [{ type: 'status', name: 'frozen' }] });
    // The filter it returns is usable as-is and answers the same (nothing).
    const again = await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, 'query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount } } }', {
      input: unknownStatus.filterInput,
    });
    expect(again.component.filter.totalCount).toBe(0);
    // "not by Bob" with no Bob excludes nobody.
    const notByBob = (await gqlOk<{ component: { filterWithAI: AiOutput } }>(tenant, filterWithAI, { input: { query: 'parts not by Bob' } })).component.filterWithAI;
    const allParts = (await gqlOk<{ component: { filterWithAI: AiOutput } }>(tenant, filterWithAI, { input: { query: 'parts' } })).component.filterWithAI;
    expect(notByBob.totalCount).toBe(allParts.totalCount);
    expect(allParts.totalCount).toBeGreaterThan(0);
  });

  it('buildFilterWithAI returns the typed filter', async () => {
    const { component } = await gqlOk<{ component: { buildFilterWithAI: { filterInput: object; success: boolean; matchMode: string } } }>(tenant, buildWithAI, {
      input: { query: 'pinned or bookmarked resistors' },
    });
    expect(component.buildFilterWithAI).toMatchObject({ success: true, matchMode: 'all' });
    expect(compact(component.buildFilterWithAI.filterInput)).toEqual({
      and: [{ category: { id: { eq: 'resistor' } } }],
      or: [{ isPinned: { eq: true } }, { isBookmarked: { eq: true } }],
    });
  });

  it.each([
    [{ query: 'ab' }, /3 to 500/],
    [{ query: 'x'.repeat(501) }, /3 to 500/],
    [{ query: 'resistors', limit: 0 }, /limit must be 1 to 100/],
    [{ query: 'resistors', limit: 101 }, /limit must be 1 to 100/],
  ])('refuses %j', async (input, message) => {
    const response = await expectError(tenant, filterWithAI, { input }, 'BAD_USER_INPUT');
    expect(response.body.errors![0]!.message).toMatch(message);
  });
});
