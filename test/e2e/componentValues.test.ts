import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { historyOf } from '../support/history.js';
import { attributeMap, componentWrites, createComponent, createMutation, findOne, updateComponent, updateMutation } from './componentHelpers.js';

/**
 * What a component write may store. Every value has a bound, so that a write the table cannot hold (an item
 * over DynamoDB's 400 KB, its history record holding the value twice) is refused with the input's code,
 * never an INTERNAL_SERVER_ERROR, and nothing is written. A value of an attribute archived since it was set
 * stays on its component without locking the component's other attributes.
 */

const configsQuery = 'query($filter: ConfigFilterInput) { configs(filter: $filter) { type version document } }';
const setConfig = 'mutation($input: SetLibraryConfigInput!) { config { setLibraryConfig(input: $input) { version } } }';

/** A PART category whose STRING attributes have no max of their own. */
const freeText = {
  id: 'free-text',
  name: 'Free text',
  type: 'PART',
  prefix: '777',
  attributes: Array.from({ length: 12 }, (_, i) => ({ id: `text-${i}`, name: `Text ${i}`, valueType: 'STRING' })),
};

describe('bounds of component values', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
    const { configs } = await gqlOk<{ configs: { version: number; document: { categories: unknown[] } }[] }>(tenant, configsQuery, { filter: { types: ['CATEGORIES'] } });
    const [categories] = configs;
    await gqlOk(tenant, setConfig, { input: { type: 'CATEGORIES', document: { categories: [...categories!.document.categories, freeText] }, expectedVersion: categories!.version } });
  });

  it('revisionValue: at most 64 characters, on create and update: INVALID_REVISION (not a server error) and nothing written', async () => {
    const part = await createComponent(tenant, { name: 'long revisions', categoryId: 'mechanical' });
    const before = await componentWrites(tenant);
    for (const revisionValue of ['A'.repeat(65), 'A'.repeat(500_000)]) {
      const created = await expectError(tenant, createMutation, { inputs: [{ name: 'r', categoryId: 'mechanical', revisionValue }] }, 'INVALID_REVISION');
      expect(created.body.errors![0]!.message).toContain('at most 64 characters');
      expect(created.body.errors![0]!.message.length).toBeLessThan(400);
      await expectError(tenant, updateMutation, { inputs: [{ id: part.id, revisionValue }] }, 'INVALID_REVISION');
    }
    expect(await componentWrites(tenant)).toEqual(before);
    expect(await updateComponent(tenant, { id: part.id, revisionValue: 'A'.repeat(64) })).toMatchObject({ revisionValue: 'A'.repeat(64), version: 2 });
  });

  it('a STRING value: at most 10,000 characters whatever the category says; ATTRIBUTE_VALIDATION_FAILED and nothing written', async () => {
    const part = await createComponent(tenant, { name: 'long text', categoryId: 'free-text', attributeValues: [{ attributeId: 'text-0', value: 'a'.repeat(10_000) }] });
    const before = await componentWrites(tenant);
    const refused = await expectError(
      tenant,
      createMutation,
      { inputs: [{ name: 'huge', categoryId: 'free-text', attributeValues: [{ attributeId: 'text-0', value: 'x'.repeat(350_000) }] }] },
      'ATTRIBUTE_VALIDATION_FAILED',
    );
    expect(refused.body.errors![0]!.extensions!.errors).toEqual([{ attributeId: 'text-0', message: 'Text 0 must be at most 10000 characters long (got 350000)' }]);
    // The update that used to fail in the table: its history record held the old and the new value.
    await expectError(tenant, updateMutation, { inputs: [{ id: part.id, attributeValues: [{ attributeId: 'text-0', value: 'y'.repeat(350_000) }] }] }, 'ATTRIBUTE_VALIDATION_FAILED');
    await expectError(tenant, updateMutation, { inputs: [{ id: part.id, attributeValues: [{ attributeId: 'text-1', value: 'z'.repeat(10_001) }] }] }, 'ATTRIBUTE_VALIDATION_FAILED');
    expect(await componentWrites(tenant)).toEqual(before);
    // The pre-flight check says the same.
    const check = await gqlOk<any>(tenant, 'query($v: [AttributeValueInput!]!) { component { validateAttributes(categoryId: "free-text", attributeValues: $v) { success errors { attributeId } } } }', {
      v: [{ attributeId: 'text-1', value: 'z'.repeat(10_001) }],
    });
    expect(check.component.validateAttributes).toEqual({ success: false, errors: [{ attributeId: 'text-1' }] });
  });

  it('the values of one component: at most 100,000 bytes together; refused whole, naming the largest value, nothing written', async () => {
    const values = Array.from({ length: 11 }, (_, i) => ({ attributeId: `text-${i}`, value: String.fromCharCode(97 + i).repeat(10_000) }));
    const before = await componentWrites(tenant);
    const refused = await expectError(tenant, createMutation, { inputs: [{ name: 'crowded', categoryId: 'free-text', attributeValues: values }] }, 'ATTRIBUTE_VALIDATION_FAILED');
    expect(refused.body.errors![0]!.message).toContain('at most 100000 bytes');
    // Set one by one, the last one that passes the total is refused.
    const part = await createComponent(tenant, { name: 'filled', categoryId: 'free-text', attributeValues: values.slice(0, 9) });
    const afterCreate = await componentWrites(tenant);
    await expectError(tenant, updateMutation, { inputs: [{ id: part.id, attributeValues: values.slice(9) }] }, 'ATTRIBUTE_VALIDATION_FAILED');
    expect(await componentWrites(tenant)).toEqual(afterCreate);
    expect(before.length).toBeLessThan(afterCreate.length);
  });

  it('"" is no value: it is not stored, for an attribute of the category or an unknown one, and clears a stored value', async () => {
    const part = await createComponent(tenant, { name: 'blank', categoryId: 'mechanical', attributeValues: [{ attributeId: 'finish', value: 'Anodized' }] });
    const unchanged = await updateComponent(tenant, {
      id: part.id,
      attributeValues: [
        { attributeId: 'material', value: '' },
        { attributeId: 'no-such-attribute', value: '' },
      ],
    });
    expect(unchanged.version).toBe(1);
    expect(attributeMap(unchanged)).toEqual({ finish: 'Anodized' });
    const cleared = await updateComponent(tenant, { id: part.id, attributeValues: [{ attributeId: 'finish', value: '' }] });
    expect(cleared.version).toBe(2);
    expect(attributeMap(cleared)).toEqual({});
    expect((await historyOf(tenant, part.id))[0]!.changes).toEqual([{ field: 'attributeValues.finish', from: 'Anodized', to: null }]);
    // Thousands of blank unknown ids (they used to be stored, past what an item holds): nothing is written.
    const before = await componentWrites(tenant);
    const many = Array.from({ length: 4_000 }, (_, i) => ({ attributeId: `unknown-${i}-${'z'.repeat(90)}`, value: '' }));
    expect((await updateComponent(tenant, { id: part.id, attributeValues: many })).version).toBe(2);
    expect(await componentWrites(tenant)).toEqual(before);
    expect(attributeMap((await findOne(tenant, part.id))!)).toEqual({});
  });

  it('a value of an attribute archived since stays, and does not block the other attributes; it cannot be set anew', async () => {
    const part = await createComponent(tenant, {
      name: 'legacy',
      categoryId: 'free-text',
      attributeValues: [
        { attributeId: 'text-10', value: 'kept' },
        { attributeId: 'text-11', value: 'other' },
      ],
    });
    const { configs } = await gqlOk<{ configs: { version: number; document: { categories: { id: string; attributes: { id: string; archived?: boolean }[] }[] } }[] }>(tenant, configsQuery, {
      filter: { types: ['CATEGORIES'] },
    });
    const document = configs[0]!.document;
    document.categories.find((c) => c.id === 'free-text')!.attributes.find((a) => a.id === 'text-10')!.archived = true;
    await gqlOk(tenant, setConfig, { input: { type: 'CATEGORIES', document, expectedVersion: configs[0]!.version } });

    // Another attribute changes; the archived value is kept as it was.
    const updated = await updateComponent(tenant, { id: part.id, attributeValues: [{ attributeId: 'text-11', value: 'changed' }] });
    expect(attributeMap(updated)).toEqual({ 'text-10': 'kept', 'text-11': 'changed' });
    expect((await historyOf(tenant, part.id))[0]!.changes).toEqual([{ field: 'attributeValues.text-11', from: 'other', to: 'changed' }]);
    // Setting it (to another value, or on another component) is refused; clearing it is allowed.
    const before = await componentWrites(tenant);
    await expectError(tenant, updateMutation, { inputs: [{ id: part.id, attributeValues: [{ attributeId: 'text-10', value: 'new' }] }] }, 'ATTRIBUTE_VALIDATION_FAILED');
    await expectError(tenant, createMutation, { inputs: [{ name: 'new', categoryId: 'free-text', attributeValues: [{ attributeId: 'text-10', value: 'kept' }] }] }, 'ATTRIBUTE_VALIDATION_FAILED');
    expect(await componentWrites(tenant)).toEqual(before);
    expect(attributeMap(await updateComponent(tenant, { id: part.id, attributeValues: [{ attributeId: 'text-10', value: null }] }))).toEqual({ 'text-11': 'changed' });
  });
});
