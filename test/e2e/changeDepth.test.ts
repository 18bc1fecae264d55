import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
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
    const top = await createAssembly(tenant, 'Flat top', [{ childId: mid.id, quantity: 4 }, { childId: p2.id }]);
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

const orderFields = `id number status warnings { severity code componentId }
  components { componentId changes { fields { field } bom { change childId changedFields left { quantity } right { quantity } } } }`;
const createOrder = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${orderFields} } } }`;
const updateOrder = `mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { ${orderFields} } } }`;
const act = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { ${orderFields} } } }`;
const validateQuery = `query($id: ID!) { changeOrders { validate(id: $id) { severity code componentId component { id } message } } }`;
const impactQuery = `query($id: ID!) { changeOrders { impact(id: $id) {
  componentId usedBy { assemblyId level assembly { id state revisionValue } } levelCounts { level count }
  otherChangeOrders { changeOrder { id number status } componentIds }
} } }`;

describe('change order depth: redlines, impact, validation', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let bob: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    bob = await memberWithRole(tenant, 'REVIEWER');
  });

  const draft = async (name: string, componentIds: string[]) =>
    (await ok(admin, createOrder, { input: { name, templateId: 'default-one-stage', componentIds, values: { reason: 'Depth' }, stages: [{ index: 0, reviewerIds: [bob.userId] }] } })).changeOrders
      .create;
  const run = async (who: Record<string, string>, name: string, id: string) => (await ok(who, act(name), { id })).changeOrders[name];

  it('shows the redlines of a released assembly, its impact two levels up, and refuses UNRELEASED_CHILD until the child joins', async () => {
    const [c1, c2, c3] = await createParts(tenant, ['Depth c1', 'Depth c2', 'Depth c3']);
    const a = await createAssembly(tenant, 'Depth A', [
      { childId: c1!.id, quantity: 2 },
      { childId: c2!.id, quantity: 1 },
    ]);
    // A first release: nothing to compare with.
    const first = await draft('Release A', [a.id, c1!.id, c2!.id]);
    expect(first.components.map((c: { changes: unknown }) => c.changes)).toEqual([null, null, null]);
    await run(admin, 'submit', first.id);
    expect((await run(bob.headers, 'approve', first.id)).status).toBe('CLOSED');

    // After the release, A's BOM gains c3, loses c2 and c1's quantity changes.
    await updateItems(tenant, [
      {
        id: a.id,
        children: [
          { childId: c1!.id, quantity: 3 },
          { childId: c3!.id, quantity: 1 },
        ],
      },
    ]);
    const b = await createAssembly(tenant, 'Depth B', [{ childId: a.id, quantity: 2 }]);
    const c = await createAssembly(tenant, 'Depth C', [{ childId: b.id, quantity: 1 }]);
    const parentOrder = await draft('Touches B', [b.id]);

    const order = await draft('Change A', [a.id]);
    const redlines = order.components[0].changes;
    expect(redlines.fields).toEqual([]);
    expect(redlines.bom).toHaveLength(3);
    expect(byChild(redlines.bom)).toEqual({
      [c1!.id]: { change: 'CHANGED', childId: c1!.id, changedFields: ['quantity'], left: { quantity: 2 }, right: { quantity: 3 } },
      [c2!.id]: { change: 'REMOVED', childId: c2!.id, changedFields: [], left: { quantity: 1 }, right: null },
      [c3!.id]: { change: 'ADDED', childId: c3!.id, changedFields: [], left: null, right: { quantity: 1 } },
    });

    const impact = (await ok(admin, impactQuery, { id: order.id })).changeOrders.impact;
    expect(impact).toEqual([
      {
        componentId: a.id,
        usedBy: [
          { assemblyId: b.id, level: 1, assembly: { id: b.id, state: 'MODIFIED', revisionValue: expect.any(String) } },
          { assemblyId: c.id, level: 2, assembly: { id: c.id, state: 'MODIFIED', revisionValue: expect.any(String) } },
        ],
        levelCounts: [
          { level: 1, count: 1 },
          { level: 2, count: 1 },
        ],
        // The first order is CLOSED: left out. The draft holding B is named.
        otherChangeOrders: [{ changeOrder: { id: parentOrder.id, number: parentOrder.number, status: 'DRAFT' }, componentIds: [b.id] }],
      },
    ]);
    // The same through the order's field.
    const viaField = await ok(admin, 'query { changeOrders { get { nodes { id impact { componentId usedBy { assemblyId } } } } } }', {});
    expect(viaField.changeOrders.get.nodes.find((n: { id: string }) => n.id === order.id).impact).toEqual([{ componentId: a.id, usedBy: [{ assemblyId: b.id }, { assemblyId: c.id }] }]);

    // c3 was never released and is not in the order.
    const problems = (await ok(admin, validateQuery, { id: order.id })).changeOrders.validate;
    expect(problems).toEqual([expect.objectContaining({ severity: 'ERROR', code: 'UNRELEASED_CHILD', componentId: a.id, component: { id: a.id } })]);
    const refused = await refusal(admin, act('submit'), { id: order.id });
    expect(refused.code).toBe('CHANGE_ORDER_INVALID');
    expect(refused.error!.extensions!.problems).toEqual([expect.objectContaining({ code: 'UNRELEASED_CHILD', componentId: a.id })]);
    expect((await run(admin, 'submit', order.id).catch(() => null)) ?? 'refused').toBe('refused');

    // c3 joins the order: valid, and submitted.
    await ok(admin, updateOrder, { input: { id: order.id, componentIds: [a.id, c3!.id] } });
    expect((await ok(admin, validateQuery, { id: order.id })).changeOrders.validate).toEqual([]);
    expect((await run(admin, 'submit', order.id)).status).toBe('OPEN');
    // Once released, the redlines are this release against the one before.
    const released = await run(bob.headers, 'approve', order.id);
    expect(released.status).toBe('CLOSED');
    expect(byChild(released.components[0].changes.bom)[c2!.id]!.change).toBe('REMOVED');
    // The parent order, asked for its impact, names the CLOSED order no more and this one not at all.
    const parentImpact = (await ok(admin, impactQuery, { id: parentOrder.id })).changeOrders.impact;
    expect(parentImpact[0]).toMatchObject({ componentId: b.id, usedBy: [{ assemblyId: c.id, level: 1 }], otherChangeOrders: [] });
  });

  it('keeps warnings without blocking, and refuses a duplicate reference designator', async () => {
    const [p] = await createParts(tenant, ['Depth warn part']);
    const release = await draft('Release part', [p!.id]);
    await run(admin, 'submit', release.id);
    await run(bob.headers, 'approve', release.id);
    // Two designators for quantity 1: a warning only.
    const warned = await createAssembly(tenant, 'Depth warned', [{ childId: p!.id, quantity: 1, refDes: 'R1, R2' }]);
    const order = await draft('Warned', [warned.id]);
    const problems = (await ok(admin, validateQuery, { id: order.id })).changeOrders.validate;
    expect(problems).toEqual([expect.objectContaining({ severity: 'WARNING', code: 'REFDES_QUANTITY_MISMATCH', componentId: warned.id })]);
    const submitted = await run(admin, 'submit', order.id);
    expect(submitted.status).toBe('OPEN');
    expect(submitted.warnings).toEqual([{ severity: 'WARNING', code: 'REFDES_QUANTITY_MISMATCH', componentId: warned.id }]);

    const [q] = await createParts(tenant, ['Depth dup part']);
    const dup = await createAssembly(tenant, 'Depth duplicate', [
      { childId: p!.id, quantity: 1, refDes: 'U1' },
      { childId: q!.id, quantity: 1, refDes: 'u1' },
    ]);
    const dupOrder = await draft('Duplicate', [dup.id, q!.id]);
    const dupProblems = (await ok(admin, validateQuery, { id: dupOrder.id })).changeOrders.validate;
    expect(dupProblems.map((x: { code: string; severity: string }) => [x.severity, x.code])).toEqual([['ERROR', 'DUPLICATE_REFDES']]);
    expect((await refusal(admin, act('submit'), { id: dupOrder.id })).code).toBe('CHANGE_ORDER_INVALID');
    await expectCode(tenant, validateQuery, { id: '00000000-0000-4000-8000-000000000000' }, 'NOT_FOUND');
  });
});
