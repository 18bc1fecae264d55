import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
import { createItems, createParts, updateItems } from './itemHelpers.js';

/**
 * Change depth inputs a careless or hostile client sends (found by probing from outside): DateTime values
 * the scalar passes through unchecked, and a stage named twice.
 */

const orderFields = 'id effectivity effectiveAt stages { reviewers { userId } }';
const createOrder = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${orderFields} } } }`;
const updateOrder = `mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { ${orderFields} } } }`;
const findOne = `query($id: ID!, $asOf: DateTime) { component { findOne(id: $id, asOf: $asOf) { id version } } }`;

describe('change depth edges', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let first: Member;
  let second: Member;
  let partId: string;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    [first, second] = await Promise.all([memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'REVIEWER')]);
    partId = (await createParts(tenant, ['Edge part']))[0]!.id;
  });

  const input = (extra: Record<string, unknown>) => ({ name: 'Edge order', templateId: 'default-one-stage', componentIds: [partId], values: { reason: 'Edges' }, ...extra });

  it('refuses an effective date past year 9999 (was stored signed, compared before every time and released at once)', async () => {
    const far = '+275760-09-13T00:00:00.000Z';
    const refused = await refusal(admin, createOrder, { input: input({ effectivity: 'ON_DATE', effectiveAt: far }) });
    expect({ code: refused.code, field: refused.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'input.effectiveAt' });
    const order = (await ok(admin, createOrder, { input: input({}) })).changeOrders.create;
    expect((await refusal(admin, updateOrder, { input: { id: order.id, effectivity: 'ON_DATE', effectiveAt: far } })).code).toBe('BAD_USER_INPUT');
    // The last moment of year 9999 is a date it keeps.
    const latest = (await ok(admin, updateOrder, { input: { id: order.id, effectivity: 'ON_DATE', effectiveAt: '9999-12-31T23:59:59+00:00' } })).changeOrders.update;
    expect(latest).toMatchObject({ effectivity: 'ON_DATE', effectiveAt: '9999-12-31T23:59:59.000Z' });
  });

  it('refuses an asOf that is no date-time of years 0000 to 9999 (was answered null: "did not exist then")', async () => {
    for (const asOf of ['+275760-09-13T00:00:00.000Z', 5, '5']) {
      const refused = await refusal(admin, findOne, { id: partId, asOf });
      expect({ asOf, code: refused.code, field: refused.error?.extensions?.field }).toEqual({ asOf, code: 'BAD_USER_INPUT', field: 'asOf' });
    }
    expect((await ok(admin, findOne, { id: partId, asOf: '9999-12-31T23:59:59Z' })).component.findOne).toMatchObject({ id: partId, version: 1 });
  });

  it('validates what submit would refuse: a component deleted since, or held by another change order (validate answered none)', async () => {
    const validate = `query($id: ID!) { changeOrders { validate(id: $id) { severity code componentId } } }`;
    const submit = `mutation($id: ID!) { changeOrders { submit(id: $id) { id status } } }`;
    const [held, gone] = await createParts(tenant, ['Held part', 'Gone part']);
    const withReviewer = (componentIds: string[]) => input({ componentIds, stages: [{ index: 0, reviewerIds: [first.userId] }] });
    const holder = (await ok(admin, createOrder, { input: withReviewer([held!.id]) })).changeOrders.create;
    const waiting = (await ok(admin, createOrder, { input: withReviewer([held!.id]) })).changeOrders.create;
    const orphaned = (await ok(admin, createOrder, { input: withReviewer([gone!.id]) })).changeOrders.create;
    expect((await ok(admin, submit, { id: holder.id })).changeOrders.submit.status).toBe('OPEN');
    await ok(admin, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [gone!.id] });

    for (const [order, code, componentId] of [
      [waiting, 'COMPONENT_IN_CHANGE_ORDER', held!.id],
      [orphaned, 'COMPONENT_NOT_FOUND', gone!.id],
    ] as const) {
      const expected = [{ severity: 'ERROR', code, componentId }];
      expect((await ok(admin, validate, { id: order.id })).changeOrders.validate).toEqual(expected);
      const refused = await refusal(admin, submit, { id: order.id });
      const problems = (refused.error?.extensions?.problems ?? []) as { severity: string; code: string; componentId: string }[];
      expect({ code: refused.code, problems: problems.map((p) => ({ severity: p.severity, code: p.code, componentId: p.componentId })) }).toEqual({
        code: 'CHANGE_ORDER_INVALID',
        problems: expected,
      });
    }
    // The holder's own lock is no problem of its own.
    expect((await ok(admin, validate, { id: holder.id })).changeOrders.validate).toEqual([]);
  });

  it('promotes 50 requests of long titles (the description it writes passed the limit and the promote was refused on input.description)', async () => {
    const requestM = 'mutation($i: CreateChangeRequestInput!) { changeRequests { create(input: $i) { id } } }';
    const step = (action: string) => `mutation($id: ID!) { changeRequests { ${action}(id: $id) { id } } }`;
    const ids: string[] = [];
    for (let start = 0; start < 50; start += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const id = (await ok(admin, requestM, { i: { title: `${start + i} ${'t'.repeat(196)}`, componentIds: [partId] } })).changeRequests.create.id as string;
          await ok(admin, step('submit'), { id });
          await ok(admin, step('approve'), { id });
          return id;
        }),
      );
      ids.push(...batch);
    }
    const promoted = (
      await ok(admin, 'mutation($ids: [ID!]!, $i: PromoteChangeRequestsInput) { changeRequests { promote(ids: $ids, input: $i) { id description } } }', { ids, i: { values: { reason: 'Edges' } } })
    ).changeRequests.promote;
    expect(promoted.description).toHaveLength(10_000);
    expect(promoted.description.startsWith('CR-')).toBe(true);
  });

  it('promotes an approved request one of whose components was deleted since, without it (promote answered NOT_FOUND for good: an approved request cannot be edited)', async () => {
    const [kept, deleted] = await createParts(tenant, ['Promoted part', 'Deleted before promote']);
    const step = (action: string) => `mutation($id: ID!) { changeRequests { ${action}(id: $id) { id status } } }`;
    const request = (await ok(admin, 'mutation($i: CreateChangeRequestInput!) { changeRequests { create(input: $i) { id } } }', { i: { title: 'Two parts', componentIds: [kept!.id, deleted!.id] } }))
      .changeRequests.create.id as string;
    await ok(admin, step('submit'), { id: request });
    await ok(admin, step('approve'), { id: request });
    await ok(admin, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [deleted!.id] });
    // The request can no longer be changed to drop it.
    expect((await refusal(admin, 'mutation($i: UpdateChangeRequestInput!) { changeRequests { update(input: $i) { id } } }', { i: { id: request, componentIds: [kept!.id] } })).code).toBe(
      'CHANGE_ORDER_STATE',
    );
    const promoted = (
      await ok(admin, 'mutation($ids: [ID!]!, $i: PromoteChangeRequestsInput) { changeRequests { promote(ids: $ids, input: $i) { id components { componentId } } } }', {
        ids: [request],
        i: { values: { reason: 'Edges' } },
      })
    ).changeRequests.promote;
    expect(promoted.components).toEqual([{ componentId: kept!.id }]);
  });

  it('refuses a compare or indented BOM whose quantities multiplied down the levels pass a number (was INTERNAL_SERVER_ERROR where the Float is written)', async () => {
    // 21 levels of the largest line quantity a BOM stores (2^53 - 1): 9e15^20 is past Number.MAX_VALUE.
    // Made in calls of ten (the assemblies first, then their lines), not one call a level: 22 calls in a row
    // outlasted the test's timeout on a busy machine.
    const [leaf] = await createItems(tenant, [{ name: 'Deep leaf', categoryId: 'mechanical' }]);
    const assemblies: { id: string }[] = [];
    for (let level = 0; level < 21; level += 10) {
      const names = Array.from({ length: Math.min(10, 21 - level) }, (_, i) => ({ name: `Deep ${level + i}`, categoryId: 'pcba' }));
      assemblies.push(...(await createItems(tenant, names)));
    }
    const lines = assemblies.map((assembly, level) => ({ id: assembly.id, children: [{ childId: (assemblies[level - 1] ?? leaf!).id, quantity: Number.MAX_SAFE_INTEGER }] }));
    for (let start = 0; start < lines.length; start += 10) await updateItems(tenant, lines.slice(start, start + 10));
    const top = assemblies.at(-1)!;
    const compare = `query($l: ComponentRefInput!, $r: ComponentRefInput!) { component { compare(left: $l, right: $r, levels: 25) { bom { childId left { extendedQuantity } } } } }`;
    const refusedCompare = await refusal(admin, compare, { l: { id: top.id }, r: { id: assemblies[0]!.id } });
    expect({ code: refusedCompare.code, field: refusedCompare.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'levels' });
    const bom = `query($id: ID!, $depth: Int) { component { findOne(id: $id) { indentedBom(depth: $depth) { level rolledUpQuantity } } } }`;
    const refusedBom = await refusal(admin, bom, { id: top.id, depth: 25 });
    expect({ code: refusedBom.code, field: refusedBom.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'depth' });
    const rollup = await refusal(admin, `query($id: ID!) { component { costRollup(id: $id, quantity: 1) { total } } }`, { id: top.id });
    expect({ code: rollup.code, field: rollup.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'quantity' });
    // Fewer levels answer.
    expect((await ok(admin, bom, { id: top.id, depth: 10 })).component.findOne.indentedBom).toHaveLength(10);
  });

  it('refuses a stage named twice (the second entry, its reviewers among it, was silently left out)', async () => {
    const stages = [
      { index: 0, reviewerIds: [first.userId] },
      { index: 0, reviewerIds: [second.userId] },
    ];
    const refused = await refusal(admin, createOrder, { input: input({ stages }) });
    expect({ code: refused.code, field: refused.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'input.stages' });
    const order = (await ok(admin, createOrder, { input: input({ stages: [{ index: 0, reviewerIds: [first.userId, second.userId] }] }) })).changeOrders.create;
    expect((await refusal(admin, updateOrder, { input: { id: order.id, stages } })).code).toBe('BAD_USER_INPUT');
  });
});
