import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { createComponents } from './componentHelpers.js';

const filterQuery = `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount } } }`;
const queryQuery = `query($query: String!) { component { filterWithQuery(query: $query) { totalCount } } }`;
const buildQuery = `query($query: String!) { component { buildFilterFromQuery(query: $query) { matchMode } } }`;

/**
 * The size of a search: the key:value query had no length limit and a filter no limit on its conditions,
 * so one request within the 1 MB body ("a a a ...", 500,000 terms) spent over 10 s of CPU compiling its
 * conditions before reading a row. Both are BAD_USER_INPUT beyond their limit, before any work.
 */
describe('search request size', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
    await createComponents(tenant, [{ name: 'Sized bracket', categoryId: 'mechanical' }]);
  });

  it('a key:value query is at most 1,000 characters', async () => {
    const longest = `name:bracket ${'a'.repeat(1000 - 'name:bracket '.length)}`;
    expect(longest).toHaveLength(1000);
    expect((await gqlOk<{ component: { filterWithQuery: { totalCount: number } } }>(tenant, queryQuery, { query: longest })).component.filterWithQuery.totalCount).toBe(0);
    for (const [query, operation] of [
      [`${longest}a`, queryQuery],
      ['a '.repeat(5000), queryQuery],
      ['a '.repeat(5000), buildQuery],
    ] as const) {
      const refused = await expectError(tenant, operation, { query }, 'BAD_USER_INPUT');
      expect(refused.body.errors![0]!.extensions).toMatchObject({ field: 'query', limit: 1000 });
    }
  });

  it('a filter has at most 200 conditions in and, and 200 in or', async () => {
    const conditions = (n: number) => Array.from({ length: n }, () => ({ name: { contains: 'bracket' } }));
    expect((await gqlOk<{ component: { filter: { totalCount: number } } }>(tenant, filterQuery, { input: { and: conditions(200), or: conditions(200) } })).component.filter.totalCount).toBe(1);
    for (const list of ['and', 'or']) {
      const refused = await expectError(tenant, filterQuery, { input: { [list]: conditions(201) } }, 'BAD_USER_INPUT');
      expect(refused.body.errors![0]!.extensions).toMatchObject({ field: list, limit: 200 });
    }
  });
});
