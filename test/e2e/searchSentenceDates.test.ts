import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { createComponents } from './componentHelpers.js';

const filterWithAI = `query($input: FilterWithAiInput!) { component { filterWithAI(input: $input) {
  success error totalCount components { name } filterInput } } }`;
const buildWithAI = `query($input: BuildAiFilterInput!) { component { buildFilterWithAI(input: $input) {
  success error filterInput { and { updatedAt { rangeStart } createdAt { on } } } } } }`;

/**
 * Sentences with dates out of the calendar: a large count ("last 999999999 days") was a RangeError inside the
 * reader, answered INTERNAL_SERVER_ERROR; a day the month does not have ("February 31") was read as another
 * day (March 3) and searched silently.
 */
describe('sentences with dates out of the calendar', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
    await createComponents(tenant, [
      { name: 'Dated bracket', categoryId: 'mechanical' },
      { name: 'Dated plate', categoryId: 'mechanical' },
    ]);
  });

  it('read a count past the calendar from the earliest day (every component since, none on it)', async () => {
    const since = (await gqlOk<{ component: { filterWithAI: any } }>(tenant, filterWithAI, { input: { query: 'changed in the last 999999999 days' } })).component.filterWithAI;
    expect(since).toMatchObject({ success: true, error: null, totalCount: 2 });
    expect(since.filterInput.and).toEqual([{ updatedAt: { rangeStart: '0100-01-01' } }]);
    const built = (await gqlOk<{ component: { buildFilterWithAI: any } }>(tenant, buildWithAI, { input: { query: 'created 300000 years ago' } })).component.buildFilterWithAI;
    expect(built).toMatchObject({ success: true, filterInput: { and: [{ createdAt: { on: '0100-01-01' } }] } });
    const ago = (await gqlOk<{ component: { filterWithAI: any } }>(tenant, filterWithAI, { input: { query: 'created 300000 years ago' } })).component.filterWithAI;
    expect(ago).toMatchObject({ success: true, totalCount: 0, components: [] });
  });

  it('refuse a day the month does not have, naming it', async () => {
    for (const query of ['created on February 31', 'changed since 99 March']) {
      const refused = await expectError(tenant, filterWithAI, { input: { query } }, 'BAD_USER_INPUT');
      expect(refused.body.errors![0]!.message, query).toMatch(/is not a day of/);
      await expectError(tenant, buildWithAI, { input: { query } }, 'BAD_USER_INPUT');
    }
  });
});
