import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { componentWrites, createComponent, createComponents, createMutation, libraryPartition, partitionItems } from './componentHelpers.js';

const completeOverride =
  'query($overrides: [IdElementOverrideInput!]!, $componentId: String) { identifier { validateCompleteOverride(overrides: $overrides, componentId: $componentId) { displayValue isDeterministic isUnique errors { element message } } } }';
const overridesQuery = 'query($overrides: [IdElementOverrideInput!]!) { identifier { validateOverrides(overrides: $overrides) { success message errors { element message } isUnique } } }';
const freeform =
  'query($value: String!, $componentId: String) { identifier { validateFreeformOverride(value: $value, componentId: $componentId) { success message errors { element message } isUnique } } }';
const permissions = '{ identifier { overridePermissions { allowOverride allowFreeform caseSensitive canOverride canUseFreeform } } }';
const groupInstances =
  'query($configId: String!, $groupName: String!, $filters: [ElementValueInput!]) { identifier { reusableGroupInstances(configId: $configId, groupName: $groupName, filters: $filters) { values { element value } displayValue usageCount } } }';
const setConfig = 'mutation($input: SetLibraryConfigInput!) { config { setLibraryConfig(input: $input) { id type version document } } }';
const deleteMutation = 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds notFoundIds } } }';

type Preview = { displayValue: string | null; isDeterministic: boolean; isUnique: boolean; errors: { element: string; message: string }[] };
type Check = { success: boolean; message: string | null; errors: { element: string; message: string }[]; isUnique: boolean | null };

async function preview(tenant: Tenant, overrides: { element: string; value: string }[], componentId?: string): Promise<Preview> {
  return (await gqlOk<{ identifier: { validateCompleteOverride: Preview } }>(tenant, completeOverride, { overrides, ...(componentId ? { componentId } : {}) })).identifier.validateCompleteOverride;
}

async function freeformCheck(tenant: Tenant, value: string, componentId?: string): Promise<Check> {
  return (await gqlOk<{ identifier: { validateFreeformOverride: Check } }>(tenant, freeform, { value, ...(componentId ? { componentId } : {}) })).identifier.validateFreeformOverride;
}

const resistor = (name: string, extra: Record<string, unknown> = {}) => ({ name, categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 100 }], ...extra });
const capacitor = (name: string, extra: Record<string, unknown> = {}) => ({ name, categoryId: 'capacitor', attributeValues: [{ attributeId: 'capacitance', value: 1e-6 }], ...extra });

