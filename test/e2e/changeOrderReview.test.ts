import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, type Member } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/**
 * Change orders as a daily user meets them, found by probing from outside: what an order says it released
 * when another order released the same component first.
 */

const orderFields = 'id number status resolution components { componentId fromRevision toRevision component { revisionValue } }';
const createOrder = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${orderFields} } } }`;
const act = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { ${orderFields} } } }`;

describe('change order review', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let reviewer: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    reviewer = await memberWithRole(tenant, 'REVIEWER');
  });

  const draft = async (componentIds: string[], extra: Record<string, unknown> = {}) =>
    (
      await ok(admin, createOrder, {
        input: { name: 'Review', templateId: 'default-one-stage', componentIds, values: { reason: 'Review' }, stages: [{ index: 0, reviewerIds: [reviewer.userId] }], ...extra },
      })
    ).changeOrders.create;
  const submit = async (id: string) => (await ok(admin, act('submit'), { id })).changeOrders.submit;
  const approve = async (id: string) => (await ok(reviewer.headers, act('approve'), { id })).changeOrders.approve;

  it('names the revision a component left when another order released it after this one was drafted (fromRevision stayed the one at drafting)', async () => {
    const [part] = await createParts(tenant, ['Twice drafted']);
    const first = await draft([part!.id]);
    const second = await draft([part!.id]);
    expect(second.components[0]).toMatchObject({ fromRevision: 'A', toRevision: null });
    await submit(first.id);
    expect((await approve(first.id)).components[0]).toMatchObject({ fromRevision: 'A', toRevision: 'B' });

    // Submitted once the first released: held from here, so the revision it leaves is known.
    expect((await submit(second.id)).components[0]).toMatchObject({ fromRevision: 'B', toRevision: null });
    const released = await approve(second.id);
    expect(released).toMatchObject({ resolution: 'APPROVED' });
    expect(released.components[0]).toEqual({ componentId: part!.id, fromRevision: 'B', toRevision: 'C', component: { revisionValue: 'C' } });
  });
});
