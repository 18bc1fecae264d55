import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, type Tenant } from '../support/api.js';
import { createComponents, expectError } from './componentHelpers.js';

/**
 * Security issue 20: a like pattern such as `%a%a%a%a%b` compiled to a backtracking regular expression, so
 * on a 150-character name it took seconds, each extra % about 30 times longer, blocking the server (and
 * /health) meanwhile. Any caller who can search could send it, also as `name:*a*a*...` in the key:value
 * syntax. With 50 wildcards on a 10,000-character description the old matcher never answered; now it is
 * answered, correctly, and patterns over the limits are BAD_USER_INPUT.
 */

const filterQuery = `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount edges { node { name } } } } }`;
const filterWithQuery = `query($query: String!) { component { filterWithQuery(query: $query) { totalCount edges { node { name } } } } }`;
const buildFromQuery = `query($query: String!) { component { buildFilterFromQuery(query: $query) { matchMode } } }`;
const filterWithAI = `query($input: FilterWithAiInput!) { component { filterWithAI(input: $input) { success totalCount components { name } } } }`;

interface Connection {
  totalCount: number;
  edges: { node: { name: string } }[];
}

const ALL_A = 'like attack: all a';
const ENDS_B = 'like attack: ends in b';
const LONG_NAME_B = `${'a'.repeat(149)}b`;
const LONG_NAME_A = 'a'.repeat(150);
/** 50 wildcards: `%a` 49 times, then `%b`. */
const fiftyWildcards = `${'%a'.repeat(49)}%b`;

describe('like patterns run in linear time', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
    await createComponents(tenant, [
      { name: ALL_A, categoryId: 'mechanical', description: 'a'.repeat(10_000) },
      { name: ENDS_B, categoryId: 'mechanical', description: `${'a'.repeat(9_999)}b` },
      { name: LONG_NAME_A, categoryId: 'mechanical' },
      { name: LONG_NAME_B, categoryId: 'mechanical' },
    ]);
  }, 120_000);

  async function names(condition: object): Promise<string[]> {
    const data = await gqlOk<{ component: { filter: Connection } }>(tenant, filterQuery, { input: { and: [condition] } });
    return data.component.filter.edges.map((e) => e.node.name).sort();
  }

  it('a 50-wildcard like on 10,000-character descriptions is answered, and correctly', async () => {
    expect(await names({ description: { like: fiftyWildcards } })).toEqual([ENDS_B]);
    expect(await names({ description: { notLike: fiftyWildcards } })).toEqual([LONG_NAME_A, LONG_NAME_B, ALL_A].sort());
    // _ in every segment takes the other path of the matcher.
    expect(await names({ description: { like: `${'%a_'.repeat(49)}%b` } })).toEqual([ENDS_B]);
    expect(await names({ description: { like: `${'%a_'.repeat(49)}%` } })).toEqual([ALL_A, ENDS_B].sort());
  });

  it('the reported pattern on a 150-character name, and the same through the key:value syntax and a sentence', async () => {
    expect(await names({ name: { like: '%a%a%a%a%b' } })).toEqual([LONG_NAME_B]);
    expect(await names({ name: { like: fiftyWildcards } })).toEqual([LONG_NAME_B]);
    const stars = `${'*a'.repeat(49)}*b`;
    const viaQuery = (await gqlOk<{ component: { filterWithQuery: Connection } }>(tenant, filterWithQuery, { query: `name:${stars}` })).component.filterWithQuery;
    expect(viaQuery.edges.map((e) => e.node.name)).toEqual([LONG_NAME_B]);
    const viaDescription = (await gqlOk<{ component: { filterWithQuery: Connection } }>(tenant, filterWithQuery, { query: `desc:${stars}` })).component.filterWithQuery;
    expect(viaDescription.edges.map((e) => e.node.name)).toEqual([ENDS_B]);
    const viaSentence = (await gqlOk<{ component: { filterWithAI: { success: boolean; components: { name: string }[] } } }>(tenant, filterWithAI, { input: { query: `described as ${stars}` } }))
      .component.filterWithAI;
    expect(viaSentence.success).toBe(true);
    expect(viaSentence.components.map((c) => c.name)).toEqual([ENDS_B]);
  });

  it('refuses a pattern over 100 wildcards or 500 characters with BAD_USER_INPUT naming the condition', async () => {
    const tooMany = await expectError(tenant, filterQuery, { input: { and: [{ name: { eq: 'x' } }, { description: { like: '%a'.repeat(101) } }] } }, 'BAD_USER_INPUT');
    expect(tooMany.body.errors![0]!.message).toMatch(/^and\[1\]\.description\.like: a like pattern may hold at most 100 wildcards/);
    const tooLong = await expectError(tenant, filterQuery, { input: { or: [{ labels: { name: { notLike: `${'x'.repeat(500)}%` } } }] } }, 'BAD_USER_INPUT');
    expect(tooLong.body.errors![0]!.message).toMatch(/^or\[0\]\.labels\.name\.notLike: a like pattern may be at most 500 characters \(got 501\)/);
    const stars = '*a'.repeat(101);
    await expectError(tenant, filterWithQuery, { query: `name:${stars}` }, 'BAD_USER_INPUT');
    await expectError(tenant, buildFromQuery, { query: `desc:${stars}` }, 'BAD_USER_INPUT');
    await expectError(tenant, filterWithAI, { input: { query: `named ${stars}` } }, 'BAD_USER_INPUT');
  });
});
