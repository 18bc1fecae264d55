import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
import { createAssembly, createParts, updateItems } from './itemHelpers.js';

const orderFields = 'id number status resolution effectivity effectiveAt components { componentId fromRevision toRevision }';
const createOrder = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${orderFields} } } }`;
const updateOrder = `mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { ${orderFields} } } }`;
const act = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { ${orderFields} } } }`;
const findOne = `query($id: ID!, $asOf: DateTime) { component { findOne(id: $id, asOf: $asOf) { id name version revisionValue state } } }`;
const bomAsOf = `query($id: ID!, $asOf: DateTime) { component { findOne(id: $id) { indentedBom(depth: 5, asOf: $asOf) {
  level path rolledUpQuantity hasChildren link { childId quantity isPinned child { id name revisionValue version } }
} } } }`;
const releaseHistory = `query($id: ID!) { component { findOne(id: $id) { history { version action createdAt effectiveAt } } } }`;

const dayMs = 24 * 60 * 60 * 1000;

describe('effectivity', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let reviewer: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    reviewer = await memberWithRole(tenant, 'REVIEWER');
  });

  const draft = async (name: string, componentIds: string[], extra: Record<string, unknown> = {}) =>
    (
      await ok(admin, createOrder, {
        input: { name, templateId: 'default-one-stage', componentIds, values: { reason: 'Effectivity' }, stages: [{ index: 0, reviewerIds: [reviewer.userId] }], ...extra },
      })
    ).changeOrders.create;
  const releaseOrder = async (id: string) => {
    await ok(admin, act('submit'), { id });
    return (await ok(reviewer.headers, act('approve'), { id })).changeOrders.approve;
  };
  const component = async (id: string, asOf?: string) => (await ok(admin, findOne, { id, ...(asOf ? { asOf } : {}) })).component.findOne;
  const bom = async (id: string, asOf: string) => (await ok(admin, bomAsOf, { id, asOf })).component.findOne.indentedBom;

  it('refuses an ON_DATE in the past or without a date, and keeps IMMEDIATE by default', async () => {
    const [p] = await createParts(tenant, ['Eff refusal']);
    const yesterday = new Date(Date.now() - dayMs).toISOString();
    for (const extra of [
      { effectivity: 'ON_DATE', effectiveAt: yesterday },
      { effectivity: 'ON_DATE' },
      { effectivity: 'IMMEDIATE', effectiveAt: new Date(Date.now() + dayMs).toISOString() },
      { effectiveAt: 'soon' },
    ]) {
      const refused = await refusal(admin, createOrder, { input: { name: 'Refused', templateId: 'default-one-stage', componentIds: [p!.id], values: { reason: 'x' }, ...extra } });
      expect(refused.code).toBe('BAD_USER_INPUT');
      expect(refused.error!.extensions!.field).toBe('input.effectiveAt');
    }
    const order = await draft('Default', [p!.id]);
    expect(order).toMatchObject({ effectivity: 'IMMEDIATE', effectiveAt: null });
    const refused = await refusal(admin, updateOrder, { input: { id: order.id, effectivity: 'ON_DATE', effectiveAt: yesterday } });
    expect(refused.code).toBe('BAD_USER_INPUT');
    const tomorrow = new Date(Date.now() + dayMs).toISOString();
    expect((await ok(admin, updateOrder, { input: { id: order.id, effectiveAt: tomorrow } })).changeOrders.update).toMatchObject({ effectivity: 'ON_DATE', effectiveAt: tomorrow });
    expect((await ok(admin, updateOrder, { input: { id: order.id, effectivity: 'IMMEDIATE' } })).changeOrders.update).toMatchObject({ effectivity: 'IMMEDIATE', effectiveAt: null });
    expect((await refusal(admin, findOne, { id: p!.id, asOf: 'not a date' })).code).toBe('BAD_USER_INPUT');
  });

  it("a release dated tomorrow leaves today's BOM on the old revision and tomorrow's on the new one", async () => {
    const beforeAll = new Date(Date.now() - 1000).toISOString();
    const [p1, p2] = await createParts(tenant, ['Eff p1', 'Eff p2']);
    const a = await createAssembly(tenant, 'Eff A', [{ childId: p1!.id, quantity: 2 }]);
    // First release, immediate.
    const first = await releaseOrder((await draft('First', [a.id, p1!.id])).id);
    expect(first.resolution).toBe('APPROVED');
    const released = await component(p1!.id);
    const oldRevision = released.revisionValue;
    const oldA = await component(a.id);

    // Changes: p1 renamed, A gains p2; released together, dated tomorrow.
    await updateItems(tenant, [{ id: p1!.id, name: 'Eff p1 v2' }]);
    await updateItems(tenant, [
      {
        id: a.id,
        children: [
          { childId: p1!.id, quantity: 3 },
          { childId: p2!.id, quantity: 1 },
        ],
      },
    ]);
    const effectiveAt = new Date(Date.now() + dayMs).toISOString();
    const second = await releaseOrder((await draft('Dated', [a.id, p1!.id, p2!.id], { effectivity: 'ON_DATE', effectiveAt })).id);
    expect(second).toMatchObject({ resolution: 'APPROVED', effectivity: 'ON_DATE', effectiveAt });
    const current = await component(p1!.id);
    expect(current.revisionValue).not.toBe(oldRevision);
    expect(current).toMatchObject({ name: 'Eff p1 v2', state: 'RELEASED' });

    // The release is recorded with the moment it takes effect.
    const history = (await ok(admin, releaseHistory, { id: p1!.id })).component.findOne.history;
    expect(history[0]).toMatchObject({ action: 'RELEASE', effectiveAt });
    const firstRelease = history.find((h: { version: number }) => h.version === released.version);
    expect(firstRelease).toMatchObject({ action: 'RELEASE' });
    expect(firstRelease.effectiveAt).toBe(firstRelease.createdAt);

    // Today: the revision released first is still in effect; tomorrow, the new one.
    const today = new Date().toISOString();
    const tomorrow = new Date(Date.parse(effectiveAt) + 60_000).toISOString();
    expect(await component(p1!.id, today)).toMatchObject({ name: 'Eff p1', revisionValue: oldRevision, version: released.version });
    expect(await component(p1!.id, tomorrow)).toMatchObject({ name: 'Eff p1 v2', revisionValue: current.revisionValue, version: current.version });
    // Before it existed: nothing.
    expect(await component(p1!.id, beforeAll)).toBeNull();

    const todayBom = await bom(a.id, today);
    expect(todayBom).toEqual([
      {
        level: 1,
        path: [a.id, p1!.id],
        rolledUpQuantity: 2,
        hasChildren: false,
        link: { childId: p1!.id, quantity: 2, isPinned: false, child: { id: p1!.id, name: 'Eff p1', revisionValue: oldRevision, version: released.version } },
      },
    ]);
    const tomorrowBom = await bom(a.id, tomorrow);
    expect(tomorrowBom.map((l: { link: unknown }) => l.link)).toEqual([
      { childId: p1!.id, quantity: 3, isPinned: false, child: { id: p1!.id, name: 'Eff p1 v2', revisionValue: current.revisionValue, version: current.version } },
      { childId: p2!.id, quantity: 1, isPinned: false, child: expect.objectContaining({ id: p2!.id, name: 'Eff p2' }) },
    ]);
    // The assembly itself follows the same rule.
    expect(await component(a.id, today)).toMatchObject({ revisionValue: oldA.revisionValue, version: oldA.version });
    // A pinned line keeps its version whatever the moment.
    const pinnedAssembly = await createAssembly(tenant, 'Eff pinned', [{ childId: p1!.id, quantity: 1, childHistoryId: `${p1!.id}:${released.version}` }]);
    const pinnedBom = await bom(pinnedAssembly.id, tomorrow);
    expect(pinnedBom.map((l: { link: unknown }) => l.link)).toEqual([
      { childId: p1!.id, quantity: 1, isPinned: true, child: { id: p1!.id, name: 'Eff p1', revisionValue: oldRevision, version: released.version } },
    ]);
    // Without asOf, the current BOM as before.
    const plain = (await ok(admin, `query($id: ID!) { component { findOne(id: $id) { indentedBom { link { childId child { name } } } } } }`, { id: a.id })).component.findOne.indentedBom;
    expect(plain.map((l: { link: { childId: string } }) => l.link.childId)).toEqual([p1!.id, p2!.id]);
  });
});
