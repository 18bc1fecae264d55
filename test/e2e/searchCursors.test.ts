import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, testStore, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { seedComponents } from './searchHelpers.js';

const filterQuery = `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } } } }`;
const findAllQuery = `query($filter: ComponentFilterInput, $pagination: PaginationInput) { component { findAll(filter: $filter, pagination: $pagination) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } } } }`;
const queryQuery = `query($query: String!, $pagination: PaginationInput) { component { filterWithQuery(query: $query, pagination: $pagination) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } } } }`;
const groupsQuery = `query($groupBy: ComponentGroupBy!, $pagination: PaginationInput, $advancedFilter: AdvancedComponentFilterInput, $previewSize: Int) {
  component { componentGroups(groupBy: $groupBy, pagination: $pagination, advancedFilter: $advancedFilter, previewSize: $previewSize) {
    pageInfo { hasNextPage endCursor } edges { cursor node { key components { pageInfo { hasNextPage endCursor } edges { node { id } } } } } } } }`;
const inGroupQuery = `query($groupBy: ComponentGroupBy!, $key: String!, $pagination: PaginationInput, $advancedFilter: AdvancedComponentFilterInput) {
  component { componentsInGroup(groupBy: $groupBy, key: $key, pagination: $pagination, advancedFilter: $advancedFilter) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { id } } } } }`;

interface Connection {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: { id: string } }[];
}

const byName = { field: 'NAME', direction: 'ASC' };

/**
 * A cursor is a position in one list: the query (operation, filter, group), its order and its library. Read
 * in another list it was taken as a position there and answered a page of it, silently: a CREATED_AT cursor
 * sent with orderBy NAME answered the first page again, one of another filter skipped whatever sorted before
 * it, one of another library paged this one. Now it is BAD_USER_INPUT on after.
 */
