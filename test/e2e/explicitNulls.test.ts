import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';

/**
 * An explicit null is never silently ignored: on an update it clears what may be empty, and where the record
 * always has a value it is BAD_USER_INPUT naming the field, with nothing written.
 */
let tenant: Tenant;
let headers: Record<string, string>;

const call = async (query: string, variables?: Record<string, unknown>) => (await graphql<any>(query, variables, headers)).body;
const refusedField = (body: { errors?: { extensions?: { code?: string; field?: unknown } }[] }) => {
  expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  return body.errors?.[0]?.extensions?.field;
};

beforeAll(async () => {
  tenant = await newTenant({ plan: 'team' });
  headers = tenantHeaders(tenant);
});

describe('component writes', () => {
  const fields = 'id version status { id } category { id } isArchived notRevisionManaged revision { value }';
  const nonNullable = ['statusId', 'categoryId', 'revisionValue', 'isArchived', 'notRevisionManaged'];

  it('component.update, item.update and reconcile refuse null for what a component always has', async () => {
    const created = await call(`mutation { component { create(inputs: [{ name: "Nulls", categoryId: "mechanical" }]) { ${fields} } } }`);
    const component = created.data.component.create[0];
    for (const field of nonNullable) {
      const viaComponent = await call(`mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { ${fields} } } }`, {
        inputs: [{ id: component.id, name: 'Renamed', [field]: null }],
      });
      expect(refusedField(viaComponent), `component.update ${field}`).toBe(field);
      const viaItem = await call(`mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { ${fields} } } }`, { inputs: [{ id: component.id, name: 'Renamed', [field]: null }] });
      expect(refusedField(viaItem), `item.update ${field}`).toBe(field);
      if (!['statusId', 'revisionValue'].includes(field)) continue; // ReconcileInput has no other of these
      const viaReconcile = await call('mutation($input: ReconcileInput!) { reconcile(input: $input) { component { version } } }', {
        input: { componentId: component.id, name: 'Renamed', [field]: null },
      });
      expect(refusedField(viaReconcile), `reconcile ${field}`).toBe(field);
    }
    const after = await call(`query($id: ID!) { component { findOne(id: $id) { ${fields} name } } }`, { id: component.id });
    expect(after.data.component.findOne).toEqual({ ...component, name: 'Nulls' });
  });
});

describe('change order update', () => {
  it('refuses a null name; a null componentIds empties the list (it was ignored)', async () => {
    const part = (await call('mutation { component { create(inputs: [{ name: "On order", categoryId: "mechanical" }]) { id } } }')).data.component.create[0];
    const created = await call('mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { id name components { componentId } } } }', {
      input: { name: 'Draft', templateId: 'default-one-stage', componentIds: [part.id], values: { reason: 'x' } },
    });
    const order = created.data.changeOrders.create;
    expect(order.components).toEqual([{ componentId: part.id }]);
    const update = 'mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { id name components { componentId } } } }';
    expect(refusedField(await call(update, { input: { id: order.id, name: null, description: 'kept?' } }))).toBe('input.name');
    const emptied = await call(update, { input: { id: order.id, componentIds: null } });
    expect(emptied.data.changeOrders.update).toEqual({ id: order.id, name: 'Draft', components: [] });
  });
});