describe('CPNs with the default scheme', () => {
  let tenant: Tenant;
  let first: { id: string; cpn: string };

  beforeAll(async () => {
    tenant = await newTenant();
  });

  it('generates <category prefix>-<5-digit counter>, one counter per prefix', async () => {
    first = await createComponent(tenant, resistor('R1'));
    expect(first.cpn).toBe('100-00001');
    expect((await createComponent(tenant, resistor('R2'))).cpn).toBe('100-00002');
    expect((await createComponent(tenant, capacitor('C1'))).cpn).toBe('110-00001');
    const batch = await createComponents(tenant, [resistor('R3'), resistor('R4'), capacitor('C2'), { name: 'board', categoryId: 'pcba' }]);
    expect(batch.map((c) => c.cpn)).toEqual(['100-00003', '100-00004', '110-00002', '400-00001']);
    const counters = await partitionItems(libraryPartition(tenant), ['CTR#']);
    expect(counters.map((c) => [c.SK, c.value])).toEqual([
      ['CTR#counter#PREFIX:100-', 4],
      ['CTR#counter#PREFIX:110-', 2],
      ['CTR#counter#PREFIX:400-', 1],
    ]);
  });

  it('allocates counters atomically: concurrent creates get distinct consecutive CPNs', async () => {
    const created = await Promise.all(Array.from({ length: 6 }, (_, i) => createComponent(tenant, resistor(`parallel ${i}`))));
    expect(created.map((c) => c.cpn).sort()).toEqual(['100-00005', '100-00006', '100-00007', '100-00008', '100-00009', '100-00010']);
  });

  it('never reuses a CPN, even after its component is deleted', async () => {
    const last = (await gqlOk<{ component: { findAll: { edges: { node: { id: string } }[] } } }>(tenant, 'query { component { findAll(filter: { cpns: ["100-00010"] }) { edges { node { id } } } } }'))
      .component.findAll.edges[0]!.node;
    const deleted = await gqlOk<{ component: { delete: { deletedIds: string[] } } }>(tenant, deleteMutation, { ids: [last.id] });
    expect(deleted.component.delete.deletedIds).toEqual([last.id]);
    expect((await createComponent(tenant, resistor('after delete'))).cpn).toBe('100-00011');

    const before = await componentWrites(tenant);
    const taken = await expectError(tenant, createMutation, { inputs: [resistor('reuse', { cpn: '100-00010' })] }, 'CPN_TAKEN');
    expect(taken.body.errors![0]!.message).toContain('100-00010');
    await expectError(tenant, createMutation, { inputs: [resistor('reuse by parts', { cpnOverrides: [{ element: 'counter', value: '00010' }] })] }, 'CPN_TAKEN');
    await expectError(tenant, createMutation, { inputs: [resistor('taken live', { cpn: '100-00001' })] }, 'CPN_TAKEN');
    expect(await componentWrites(tenant)).toEqual(before);
    expect(
      await preview(tenant, [
        { element: 'category', value: '100' },
        { element: 'counter', value: '00010' },
      ]),
    ).toEqual({
      displayValue: '100-00010',
      isDeterministic: true,
      isUnique: false,
      errors: [],
    });
  });

  it('accepts a chosen CPN or counter override that fits the scheme, and generation skips past it', async () => {
    expect((await createComponent(tenant, resistor('chosen', { cpn: '100-00012' }))).cpn).toBe('100-00012');
    expect((await createComponent(tenant, resistor('override', { cpnOverrides: [{ element: 'counter', value: '00500' }] }))).cpn).toBe('100-00500');
    // The counter stands at 11: the next generated value, 12, is taken by hand, so 13 is used.
    expect((await createComponent(tenant, resistor('generated'))).cpn).toBe('100-00013');
  });

  it('refuses CPNs that do not fit the scheme with CPN_INVALID and writes nothing', async () => {
    const before = await componentWrites(tenant);
    const cases: Record<string, unknown>[] = [
      resistor('wrong prefix', { cpn: '110-00077' }),
      resistor('short counter', { cpn: '100-77' }),
      resistor('garbage', { cpn: 'hello' }),
      resistor('bad counter', { cpnOverrides: [{ element: 'counter', value: 'abcde' }] }),
      resistor('prefix override', { cpnOverrides: [{ element: 'category', value: '110' }] }),
      resistor('unknown element', { cpnOverrides: [{ element: 'family', value: 'EL' }] }),
    ];
    for (const input of cases) await expectError(tenant, createMutation, { inputs: [input] }, 'CPN_INVALID');
    await expectError(tenant, createMutation, { inputs: [resistor('twin a', { cpn: '100-00600' }), resistor('twin b', { cpn: '100-00600' })] }, 'CPN_TAKEN');
    expect(await componentWrites(tenant)).toEqual(before);
    expect((await createComponent(tenant, resistor('next'))).cpn).toBe('100-00014');
  });

  it('refuses an element given twice in cpnOverrides, and cpnOverrides with a complete cpn (either was silently dropped); the previews say the same', async () => {
    const before = await componentWrites(tenant);
    const twice = [
      { element: 'counter', value: '00700' },
      { element: 'counter', value: '00701' },
    ];
    const refused = await expectError(tenant, createMutation, { inputs: [resistor('twice', { cpnOverrides: twice })] }, 'CPN_INVALID');
    expect(refused.body.errors![0]!.extensions!.errors).toEqual([{ element: 'counter', message: expect.stringContaining('given twice') }]);
    const both = await expectError(tenant, createMutation, { inputs: [resistor('both', { cpn: '100-00702', cpnOverrides: [{ element: 'counter', value: '00703' }] })] }, 'BAD_USER_INPUT');
    expect(both.body.errors![0]!.extensions).toMatchObject({ field: 'cpnOverrides', inputIndex: 0 });
    expect(await componentWrites(tenant)).toEqual(before);
    expect(await preview(tenant, twice)).toMatchObject({ isUnique: false, errors: [{ element: 'counter', message: expect.stringContaining('given twice') }] });
    const check = (await gqlOk<{ identifier: { validateOverrides: Check } }>(tenant, overridesQuery, { overrides: twice })).identifier.validateOverrides;
    expect(check).toMatchObject({ success: false, errors: [{ element: 'counter' }] });
  });

  it('validateCompleteOverride renders unresolved elements as X runs and is deterministic only without them', async () => {
    expect(await preview(tenant, [])).toEqual({ displayValue: 'XXX-XXXXX', isDeterministic: false, isUnique: false, errors: [] });
    expect(await preview(tenant, [{ element: 'category', value: '100' }])).toEqual({ displayValue: '100-XXXXX', isDeterministic: false, isUnique: false, errors: [] });
    expect(await preview(tenant, [], first.id)).toEqual({ displayValue: '100-XXXXX', isDeterministic: false, isUnique: false, errors: [] });
    expect(await preview(tenant, [{ element: 'counter', value: '00042' }])).toEqual({ displayValue: 'XXX-00042', isDeterministic: false, isUnique: false, errors: [] });
    expect(
      await preview(tenant, [
        { element: 'category', value: '100' },
        { element: 'counter', value: '00099' },
      ]),
    ).toEqual({
      displayValue: '100-00099',
      isDeterministic: true,
      isUnique: true,
      errors: [],
    });
    expect(
      await preview(tenant, [
        { element: 'category', value: '100' },
        { element: 'counter', value: '00001' },
      ]),
    ).toMatchObject({ displayValue: '100-00001', isDeterministic: true, isUnique: false });
    // A component's own CPN is unique for it.
    expect(await preview(tenant, [{ element: 'counter', value: '00001' }], first.id)).toMatchObject({ displayValue: '100-00001', isDeterministic: true, isUnique: true });
    const invalid = await preview(tenant, [
      { element: 'category', value: '100' },
      { element: 'counter', value: '12' },
    ]);
    expect(invalid).toMatchObject({ displayValue: '100-XXXXX', isDeterministic: false, isUnique: false, errors: [{ element: 'counter', message: expect.stringContaining('"12"') }] });
    const unknown = await preview(tenant, [{ element: 'nope', value: '1' }]);
    expect(unknown.errors).toEqual([{ element: 'nope', message: expect.stringContaining('unknown CPN element') }]);
    const missing = await graphql(completeOverride, { overrides: [], componentId: randomUUID() }, tenantHeaders(tenant));
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // An empty componentId is malformed, not "no component" (it used to preview as a new component).
    for (const query of [completeOverride, freeform]) {
      const empty = await graphql(query, { overrides: [], value: 'X-1', componentId: '' }, tenantHeaders(tenant));
      expect(empty.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'componentId' });
    }
  });

  it('validateOverrides checks each element value on its own', async () => {
    const check = async (overrides: { element: string; value: string }[]) =>
      (await gqlOk<{ identifier: { validateOverrides: Check } }>(tenant, overridesQuery, { overrides })).identifier.validateOverrides;
    expect(
      await check([
        { element: 'category', value: '100' },
        { element: 'counter', value: '00012' },
      ]),
    ).toEqual({ success: true, message: null, errors: [], isUnique: null });
    expect(await check([])).toMatchObject({ success: true, errors: [] });
    const bad = await check([
      { element: 'category', value: '1000' },
      { element: 'counter', value: '1' },
    ]);
    expect(bad.success).toBe(false);
    expect(bad.errors.map((e) => e.element)).toEqual(['category', 'counter']);
  });

  it('overridePermissions and validateFreeformOverride follow the default settings (override yes, freeform no)', async () => {
    const perms = await gqlOk<{ identifier: { overridePermissions: unknown } }>(tenant, permissions);
    expect(perms.identifier.overridePermissions).toEqual({ allowOverride: true, allowFreeform: false, caseSensitive: false, canOverride: true, canUseFreeform: false });
    const refused = await freeformCheck(tenant, 'MY-PART');
    expect(refused).toMatchObject({ success: false, isUnique: false, errors: [] });
    expect(refused.message).toMatch(/free-form/);
    await expectError(tenant, createMutation, { inputs: [resistor('freeform', { cpn: 'MY-PART' })] }, 'CPN_INVALID');
  });
});

