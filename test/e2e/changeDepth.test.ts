import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, type Tenant } from '../support/api.js';
import { expectCode } from '../support/errors.js';
import { createAssembly, createParts, updateItems, type Item } from './itemHelpers.js';

const compareQuery = `query($left: ComponentRefInput!, $right: ComponentRefInput!, $levels: Int) { component { compare(left: $left, right: $right, levels: $levels) {
  left { id version } right { id version } levels
  fields { field left right } attributes { attributeId left right }
  bom { change childId changedFields child { id } left { quantity refDes itemNumber notes childHistoryId extendedQuantity level } right { quantity refDes itemNumber notes childHistoryId extendedQuantity level } }
} } }`;

interface Difference {
  change: string;
  childId: string;
  changedFields: string[];
  left: { quantity: number | null; refDes: string | null; extendedQuantity: number; level: number } | null;
  right: { quantity: number | null; refDes: string | null; extendedQuantity: number; level: number } | null;
}
interface Comparison {
  left: { id: string; version: number };
  right: { id: string; version: number };
  levels: number;
  fields: { field: string; left: unknown; right: unknown }[];
  attributes: unknown[];
  bom: Difference[];
}

async function compare(tenant: Tenant, left: Record<string, unknown>, right: Record<string, unknown>, levels?: number): Promise<Comparison> {
  return (await gqlOk<{ component: { compare: Comparison } }>(tenant, compareQuery, { left, right, ...(levels ? { levels } : {}) })).component.compare;
}

const byChild = (bom: Difference[]) => Object.fromEntries(bom.map((d) => [d.childId, d]));

