import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, testStore, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { createAt, putUser, seedComponents, seededInput } from './searchHelpers.js';

const groupsQuery = `query($groupBy: ComponentGroupBy!, $pagination: PaginationInput, $filter: ComponentFilterInput, $advancedFilter: AdvancedComponentFilterInput, $previewSize: Int) {
  component { componentGroups(groupBy: $groupBy, pagination: $pagination, filter: $filter, advancedFilter: $advancedFilter, previewSize: $previewSize) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { key label totalCount components { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id name } } } } } } } }`;
const inGroupQuery = `query($groupBy: ComponentGroupBy!, $key: String!, $pagination: PaginationInput, $advancedFilter: AdvancedComponentFilterInput) {
  component { componentsInGroup(groupBy: $groupBy, key: $key, pagination: $pagination, advancedFilter: $advancedFilter) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { id name } } } } }`;

interface Connection {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: { id: string; name: string } }[];
}
interface Groups {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: { key: string; label: string; totalCount: number; components: Connection } }[];
}

async function groups(tenant: Tenant, variables: Record<string, unknown>): Promise<Groups> {
  return (await gqlOk<{ component: { componentGroups: Groups } }>(tenant, groupsQuery, variables)).component.componentGroups;
}

async function inGroup(tenant: Tenant, variables: Record<string, unknown>): Promise<Connection> {
  return (await gqlOk<{ component: { componentsInGroup: Connection } }>(tenant, inGroupQuery, variables)).component.componentsInGroup;
}

describe('component.componentGroups and componentsInGroup', () => {
  let tenant: Tenant;
  let grace: string;

  beforeAll(async () => {
    tenant = await newTenant();
    const store = testStore();
    // 130 components: 13 per category, statuses and labels cycling; then 60 "bulk" PCBs by Grace.
    await seedComponents(store, tenant, 130);
    grace = (await putUser(store, 'Grace', 'Hopper', tenant.organization.id)).id;
    for (let i = 0; i < 60; i++) {
      await createAt(
        store,
        tenant,
        { name: `bulk board ${String(i).padStart(2, '0')}`, categoryId: 'pcb', labels: ['bulk'], cpn: `300-${60_000 + i}` },
        new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        grace,
      );
    }
  }, 120_000);

  it('groups by category, ordered by label, each previewing its components newest first', async () => {
    const result = await groups(tenant, { groupBy: 'CATEGORY' });
    expect(result.totalCount).toBe(10);
    expect(result.pageInfo.hasNextPage).toBe(false);
    const labels = result.edges.map((e) => e.node.label);
    expect(labels).toEqual([...labels].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    const resistor = result.edges.find((e) => e.node.key === 'resistor')!.node;
    expect(resistor).toMatchObject({ label: 'Resistor', totalCount: 13, components: { totalCount: 13, pageInfo: { hasNextPage: false } } });
    expect(resistor.components.edges).toHaveLength(13);
    const pcb = result.edges.find((e) => e.node.key === 'pcb')!.node;
    expect(pcb.totalCount).toBe(73);
    expect(pcb.components.edges).toHaveLength(50);
    expect(pcb.components.pageInfo.hasNextPage).toBe(true);
  });

  it('loads the rest of a group with componentsInGroup, each component once', async () => {
    const first = (await groups(tenant, { groupBy: 'LABEL' })).edges.find((e) => e.node.key === 'bulk')!.node.components;
    expect(first.edges).toHaveLength(50);
    expect(first.edges.map((e) => e.node.name)).toEqual(Array.from({ length: 50 }, (_, i) => `bulk board ${String(59 - i).padStart(2, '0')}`));
    const rest = await inGroup(tenant, { groupBy: 'LABEL', key: 'bulk', pagination: { after: first.pageInfo.endCursor } });
    expect(rest.edges.map((e) => e.node.name)).toEqual(Array.from({ length: 10 }, (_, i) => `bulk board ${String(9 - i).padStart(2, '0')}`));
    expect(rest).toMatchObject({ totalCount: 60, pageInfo: { hasNextPage: false } });
  });

  it('groups by status, type, modified-by user and label, with names users know', async () => {
    const byStatus = await groups(tenant, { groupBy: 'STATUS', previewSize: 1 });
    const perStatus = (id: string) => Array.from({ length: 130 }, (_, n) => seededInput(n).statusId).filter((s) => s === id).length;
    expect(byStatus.edges.map((e) => [e.node.key, e.node.label, e.node.totalCount])).toEqual([
      ['design', 'Design', perStatus('design') + 60],
      ['maintenance', 'Maintenance', perStatus('maintenance')],
      ['obsolete', 'Obsolete', perStatus('obsolete')],
      ['production', 'Production', perStatus('production')],
      ['prototype', 'Prototype', perStatus('prototype')],
    ]);
    const byType = await groups(tenant, { groupBy: 'TYPE', previewSize: 1 });
    expect(byType.edges.map((e) => [e.node.key, e.node.label, e.node.totalCount])).toEqual([
      ['ASSEMBLY', 'Assembly', 26],
      ['DOCUMENT', 'Document', 26],
      ['PART', 'Part', 78 + 60],
    ]);
    const byUser = await groups(tenant, { groupBy: 'MODIFIED_BY', previewSize: 1 });
    expect(byUser.edges.map((e) => e.node.totalCount).sort((a, b) => a - b)).toEqual([60, 130]);
    expect(byUser.edges.find((e) => e.node.key === grace)!.node.label).toBe('Grace Hopper');
    const byLabel = await groups(tenant, { groupBy: 'LABEL', previewSize: 1 });
    expect(byLabel.edges.map((e) => [e.node.key, e.node.label, e.node.totalCount])).toEqual([
      ['bulk', 'bulk', 60],
      ['', 'No label', 43],
      ['reach', 'reach', 44],
      ['rohs', 'rohs', 65],
    ]);
  });

  it('applies filter and advancedFilter, pages through groups and orders previews by pagination.orderBy', async () => {
    const filtered = await groups(tenant, { groupBy: 'TYPE', filter: { categoryType: 'PART' }, advancedFilter: { and: [{ labels: { name: { eq: 'rohs' } } }] } });
    expect(filtered.edges.map((e) => [e.node.key, e.node.totalCount])).toEqual([['PART', 39]]);
    const firstTwo = await groups(tenant, { groupBy: 'CATEGORY', pagination: { first: 2, orderBy: { field: 'NAME', direction: 'ASC' } }, previewSize: 5 });
    expect(firstTwo.edges).toHaveLength(2);
    expect(firstTwo.pageInfo.hasNextPage).toBe(true);
    for (const edge of firstTwo.edges) {
      const names = edge.node.components.edges.map((e) => e.node.name.toLowerCase());
      expect(names).toEqual([...names].sort());
    }
    const next = await groups(tenant, { groupBy: 'CATEGORY', pagination: { first: 100, after: firstTwo.pageInfo.endCursor } });
    expect(next.edges.map((e) => e.node.key)).not.toContain(firstTwo.edges[0]!.node.key);
    expect(firstTwo.edges.length + next.edges.length).toBe(10);
  });

  it('refuses a preview above 50', async () => {
    await expectError(tenant, groupsQuery, { groupBy: 'CATEGORY', previewSize: 51 }, 'BAD_USER_INPUT');
  });
});