describe('CPNs with a custom scheme with a reusable group', () => {
  let tenant: Tenant;
  const scheme = {
    delimiter: '-',
    elements: [
      {
        type: 'GROUP',
        name: 'family',
        elements: [
          {
            type: 'LIST',
            name: 'kind',
            options: [
              { value: 'EL', label: 'Electrical' },
              { value: 'ME', label: 'Mechanical' },
            ],
          },
          { type: 'CATEGORY_PREFIX', name: 'category' },
        ],
      },
      { type: 'COUNTER', name: 'seq', digits: 4, max: 999 },
    ],
    settings: { allow_override: true, allow_freeform: true },
  };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    tenant = await newTenant();
  });

  it('stores the scheme with its defaults filled', async () => {
    const { config } = await gqlOk<{ config: { setLibraryConfig: { id: string; type: string; version: number; document: typeof scheme } } }>(tenant, setConfig, {
      input: { type: 'CPN_SCHEME', document: scheme, expectedVersion: 1 },
    });
    expect(config.setLibraryConfig).toMatchObject({ id: 'CPN_SCHEME', type: 'CPN_SCHEME', version: 2 });
    expect(config.setLibraryConfig.document).toEqual({
      ...scheme,
      elements: [scheme.elements[0], { type: 'COUNTER', name: 'seq', base: 10, digits: 4, min: 1, max: 999, scope: 'PREFIX' }],
      settings: { allow_override: true, allow_freeform: true, case_sensitive: false },
    });
    const perms = await gqlOk<{ identifier: { overridePermissions: unknown } }>(tenant, permissions);
    expect(perms.identifier.overridePermissions).toEqual({ allowOverride: true, allowFreeform: true, caseSensitive: false, canOverride: true, canUseFreeform: true });
  });

  it('renders an unresolved counter as as many X as the digits of its max value', async () => {
    expect(await preview(tenant, [])).toEqual({ displayValue: 'XX-XXX-XXX', isDeterministic: false, isUnique: false, errors: [] });
    expect(await preview(tenant, [{ element: 'kind', value: 'EL' }])).toEqual({ displayValue: 'EL-XXX-XXX', isDeterministic: false, isUnique: false, errors: [] });
    expect(
      await preview(tenant, [
        { element: 'kind', value: 'EL' },
        { element: 'category', value: '100' },
      ]),
    ).toEqual({
      displayValue: 'EL-100-XXX',
      isDeterministic: false,
      isUnique: false,
      errors: [],
    });
    expect(
      await preview(tenant, [
        { element: 'family', value: 'ME-200' },
        { element: 'seq', value: '0005' },
      ]),
    ).toEqual({
      displayValue: 'ME-200-0005',
      isDeterministic: true,
      isUnique: true,
      errors: [],
    });
    const wrongList = await preview(tenant, [{ element: 'kind', value: 'XX' }]);
    expect(wrongList).toMatchObject({ displayValue: 'XX-XXX-XXX', isDeterministic: false, errors: [{ element: 'kind' }] });
  });

  it('generates CPNs from the group values and a counter per group instance', async () => {
    const made = await createComponents(tenant, [
      resistor('R1', { cpnOverrides: [{ element: 'kind', value: 'EL' }] }),
      resistor('R2', { cpnOverrides: [{ element: 'kind', value: 'el' }] }),
      capacitor('C1', { cpnOverrides: [{ element: 'kind', value: 'EL' }] }),
      { name: 'M1', categoryId: 'mechanical', cpnOverrides: [{ element: 'family', value: 'ME-200' }] },
      { name: 'M2', categoryId: 'mechanical', cpnOverrides: [{ element: 'kind', value: 'ME' }] },
      { name: 'F1', categoryId: 'mechanical', cpn: 'FREE-FORM 1' },
    ]);
    expect(made.map((c) => c.cpn)).toEqual(['EL-100-0001', 'EL-100-0002', 'EL-110-0001', 'ME-200-0001', 'ME-200-0002', 'FREE-FORM 1']);
    made.forEach((c) => (ids[c.name] = c.id));
    expect(await preview(tenant, [{ element: 'kind', value: 'EL' }], ids.R1)).toMatchObject({ displayValue: 'EL-100-XXX', isDeterministic: false });
    expect(
      await preview(tenant, [
        { element: 'family', value: 'EL-100' },
        { element: 'seq', value: '0001' },
      ]),
    ).toMatchObject({ isDeterministic: true, isUnique: false });
    expect(
      await preview(
        tenant,
        [
          { element: 'family', value: 'EL-100' },
          { element: 'seq', value: '0001' },
        ],
        ids.R1,
      ),
    ).toMatchObject({ isDeterministic: true, isUnique: true });
  });

  it('refuses a CPN that cannot be completed or contradicts the category, writing nothing', async () => {
    const before = await componentWrites(tenant);
    await expectError(tenant, createMutation, { inputs: [resistor('no kind')] }, 'CPN_INVALID');
    await expectError(tenant, createMutation, { inputs: [resistor('wrong family', { cpnOverrides: [{ element: 'family', value: 'ME-200' }] })] }, 'CPN_INVALID');
    await expectError(tenant, createMutation, { inputs: [resistor('bad kind', { cpnOverrides: [{ element: 'kind', value: 'XX' }] })] }, 'CPN_INVALID');
    await expectError(
      tenant,
      createMutation,
      {
        inputs: [
          resistor('bad seq', {
            cpnOverrides: [
              { element: 'kind', value: 'EL' },
              { element: 'seq', value: '1000' },
            ],
          }),
        ],
      },
      'CPN_INVALID',
    );
    await expectError(tenant, createMutation, { inputs: [resistor('taken freeform', { cpn: 'free-form 1' })] }, 'CPN_TAKEN');
    expect(await componentWrites(tenant)).toEqual(before);
  });

  it('reusableGroupInstances lists the group value combinations in use, most used first, filtered by element', async () => {
    const instances = async (groupName: string, filters?: { element: string; value: string }[]) =>
      (await gqlOk<{ identifier: { reusableGroupInstances: unknown[] } }>(tenant, groupInstances, { configId: 'CPN_SCHEME', groupName, filters })).identifier.reusableGroupInstances;
    const el100 = {
      values: [
        { element: 'kind', value: 'EL' },
        { element: 'category', value: '100' },
      ],
      displayValue: 'EL-100',
      usageCount: 2,
    };
    const me200 = {
      values: [
        { element: 'kind', value: 'ME' },
        { element: 'category', value: '200' },
      ],
      displayValue: 'ME-200',
      usageCount: 2,
    };
    const el110 = {
      values: [
        { element: 'kind', value: 'EL' },
        { element: 'category', value: '110' },
      ],
      displayValue: 'EL-110',
      usageCount: 1,
    };
    expect(await instances('family')).toEqual([el100, me200, el110]);
    expect(await instances('family', [{ element: 'kind', value: 'EL' }])).toEqual([el100, el110]);
    expect(await instances('family', [{ element: 'category', value: '200' }])).toEqual([me200]);
    expect(
      await instances('family', [
        { element: 'kind', value: 'EL' },
        { element: 'category', value: '200' },
      ]),
    ).toEqual([]);
    for (const [configId, groupName] of [
      ['CPN_SCHEME', 'seq'],
      ['CPN_SCHEME', 'nope'],
      ['STATUSES', 'family'],
    ]) {
      const response = await graphql(groupInstances, { configId, groupName }, tenantHeaders(tenant));
      expect(response.body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    }
  });

  it('validateFreeformOverride checks the value and whether it is free in the library', async () => {
    expect(await freeformCheck(tenant, 'BRAND-NEW')).toEqual({ success: true, message: null, errors: [], isUnique: true });
    expect(await freeformCheck(tenant, 'FREE-FORM 1')).toMatchObject({ success: false, isUnique: false, message: expect.stringContaining('already used') });
    expect(await freeformCheck(tenant, 'free-form 1')).toMatchObject({ success: false, isUnique: false });
    expect(await freeformCheck(tenant, 'FREE-FORM 1', ids.F1)).toMatchObject({ success: true, isUnique: true });
    expect(await freeformCheck(tenant, 'EL-100-0001')).toMatchObject({ success: false, isUnique: false });
    expect(await freeformCheck(tenant, ' padded')).toMatchObject({ success: false, isUnique: false });
    expect(await freeformCheck(tenant, 'x'.repeat(65))).toMatchObject({ success: false, isUnique: false });
  });

  it('stops at the counter maximum with CPN_COUNTER_EXHAUSTED and writes no component', async () => {
    const store = testStore();
    await store.ddb.send(new PutCommand({ TableName: store.tableName, Item: { PK: libraryPartition(tenant), SK: 'CTR#seq#PREFIX:EL-110-', entity: 'CpnCounter', value: 997 } }));
    expect((await createComponent(tenant, capacitor('C998', { cpnOverrides: [{ element: 'kind', value: 'EL' }] }))).cpn).toBe('EL-110-0998');
    expect((await createComponent(tenant, capacitor('C999', { cpnOverrides: [{ element: 'kind', value: 'EL' }] }))).cpn).toBe('EL-110-0999');
    const before = await partitionItems(libraryPartition(tenant), ['C#', 'H#', 'CPN#']);
    await expectError(tenant, createMutation, { inputs: [capacitor('C1000', { cpnOverrides: [{ element: 'kind', value: 'EL' }] })] }, 'CPN_COUNTER_EXHAUSTED');
    expect(await partitionItems(libraryPartition(tenant), ['C#', 'H#', 'CPN#'])).toEqual(before);
    // Other instances of the group keep their own counters.
    expect((await createComponent(tenant, resistor('R3', { cpnOverrides: [{ element: 'kind', value: 'EL' }] }))).cpn).toBe('EL-100-0003');
  });
});