describe('component.compare', () => {
  let tenant: Tenant;
  let parts: Item[];

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    parts = await createParts(tenant, ['Cmp p0', 'Cmp p1', 'Cmp p2', 'Cmp p3', 'Cmp p4', 'Cmp p5']);
  });

  it('compares two versions of one assembly: each kind of BOM difference, and the fields', async () => {
    const [p0, p1, p2, p3, p4] = parts as [Item, Item, Item, Item, Item];
    const assembly = await createAssembly(tenant, 'Cmp board', [
      { childId: p0.id, quantity: 2, refDes: 'R1, R2' },
      { childId: p1.id, quantity: 1 },
      { childId: p2.id, quantity: 4, itemNumber: '10' },
      { childId: p3.id, quantity: 1, notes: 'old' },
    ]);
    const [after] = await updateItems(tenant, [
      {
        id: assembly.id,
        name: 'Cmp board v2',
        children: [
          { childId: p0.id, quantity: 3, refDes: 'R1, R2, R3' },
          { childId: p2.id, quantity: 4, itemNumber: '20' },
          { childId: p3.id, quantity: 1, notes: 'new', childHistoryId: `${p3.id}:1` },
          { childId: p4.id, quantity: 5 },
        ],
      },
    ]);
    const result = await compare(tenant, { id: assembly.id, version: assembly.version }, { id: assembly.id });
    expect(result.left).toEqual({ id: assembly.id, version: assembly.version });
    expect(result.right).toEqual({ id: assembly.id, version: after!.version });
    expect(result.fields).toEqual([{ field: 'name', left: 'Cmp board', right: 'Cmp board v2' }]);
    const bom = byChild(result.bom);
    expect(Object.keys(bom).sort()).toEqual([p0.id, p1.id, p2.id, p3.id, p4.id].sort());
    expect(bom[p0.id]).toMatchObject({ change: 'CHANGED', changedFields: ['quantity', 'refDes'], left: { quantity: 2, refDes: 'R1, R2' }, right: { quantity: 3, refDes: 'R1, R2, R3' } });
    expect(bom[p1.id]).toMatchObject({ change: 'REMOVED', left: { quantity: 1 }, right: null });
    expect(bom[p2.id]).toMatchObject({ change: 'CHANGED', changedFields: ['itemNumber'] });
    expect(bom[p3.id]).toMatchObject({ change: 'CHANGED', changedFields: ['notes', 'childHistoryId'] });
    expect(bom[p4.id]).toMatchObject({ change: 'ADDED', left: null, right: { quantity: 5, level: 1 } });
    // The other way round, everything mirrors.
    const reverse = byChild((await compare(tenant, { id: assembly.id }, { id: assembly.id, version: assembly.version })).bom);
    expect(reverse[p1.id]!.change).toBe('ADDED');
    expect(reverse[p4.id]!.change).toBe('REMOVED');
    // The same version against itself: no difference.
    expect(await compare(tenant, { id: assembly.id, version: assembly.version }, { id: assembly.id, version: assembly.version })).toMatchObject({ fields: [], attributes: [], bom: [] });
  });

  it('compares two different assemblies', async () => {
    const [p0, p1, p2] = parts as [Item, Item, Item];
    const a = await createAssembly(tenant, 'Cmp left', [
      { childId: p0.id, quantity: 1 },
      { childId: p1.id, quantity: 2 },
    ]);
    const b = await createAssembly(tenant, 'Cmp right', [
      { childId: p1.id, quantity: 3 },
      { childId: p2.id, quantity: 1 },
    ]);
    const result = await compare(tenant, { id: a.id }, { id: b.id });
    expect(result.fields).toEqual(expect.arrayContaining([{ field: 'name', left: 'Cmp left', right: 'Cmp right' }, expect.objectContaining({ field: 'cpn' })]));
    const bom = byChild(result.bom);
    expect(bom[p0.id]!.change).toBe('REMOVED');
    expect(bom[p1.id]).toMatchObject({ change: 'CHANGED', changedFields: ['quantity'], left: { quantity: 2 }, right: { quantity: 3 } });
    expect(bom[p2.id]!.change).toBe('ADDED');
  });

  it('compares 3-level flattened BOMs by extended quantity', async () => {
    const [p0, p1, p2, p5] = [parts[0]!, parts[1]!, parts[2]!, parts[5]!];
    // sub: 3 x p0, 2 x p1. mid: 2 x sub, 1 x p0. top: 4 x mid, 1 x p2.
    const sub = await createAssembly(tenant, 'Flat sub', [
      { childId: p0.id, quantity: 3 },
      { childId: p1.id, quantity: 2 },
    ]);
    const mid = await createAssembly(tenant, 'Flat mid', [
      { childId: sub.id, quantity: 2 },
      { childId: p0.id, quantity: 1 },
    ]);
    const top = await createAssembly(tenant, 'Flat top', [
      { childId: mid.id, quantity: 4 },
      { childId: p2.id },
    ]);
    // The other top: 5 x mid, and p5 instead of p2.
    const other = await createAssembly(tenant, 'Flat other', [
      { childId: mid.id, quantity: 5 },
      { childId: p5.id, quantity: 2 },
    ]);
    const result = await compare(tenant, { id: top.id }, { id: other.id }, 3);
    expect(result.levels).toBe(3);
    const bom = byChild(result.bom);
    // p0: top 4 x mid x (2 x sub x 3 + 1) = 4 x 7 = 28; other 5 x 7 = 35. p1: 4 x 2 x 2 = 16; 5 x 2 x 2 = 20.
    expect(bom[p0.id]).toMatchObject({ change: 'CHANGED', changedFields: ['extendedQuantity'], left: { extendedQuantity: 28, level: 2 }, right: { extendedQuantity: 35, level: 2 } });
    expect(bom[p1.id]).toMatchObject({ change: 'CHANGED', left: { extendedQuantity: 16, level: 3 }, right: { extendedQuantity: 20, level: 3 } });
    expect(bom[mid.id]).toMatchObject({ change: 'CHANGED', left: { extendedQuantity: 4, level: 1 }, right: { extendedQuantity: 5, level: 1 } });
    expect(bom[sub.id]).toMatchObject({ change: 'CHANGED', left: { extendedQuantity: 8 }, right: { extendedQuantity: 10 } });
    expect(bom[p2.id]).toMatchObject({ change: 'REMOVED', left: { extendedQuantity: 1 } });
    expect(bom[p5.id]).toMatchObject({ change: 'ADDED', right: { extendedQuantity: 2 } });
    expect(result.bom).toHaveLength(6);
    // Two levels stop at sub: p1 is not reached, p0 only through mid's own line.
    const two = byChild((await compare(tenant, { id: top.id }, { id: other.id }, 2)).bom);
    expect(two[p1.id]).toBeUndefined();
    expect(two[p0.id]).toMatchObject({ left: { extendedQuantity: 4 }, right: { extendedQuantity: 5 } });
  });

  it('refuses unknown components, versions and revisions, and a part compared by levels', async () => {
    const part = parts[0]!;
    await expectCode(tenant, compareQuery, { left: { id: '00000000-0000-4000-8000-000000000000' }, right: { id: part.id } }, 'NOT_FOUND');
    await expectCode(tenant, compareQuery, { left: { id: part.id, version: 99 }, right: { id: part.id } }, 'VERSION_NOT_FOUND');
    await expectCode(tenant, compareQuery, { left: { id: part.id, version: 0 }, right: { id: part.id } }, 'VERSION_NOT_FOUND');
    await expectCode(tenant, compareQuery, { left: { id: part.id, revision: 'ZZ' }, right: { id: part.id } }, 'REVISION_NOT_FOUND');
    await expectCode(tenant, compareQuery, { left: { id: part.id, version: 1, revision: 'A' }, right: { id: part.id } }, 'BAD_USER_INPUT');
    await expectCode(tenant, compareQuery, { left: { id: part.id }, right: { id: part.id }, levels: 2 }, 'NOT_AN_ASSEMBLY');
    await expectCode(tenant, compareQuery, { left: { id: part.id }, right: { id: part.id }, levels: 26 }, 'BAD_USER_INPUT');
  });
});
