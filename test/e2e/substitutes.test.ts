import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, type Tenant } from '../support/api.js';
import { libraryPartition, partitionItems } from './componentHelpers.js';
import { createAssembly, createParts, expectCode, itemUpdateMutation, type Item } from './itemHelpers.js';

/** Substitutes on BOM lines: ranked alternatives of a child, valid in one assembly, indexed and checked like children. */

const linesQuery = `query($id: ID!) { component { findOne(id: $id) { id version children { childId substitutes { rank componentId component { name } } } } } }`;
const whereUsedQuery = `query($id: ID!) { component { findOne(id: $id) { whereUsed { assemblyId childId } } } }`;
const deleteMutation = 'mutation($ids: [ID!]) { component { delete(ids: $ids) { deletedIds } } }';

describe('BOM line substitutes', () => {
  let tenant: Tenant;
  let parts: Item[];
  const lines = async (id: string) => (await gqlOk<any>(tenant, linesQuery, { id })).component.findOne;
  const whereUsed = async (id: string) => (await gqlOk<any>(tenant, whereUsedQuery, { id })).component.findOne.whereUsed;
  const items = () => partitionItems(libraryPartition(tenant), ['C#', 'BOM#', 'BOMH#', 'USEDBY#', 'H#']);

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    parts = await createParts(tenant, ['Resistor', 'Resistor alt 1', 'Resistor alt 2', 'Capacitor']);
  });

  it('are set through item writes, read ranked on the line, and indexed where used like children', async () => {
    const [r, alt1, alt2, cap] = parts as [Item, Item, Item, Item];
    const board = await createAssembly(tenant, 'Board', [
      { childId: r.id, quantity: 2, substitutes: [alt2.id, alt1.id] },
      { childId: cap.id, quantity: 1 },
    ]);
    const read = await lines(board.id);
    expect(read.children).toEqual([
      {
        childId: r.id,
        substitutes: [
          { rank: 1, componentId: alt2.id, component: { name: 'Resistor alt 2' } },
          { rank: 2, componentId: alt1.id, component: { name: 'Resistor alt 1' } },
        ],
      },
      { childId: cap.id, substitutes: [] },
    ]);
    expect(await whereUsed(alt1.id)).toEqual([{ assemblyId: board.id, childId: r.id }]);
    // A substitute in use cannot be deleted, as a child cannot.
    await expectCode(tenant, deleteMutation, { ids: [alt1.id] }, 'COMPONENT_IN_USE');

    // Dropping it from the line frees it.
    await gqlOk(tenant, itemUpdateMutation, {
      inputs: [
        {
          id: board.id,
          children: [
            { childId: r.id, quantity: 2, substitutes: [alt2.id] },
            { childId: cap.id, quantity: 1 },
          ],
        },
      ],
    });
    expect((await lines(board.id)).children[0].substitutes.map((s: { componentId: string }) => s.componentId)).toEqual([alt2.id]);
    expect(await whereUsed(alt1.id)).toEqual([]);
    const deleted = await gqlOk<any>(tenant, deleteMutation, { ids: [alt1.id] });
    expect(deleted.component.delete.deletedIds).toEqual([alt1.id]);
  });

  it('refuses a substitute that makes a cycle with BOM_CYCLE, and bad substitutes, writing nothing', async () => {
    const [r, , alt2, cap] = parts as [Item, Item, Item, Item];
    const inner = await createAssembly(tenant, 'Inner', [{ childId: r.id }]);
    const outer = await createAssembly(tenant, 'Outer', [{ childId: inner.id }]);
    const before = await items();
    const update = (substitutes: string[], childId = r.id) => ({ inputs: [{ id: inner.id, children: [{ childId, substitutes }] }] });
    const cycle = await expectCode(tenant, itemUpdateMutation, update([outer.id]), 'BOM_CYCLE');
    expect(cycle.body.errors?.[0]?.extensions?.path).toEqual(['Inner', 'Outer', 'Inner']);
    await expectCode(tenant, itemUpdateMutation, update([inner.id]), 'BOM_CYCLE');
    await expectCode(tenant, itemUpdateMutation, update(['00000000-0000-4000-8000-000000000000']), 'CHILD_NOT_FOUND');
    await expectCode(tenant, itemUpdateMutation, update([r.id]), 'INVALID_BOM_LINE');
    await expectCode(tenant, itemUpdateMutation, update([alt2.id, alt2.id]), 'INVALID_BOM_LINE');
    // Substitutes count against the 20 children of a component.
    const crowded = Array.from({ length: 10 }, () => ({ childId: r.id, substitutes: [cap.id] }));
    await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: inner.id, children: [...crowded, { childId: cap.id }] }] }, 'ITEM_WRITE_TOO_LARGE');
    expect(await items()).toEqual(before);
    expect((await lines(inner.id)).children).toEqual([{ childId: r.id, substitutes: [] }]);
  });
});