describe('CPN claims across a change of case sensitivity', () => {
  let tenant: Tenant;
  const scheme = (case_sensitive: boolean) => ({
    delimiter: '-',
    elements: [
      { type: 'CATEGORY_PREFIX', name: 'category' },
      { type: 'COUNTER', name: 'counter' },
    ],
    settings: { allow_override: true, allow_freeform: true, case_sensitive },
  });

  beforeAll(async () => {
    tenant = await newTenant();
  });

  it('keeps a CPN claimed (never reused) when the scheme turns case-insensitive, before and after deletion', async () => {
    await gqlOk(tenant, setConfig, { input: { type: 'CPN_SCHEME', document: scheme(true) } });
    const part = await createComponent(tenant, { name: 'lower-case cpn', categoryId: 'mechanical', cpn: 'abc-1' });
    expect(part.cpn).toBe('abc-1');
    expect(await freeformCheck(tenant, 'ABC-1')).toMatchObject({ success: true, isUnique: true });

    const switched = await graphql(setConfig, { input: { type: 'CPN_SCHEME', document: scheme(false) } }, tenantHeaders(tenant));
    // Refusing the switch while CPNs exist would be a correct answer too; otherwise the claims must hold.
    if (switched.body.errors?.[0]?.extensions?.code === 'CONFIG_INVALID') return;
    expect(switched.body.errors).toBeUndefined();

    for (const value of ['abc-1', 'ABC-1']) expect(await freeformCheck(tenant, value)).toMatchObject({ success: false, isUnique: false });
    await gqlOk(tenant, deleteMutation, { ids: [part.id] });
    for (const value of ['abc-1', 'ABC-1']) expect(await freeformCheck(tenant, value)).toMatchObject({ success: false, isUnique: false });
    await expectError(tenant, createMutation, { inputs: [{ name: 'reuse', categoryId: 'mechanical', cpn: 'ABC-1' }] }, 'CPN_TAKEN');
    const claims = await partitionItems(libraryPartition(tenant), ['CPN#']);
    expect(claims.map((c) => [c.cpn, c.componentId, c.deleted])).toEqual([['abc-1', part.id, true]]);
  });
});