describe('search cursors', () => {
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    [tenant, other] = await Promise.all([newTenant(), newTenant()]);
    await Promise.all([seedComponents(testStore(), tenant, 40), seedComponents(testStore(), other, 10)]);
  }, 120_000);

  const filter = async (t: Tenant, input: object) => (await gqlOk<{ component: { filter: Connection } }>(t, filterQuery, { input })).component.filter;
  const refusedAfter = async (query: string, variables: Record<string, unknown>, t: Tenant = tenant) => {
    const response = await expectError(t, query, variables, 'BAD_USER_INPUT');
    expect(response.body.errors![0]!.extensions!.field).toBe('after');
    expect(response.body.errors![0]!.message).toMatch(/cursor/);
  };

  it('page on in the list that issued them: every component once', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: Connection = await filter(tenant, { and: [{ labels: { name: { eq: 'rohs' } } }], pagination: { first: 7, after, orderBy: byName } });
      seen.push(...page.edges.map((e) => e.node.id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toHaveLength(20);
    expect(new Set(seen).size).toBe(20);
    // The same filter written with its fields in another order, and with explicit nulls, is the same list.
    const one = await filter(tenant, { pagination: { first: 5 }, and: [{ labels: { name: { eq: 'rohs' } } }] });
    const two = await filter(tenant, { and: [{ labels: { name: { eq: 'rohs', neq: null } }, name: null }], or: null, pagination: { after: one.pageInfo.endCursor, first: 5 } });
    expect(two.edges).toHaveLength(5);
    expect(two.edges.map((e) => e.node.id)).not.toContain(one.edges[0]!.node.id);
  });

  it('are refused with another order, filter, operation or library', async () => {
    const first = await filter(tenant, { pagination: { first: 5 } });
    const after = first.pageInfo.endCursor!;
    // Another order: the field, or the direction.
    await refusedAfter(filterQuery, { input: { pagination: { first: 5, after, orderBy: byName } } });
    await refusedAfter(filterQuery, { input: { pagination: { first: 5, after, orderBy: { field: 'UPDATED_AT', direction: 'DESC' } } } });
    await refusedAfter(filterQuery, { input: { pagination: { first: 5, after, orderBy: { field: 'CREATED_AT', direction: 'ASC' } } } });
    // Another filter.
    await refusedAfter(filterQuery, { input: { and: [{ name: { contains: 'resistor' } }], pagination: { first: 5, after } } });
    // Another operation's filter: findAll's, filterWithQuery's (without a filter, findAll is the same list: every component).
    await refusedAfter(findAllQuery, { filter: { name: 'resistor' }, pagination: { first: 5, after } });
    await gqlOk(tenant, findAllQuery, { pagination: { first: 5, after } });
    await refusedAfter(queryQuery, { query: 'name:resistor', pagination: { first: 5, after } });
    // Another library (another organization's).
    await refusedAfter(filterQuery, { input: { pagination: { first: 5, after } } }, other);
    // A findAll cursor in findAll with another filter.
    const all = (await gqlOk<{ component: { findAll: Connection } }>(tenant, findAllQuery, { pagination: { first: 5 } })).component.findAll;
    await refusedAfter(findAllQuery, { filter: { categoryType: 'PART' }, pagination: { first: 5, after: all.pageInfo.endCursor } });
    // The cursor of a group page is not a position among components.
    const groups = (await gqlOk<{ component: { componentGroups: { pageInfo: { endCursor: string } } } }>(tenant, groupsQuery, { groupBy: 'CATEGORY', pagination: { first: 2 } })).component
      .componentGroups;
    await refusedAfter(filterQuery, { input: { pagination: { first: 5, after: groups.pageInfo.endCursor, orderBy: byName } } });
    // Nor is a component cursor a position among groups.
    await refusedAfter(groupsQuery, { groupBy: 'CATEGORY', pagination: { first: 2, after } });
  });

  it('of filterWithQuery page on there', async () => {
    const one = (await gqlOk<{ component: { filterWithQuery: Connection } }>(tenant, queryQuery, { query: 'label:rohs', pagination: { first: 15 } })).component.filterWithQuery;
    const two = (await gqlOk<{ component: { filterWithQuery: Connection } }>(tenant, queryQuery, { query: 'LABEL:rohs', pagination: { first: 15, after: one.pageInfo.endCursor } })).component
      .filterWithQuery;
    expect(new Set([...one.edges, ...two.edges].map((e) => e.node.id)).size).toBe(20);
    await refusedAfter(queryQuery, { query: 'label:reach', pagination: { first: 15, after: one.pageInfo.endCursor } });
  });

  it("of a group's preview page on in componentsInGroup of that group only", async () => {
    const advancedFilter = { and: [{ labels: { name: { eq: 'rohs' } } }] };
    const groups = (
      await gqlOk<{ component: { componentGroups: { edges: { node: { key: string; components: Connection } }[] } } }>(tenant, groupsQuery, {
        groupBy: 'STATUS',
        advancedFilter,
        previewSize: 2,
      })
    ).component.componentGroups.edges.map((e) => e.node);
    const [a, b] = groups.filter((g) => g.components.pageInfo.hasNextPage);
    expect(b).toBeDefined();
    const rest = (
      await gqlOk<{ component: { componentsInGroup: Connection } }>(tenant, inGroupQuery, { groupBy: 'STATUS', key: a!.key, advancedFilter, pagination: { after: a!.components.pageInfo.endCursor } })
    ).component.componentsInGroup;
    const ids = [...a!.components.edges, ...rest.edges].map((e) => e.node.id);
    expect(ids).toHaveLength(rest.totalCount);
    expect(new Set(ids).size).toBe(rest.totalCount);
    // Another group, another grouping, another filter.
    await refusedAfter(inGroupQuery, { groupBy: 'STATUS', key: b!.key, advancedFilter, pagination: { after: a!.components.pageInfo.endCursor } });
    await refusedAfter(inGroupQuery, { groupBy: 'CATEGORY', key: a!.key, advancedFilter, pagination: { after: a!.components.pageInfo.endCursor } });
    await refusedAfter(inGroupQuery, { groupBy: 'STATUS', key: a!.key, pagination: { after: a!.components.pageInfo.endCursor } });
    // A group page's cursor pages the groups of that grouping and filter only.
    const page = (await gqlOk<{ component: { componentGroups: { pageInfo: { endCursor: string } } } }>(tenant, groupsQuery, { groupBy: 'STATUS', advancedFilter, pagination: { first: 1 } })).component
      .componentGroups;
    await gqlOk(tenant, groupsQuery, { groupBy: 'STATUS', advancedFilter, pagination: { first: 1, after: page.pageInfo.endCursor } });
    await refusedAfter(groupsQuery, { groupBy: 'CATEGORY', advancedFilter, pagination: { first: 1, after: page.pageInfo.endCursor } });
    await refusedAfter(groupsQuery, { groupBy: 'STATUS', pagination: { first: 1, after: page.pageInfo.endCursor } });
  });
});
