import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';

/** Refused calls consume nothing; unpinned item writes re-apply on a lost race; duplicate attribute ids. */
let tenant: Tenant;
const createMutation = `mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id cpn } } }`;
const itemCreate = `mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id cpn version } } }`;
const itemUpdate = `mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id version children { childId quantity } } } }`;
const resistor = (name: string) => ({ name, categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 10 }] });
const counterOf = (cpn: string) => Number(cpn.split('-').pop());

beforeAll(async () => {
  tenant = await newTenant();
});

async function createOne(): Promise<{ id: string; cpn: string }> {
  const data = await gqlOk<{ component: { create: { id: string; cpn: string }[] } }>(tenant, createMutation, { inputs: [resistor('R')] });
  return data.component.create[0]!;
}

describe('a refused create consumes no CPN number', () => {
  it('component.create refused for a taken hand-chosen CPN beside a generated one', async () => {
    const first = await createOne();
    const refused = await graphql(createMutation, { inputs: [resistor('R gen'), { ...resistor('R chosen'), cpn: first.cpn }] }, tenantHeaders(tenant));
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('CPN_TAKEN');
    const next = await createOne();
    expect(counterOf(next.cpn)).toBe(counterOf(first.cpn) + 1);
  });

  it('component.create refused for a bad attribute after a valid input', async () => {
    const first = await createOne();
    const refused = await graphql(
      createMutation,
      { inputs: [resistor('R ok'), { name: 'R bad', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 'ten' }] }] },
      tenantHeaders(tenant),
    );
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('ATTRIBUTE_VALIDATION_FAILED');
    const next = await createOne();
    expect(counterOf(next.cpn)).toBe(counterOf(first.cpn) + 1);
  });

  it('item.create refused for a missing child and for a taken CPN', async () => {
    const first = await createOne();
    const missingChild = await graphql(itemCreate, { inputs: [resistor('R a'), { name: 'PCBA', categoryId: 'pcba', children: [{ childId: crypto.randomUUID() }] }] }, tenantHeaders(tenant));
    expect(missingChild.body.errors?.length).toBe(1);
    const takenCpn = await graphql(itemCreate, { inputs: [resistor('R b'), { ...resistor('R c'), cpn: first.cpn }] }, tenantHeaders(tenant));
    expect(takenCpn.body.errors?.[0]?.extensions?.code).toBe('CPN_TAKEN');
    const next = await createOne();
    expect(counterOf(next.cpn)).toBe(counterOf(first.cpn) + 1);
  });
});

describe('duplicate attribute ids in one input', () => {
  const values = [
    { attributeId: 'resistance', value: 10 },
    { attributeId: 'resistance', value: 20 },
  ];

  it('are refused by create and update naming both positions, and reported by validateAttributes', async () => {
    const created = await graphql(createMutation, { inputs: [{ name: 'R dup', categoryId: 'resistor', attributeValues: values }] }, tenantHeaders(tenant));
    expect(created.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'attributeValues[1].attributeId' });
    expect(created.body.errors?.[0]?.message).toMatch(/attributeValues\[0\] and attributeValues\[1\]/);
    const part = await createOne();
    const updated = await graphql(
      `mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id } } }`,
      { inputs: [{ id: part.id, attributeValues: values }] },
      tenantHeaders(tenant),
    );
    expect(updated.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const checked = await gqlOk<{ component: { validateAttributes: { success: boolean; errors: { attributeId: string }[] } } }>(
      tenant,
      `query($values: [AttributeValueInput!]!) { component { validateAttributes(categoryId: "resistor", attributeValues: $values) { success errors { attributeId message } } } }`,
      { values },
    );
    expect(checked.component.validateAttributes).toMatchObject({ success: false, errors: [{ attributeId: 'resistance' }] });
  });
});

describe('item.update without expectedVersion', () => {
  it('re-applies on a concurrent change: 20 concurrent unpinned calls all land, one version each', async () => {
    const children = await Promise.all(Array.from({ length: 20 }, () => createOne()));
    const [assembly] = (await gqlOk<{ item: { create: { id: string; version: number }[] } }>(tenant, itemCreate, { inputs: [{ name: 'Board', categoryId: 'pcba' }] })).item.create;
    const results = await Promise.all(
      children.map((child, index) => graphql(itemUpdate, { inputs: [{ id: assembly!.id, children: [{ childId: child.id, quantity: index + 1 }] }] }, tenantHeaders(tenant))),
    );
    expect(results.flatMap((r) => r.body.errors ?? [])).toEqual([]);
    const versions = results.map((r) => (r.body.data as { item: { update: { version: number }[] } }).item.update[0]!.version).sort((a, b) => a - b);
    expect(new Set(versions).size).toBe(20);
    const final = await gqlOk<{ component: { findOne: { version: number; children: { childId: string; quantity: number }[] } } }>(
      tenant,
      'query($id: ID!) { component { findOne(id: $id) { version children { childId quantity } } } }',
      { id: assembly!.id },
    );
    expect(final.component.findOne.version).toBe(assembly!.version + 20);
    expect(final.component.findOne.children).toHaveLength(1);
    const winner = results.find((r) => (r.body.data as { item: { update: { version: number }[] } }).item.update[0]!.version === final.component.findOne.version)!;
    expect(final.component.findOne.children).toEqual((winner.body.data as { item: { update: { children: unknown[] }[] } }).item.update[0]!.children);
  });

  it('with a stale expectedVersion answers VERSION_CONFLICT naming the current version', async () => {
    const [assembly] = (await gqlOk<{ item: { create: { id: string; version: number }[] } }>(tenant, itemCreate, { inputs: [{ name: 'Board 2', categoryId: 'pcba' }] })).item.create;
    const child = await createOne();
    await gqlOk(tenant, itemUpdate, { inputs: [{ id: assembly!.id, children: [{ childId: child.id }] }] });
    const stale = await graphql(itemUpdate, { inputs: [{ id: assembly!.id, expectedVersion: assembly!.version, children: [] }] }, tenantHeaders(tenant));
    expect(stale.body.errors?.[0]?.extensions).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: assembly!.version + 1 });
  });
});
