import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
import { libraryPartition, partitionItems } from './componentHelpers.js';

/**
 * The principal and attribute access model end to end: a CAD and an ERP integration, each acting through
 * its own API key, and a person (the native principal), writing the same mechanical parts (attributes
 * material, finish, mass).
 */

const fields = `id version name description attributeValues { attributeId value } linkedPrincipalIds originIntegrationId originIntegration { id name isNative }
  actingIntegrationId integrationLock { locked integrationId } effectiveAttributeAccess { attributeId canRead canWrite }`;
const createMutation = `mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { ${fields} } } }`;
const updateMutation = `mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { ${fields} } } }`;
const findOne = `query($id: ID!) { component { findOne(id: $id) { ${fields} mass: attributeValue(attributeId: "mass") history { actingIntegrationId changes { field } } } } }`;
const setAccess = `mutation($entries: [AttributeAccessEntryInput!]!) { setAttributeAccess(entries: $entries) { version entries { attribute principal write read } } }`;
const policyQuery = 'query { accessPolicy { version entries { attribute principal write read } } }';
const link = `mutation($componentId: ID!, $principalId: ID) { linkComponent(componentId: $componentId, principalId: $principalId) { ${fields} } }`;
const unlink = `mutation($componentId: ID!, $principalId: ID) { unlinkComponent(componentId: $componentId, principalId: $principalId) { ${fields} } }`;
const reconcileMutation = `mutation($input: ReconcileInput!) { reconcile(input: $input) { component { ${fields} } applied { field attributeId } refused { field attributeId code message } } }`;

const values = (component: { attributeValues: { attributeId: string; value: unknown }[] }) => Object.fromEntries(component.attributeValues.map((v) => [v.attributeId, v.value]));

describe('integration principals and per-attribute access', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let alice: Member;
  let cad: { id: string; headers: Record<string, string> };
  let erp: { id: string; headers: Record<string, string> };

  async function integration(name: string) {
    const created = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id name isNative disabled } } }', { input: { name } })).integration.create;
    expect(created).toMatchObject({ name, isNative: false, disabled: false });
    const key = (
      await ok(admin, 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret apiKey { integrationId } } } }', { input: { name: `${name} key`, integrationId: created.id } })
    ).apiKey.create;
    expect(key.apiKey.integrationId).toBe(created.id);
    return { id: created.id as string, headers: { ...admin, 'x-api-key': key.secret as string } };
  }
  const libraryItems = () => partitionItems(libraryPartition(tenant), ['C#', 'H#', 'ACCESSPOLICY']);
  const create = async (headers: Record<string, string>, input: Record<string, unknown>) =>
    (await ok(headers, createMutation, { inputs: [{ categoryId: 'mechanical', ...input }] })).component.create[0];
  const update = (headers: Record<string, string>, input: Record<string, unknown>) => refusal(headers, updateMutation, { inputs: [input] });
  const read = async (headers: Record<string, string>, id: string) => (await ok(headers, findOne, { id })).component.findOne;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    alice = await memberWithRole(tenant, 'EDITOR');
    cad = await integration('Onshape CAD');
    erp = await integration('NetSuite ERP');
  }, 60_000);

  it('lists the native principal first, and refuses to change it', async () => {
    const all = (await ok(admin, 'query { integration { findAll { id name isNative disabled } } }')).integration.findAll;
    expect(all[0]).toMatchObject({ id: 'native', isNative: true });
    expect(all.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([cad.id, erp.id]));
    const refused = await refusal(admin, 'mutation { integration { update(input: { id: "native", name: "x" }) { id } } }');
    expect(refused.code).toBe('NATIVE_PRINCIPAL_IMMUTABLE');
    expect((await refusal(admin, 'mutation { integration { create(input: { name: "onshape cad" }) { id } } }')).code).toBe('INTEGRATION_NAME_TAKEN');
    expect((await refusal(alice.headers, 'mutation { integration { create(input: { name: "Sneaky" }) { id } } }')).code).toBe('FORBIDDEN');
  });

  it('sets designations by the rules; a refused call changes nothing (table snapshot)', async () => {
    const policy = (
      await ok(admin, setAccess, {
        entries: [
          { attribute: 'mass', principal: cad.id, write: 'EXCLUSIVE_WRITE' },
          { attribute: 'material', principal: cad.id, write: 'WRITE' },
          { attribute: 'material', principal: erp.id, write: 'WRITE' },
          { attribute: 'finish', principal: erp.id, write: 'NO_WRITE' },
          { attribute: 'mass', principal: erp.id, read: 'NO_ACCESS' },
          { attribute: 'finish', principal: cad.id, read: 'RECEIVE_ONLY' },
        ],
      })
    ).setAttributeAccess;
    expect(policy.version).toBe(1);
    // Stored as set: EXCLUSIVE_WRITE round-trips, omitted read is READ, omitted write is OPEN.
    expect((await ok(alice.headers, policyQuery)).accessPolicy).toEqual(policy);
    expect(policy.entries).toContainEqual({ attribute: 'mass', principal: cad.id, write: 'EXCLUSIVE_WRITE', read: 'READ' });
    expect(policy.entries).toContainEqual({ attribute: 'mass', principal: erp.id, write: 'OPEN', read: 'NO_ACCESS' });

    const before = await libraryItems();
    const refusals: [Record<string, unknown>[], string][] = [
      [[{ attribute: 'material', principal: erp.id, write: 'EXCLUSIVE_WRITE' }], 'EXCLUSIVE_WRITE_CONFLICT'],
      [[{ attribute: 'mass', principal: erp.id, write: 'WRITE' }], 'ATTRIBUTE_MANAGED_EXCLUSIVELY'],
      [[{ attribute: 'mass', principal: 'native', read: 'NO_ACCESS' }], 'STORE_PRINCIPAL_ALWAYS_READS'],
      [[{ attribute: 'finish', principal: 'native', read: 'RECEIVE_ONLY' }], 'STORE_PRINCIPAL_ALWAYS_READS'],
      // The first entry alone would be fine: the call is all or none.
      [
        [
          { attribute: 'finish', principal: cad.id, write: 'WRITE' },
          { attribute: 'mass', principal: 'native', write: 'EXCLUSIVE_WRITE' },
        ],
        'EXCLUSIVE_WRITE_CONFLICT',
      ],
      [[{ attribute: 'no-such-attribute', principal: cad.id, write: 'WRITE' }], 'ATTRIBUTE_NOT_FOUND'],
      [[{ attribute: 'mass', principal: crypto.randomUUID(), write: 'NO_WRITE' }], 'INTEGRATION_NOT_FOUND'],
    ];
    for (const [entries, code] of refusals) expect((await refusal(admin, setAccess, { entries })).code, JSON.stringify(entries)).toBe(code);
    const denied = await refusal(alice.headers, setAccess, { entries: [{ attribute: 'finish', principal: 'native', write: 'NO_WRITE' }] });
    expect(denied).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(denied.error!.extensions).toMatchObject({ requiredPermission: 'integrations.configure' });
    expect(await libraryItems()).toEqual(before);
    // A manager can hand over: OPEN first, then EXCLUSIVE for the other, in one call (order matters).
    const handed = (
      await ok(admin, setAccess, {
        entries: [
          { attribute: 'finish', principal: erp.id, write: 'OPEN' },
          { attribute: 'finish', principal: erp.id, write: 'NO_WRITE' },
        ],
      })
    ).setAttributeAccess;
    expect(handed.version).toBe(2);
  });

  it('enforces every designation on writes, by link, and refuses without writing anything', async () => {
    // CAD creates: linked to it, originating from it; it writes what it manages and what is open.
    const part = await create(cad.headers, {
      name: 'Bracket',
      attributeValues: [
        { attributeId: 'mass', value: 12 },
        { attributeId: 'material', value: 'Al 6061' },
        { attributeId: 'finish', value: 'anodized' },
      ],
    });
    expect(part).toMatchObject({ linkedPrincipalIds: [cad.id], originIntegrationId: cad.id, originIntegration: { id: cad.id, name: 'Onshape CAD', isNative: false }, actingIntegrationId: cad.id });
    const before = await libraryItems();

    // [principal, attribute, expected] on a component linked to CAD only.
    const cells: [string, Record<string, string>, string, unknown, string | null][] = [
      ['ERP, WRITE manager not linked, shared attribute', erp.headers, 'material', 'Steel', 'ATTRIBUTE_WRITE_DENIED'],
      ['ERP, NO_WRITE on an open attribute', erp.headers, 'finish', 'painted', 'ATTRIBUTE_WRITE_DENIED'],
      ['ERP, OPEN on an exclusively managed attribute', erp.headers, 'mass', 13, 'ATTRIBUTE_WRITE_DENIED'],
      ['person, OPEN on an attribute with a linked manager', alice.headers, 'material', 'Steel', 'ATTRIBUTE_WRITE_DENIED'],
      ['person, OPEN on an exclusive attribute', alice.headers, 'mass', 13, 'ATTRIBUTE_WRITE_DENIED'],
    ];
    for (const [label, headers, attributeId, value, code] of cells) {
      const result = await update(headers, { id: part.id, attributeValues: [{ attributeId, value }] });
      expect(result.code, label).toBe(code);
    }
    expect(await libraryItems()).toEqual(before);

    // Allowed cells: the person on an open attribute, CAD on what it manages (exclusively or shared).
    expect(values((await ok(alice.headers, updateMutation, { inputs: [{ id: part.id, attributeValues: [{ attributeId: 'finish', value: 'bead blasted' }] }] })).component.update[0])).toMatchObject({
      finish: 'bead blasted',
    });
    const byCad = (
      await ok(cad.headers, updateMutation, {
        inputs: [
          {
            id: part.id,
            attributeValues: [
              { attributeId: 'mass', value: 12.5 },
              { attributeId: 'material', value: 'Al 7075' },
            ],
          },
        ],
      })
    ).component.update[0];
    // CAD's own reads withhold finish (RECEIVE_ONLY).
    expect(values(byCad)).toEqual({ mass: 12.5, material: 'Al 7075' });
    // Writing a value again unchanged is no write: ERP may send its whole view.
    expect((await update(erp.headers, { id: part.id, attributeValues: [{ attributeId: 'material', value: 'Al 7075' }] })).code).toBeUndefined();

    // ERP links itself: now a linked manager of material, still nothing on mass or finish.
    const linked = (await ok(erp.headers, link, { componentId: part.id })).linkComponent;
    expect(linked.linkedPrincipalIds).toEqual([cad.id, erp.id]);
    expect((await ok(erp.headers, link, { componentId: part.id })).linkComponent.version).toBe(linked.version);
    expect(values((await ok(erp.headers, updateMutation, { inputs: [{ id: part.id, attributeValues: [{ attributeId: 'material', value: 'Steel 304' }] }] })).component.update[0])).toMatchObject({
      material: 'Steel 304',
    });
    expect((await update(erp.headers, { id: part.id, attributeValues: [{ attributeId: 'mass', value: 1 }] })).code).toBe('ATTRIBUTE_WRITE_DENIED');
    // Linking another principal needs integrations.configure.
    expect((await refusal(alice.headers, link, { componentId: part.id, principalId: erp.id })).error!.extensions).toMatchObject({ requiredPermission: 'integrations.configure' });

    // What each caller is told about the component.
    const forErp = (await read(erp.headers, part.id)).effectiveAttributeAccess;
    expect(forErp).toEqual([
      { attributeId: 'material', canRead: true, canWrite: true },
      { attributeId: 'finish', canRead: true, canWrite: false },
      { attributeId: 'mass', canRead: false, canWrite: false },
    ]);
    const forAlice = await read(alice.headers, part.id);
    expect(forAlice.integrationLock).toEqual({ locked: true, integrationId: cad.id });
    expect(forAlice.actingIntegrationId).toBeNull();
    expect(forAlice.effectiveAttributeAccess.find((a: { attributeId: string }) => a.attributeId === 'finish')).toEqual({ attributeId: 'finish', canRead: true, canWrite: true });

    // Unlinking CAD freezes mass (its only manager) for everyone, CAD included; material stays ERP's.
    await ok(admin, unlink, { componentId: part.id, principalId: cad.id });
    const frozenBefore = await libraryItems();
    for (const headers of [cad.headers, alice.headers, erp.headers])
      expect((await update(headers, { id: part.id, attributeValues: [{ attributeId: 'mass', value: 99 }] })).code).toBe('ATTRIBUTE_FROZEN');
    expect((await update(cad.headers, { id: part.id, attributeValues: [{ attributeId: 'material', value: 'Ti' }] })).code).toBe('ATTRIBUTE_WRITE_DENIED');
    expect(await libraryItems()).toEqual(frozenBefore);
    expect((await read(alice.headers, part.id)).integrationLock).toEqual({ locked: true, integrationId: erp.id });

    // A person creating a part cannot set a frozen attribute either (CAD manages mass and is not linked).
    expect((await refusal(alice.headers, createMutation, { inputs: [{ categoryId: 'mechanical', name: 'Spacer', attributeValues: [{ attributeId: 'mass', value: 3 }] }] })).code).toBe(
      'ATTRIBUTE_FROZEN',
    );
  });

  it('withholds receive-only and no-access values from the integration, in reads, history and search', async () => {
    const part = await create(cad.headers, {
      name: 'Withheld housing',
      attributeValues: [
        { attributeId: 'mass', value: 40 },
        { attributeId: 'material', value: 'PA12' },
        { attributeId: 'finish', value: 'dyed' },
      ],
    });
    const forErp = await read(erp.headers, part.id);
    expect(values(forErp)).toEqual({ material: 'PA12', finish: 'dyed' });
    expect(forErp.mass).toBeNull();
    expect(forErp.history.flatMap((h: { changes: { field: string }[] }) => h.changes.map((c) => c.field))).not.toContain('attributeValues.mass');
    expect(forErp.history[0].actingIntegrationId).toBe(cad.id);
    const forAlice = await read(alice.headers, part.id);
    expect(values(forAlice)).toEqual({ mass: 40, material: 'PA12', finish: 'dyed' });
    expect(forAlice.history[0].changes.map((c: { field: string }) => c.field)).toContain('attributeValues.mass');
    const search = `query { component { filter(input: { and: [{ name: { eq: "Withheld housing" } }] }) { edges { node { attributeValues { attributeId value } } } } } }`;
    expect(values((await ok(erp.headers, search)).component.filter.edges[0].node)).toEqual({ material: 'PA12', finish: 'dyed' });
    expect(values((await ok(cad.headers, search)).component.filter.edges[0].node)).toEqual({ mass: 40, material: 'PA12' });
    const groups = `query { component { componentGroups(groupBy: CATEGORY) { edges { node { components { edges { node { id attributeValues { attributeId } } } } } } } } }`;
    const grouped = (await ok(erp.headers, groups)).component.componentGroups.edges.flatMap((g: any) => g.node.components.edges.map((e: any) => e.node));
    expect(
      grouped
        .find((n: { id: string }) => n.id === part.id)
        .attributeValues.map((a: { attributeId: string }) => a.attributeId)
        .sort(),
    ).toEqual(['finish', 'material']);
  });

  it("reconcile applies what the integration may write and reports the rest with the rule's code", async () => {
    const part = await create(cad.headers, { name: 'Reconciled plate', attributeValues: [{ attributeId: 'mass', value: 5 }] });
    const result = (
      await ok(erp.headers, reconcileMutation, {
        input: {
          componentId: part.id,
          description: 'From ERP',
          attributeValues: [
            { attributeId: 'mass', value: 6 },
            { attributeId: 'material', value: 'Steel' },
            { attributeId: 'finish', value: 'zinc' },
          ],
        },
      })
    ).reconcile;
    expect(result.applied).toEqual([{ field: 'description', attributeId: null }]);
    expect(result.refused.map((r: { attributeId: string; code: string }) => [r.attributeId, r.code])).toEqual([
      ['finish', 'ATTRIBUTE_WRITE_DENIED'],
      ['mass', 'ATTRIBUTE_WRITE_DENIED'],
      ['material', 'ATTRIBUTE_WRITE_DENIED'],
    ]);
    expect(result.component).toMatchObject({ description: 'From ERP', version: part.version + 1 });
    // Linked, ERP's write of material goes through; a view that changes nothing writes nothing.
    await ok(erp.headers, link, { componentId: part.id });
    const again = (await ok(erp.headers, reconcileMutation, { input: { componentId: part.id, description: 'From ERP', attributeValues: [{ attributeId: 'material', value: 'Steel' }] } })).reconcile;
    expect(again.applied).toEqual([{ field: 'attributeValues.material', attributeId: 'material' }]);
    const same = (await ok(erp.headers, reconcileMutation, { input: { componentId: part.id, attributeValues: [{ attributeId: 'material', value: 'Steel' }] } })).reconcile;
    expect(same).toMatchObject({ applied: [], refused: [], component: { version: again.component.version } });
    // mass is withheld from ERP: sent unchanged it is still refused, so the answer never tells ERP the stored value.
    const guessed = (
      await ok(erp.headers, reconcileMutation, {
        input: {
          componentId: part.id,
          attributeValues: [
            { attributeId: 'material', value: 'Steel' },
            { attributeId: 'mass', value: 5 },
          ],
        },
      })
    ).reconcile;
    expect(guessed).toMatchObject({ applied: [], refused: [{ attributeId: 'mass', code: 'ATTRIBUTE_WRITE_DENIED' }], component: { version: again.component.version } });
    // Bad values still fail the call as a direct update would.
    expect((await refusal(erp.headers, reconcileMutation, { input: { componentId: part.id, name: '' } })).code).toBeDefined();
  });

  it('records the integration on BOM lines and snapshots; recommendedAttributes describes the standing', async () => {
    const screw = await create(erp.headers, { name: 'ERP screw' });
    const assembly = (
      await ok(erp.headers, `mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id children { createdByIntegrationId } bomHistory { actingIntegrationId } } } }`, {
        inputs: [{ name: 'ERP assembly', categoryId: 'pcba', children: [{ childId: screw.id, quantity: 2 }] }],
      })
    ).item.create[0];
    expect(assembly.children).toEqual([{ createdByIntegrationId: erp.id }]);
    expect(assembly.bomHistory[0].actingIntegrationId).toBe(erp.id);
    const recommended = (await ok(erp.headers, 'query { recommendedAttributes { attributeId write read canRead managedBy recommendedWrite } }')).recommendedAttributes;
    const byId = Object.fromEntries(recommended.map((r: { attributeId: string }) => [r.attributeId, r]));
    expect(byId.mass).toMatchObject({ write: 'OPEN', read: 'NO_ACCESS', canRead: false, managedBy: [cad.id], recommendedWrite: 'NO_WRITE' });
    expect(byId.material).toMatchObject({ write: 'WRITE', managedBy: [cad.id, erp.id], recommendedWrite: 'WRITE' });
    expect(byId.finish).toMatchObject({ write: 'NO_WRITE', recommendedWrite: 'EXCLUSIVE_WRITE' });
  });

  it("a disabled integration's keys are refused at once; enabling restores them", async () => {
    await ok(admin, 'mutation($input: UpdateIntegrationInput!) { integration { update(input: $input) { disabled } } }', { input: { id: erp.id, disabled: true } });
    const refused = await refusal(erp.headers, 'query { component { findAll { totalCount } } }');
    expect(refused).toMatchObject({ status: 403, code: 'INTEGRATION_DISABLED' });
    expect((await refusal(admin, 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret } } }', { input: { name: 'x', integrationId: erp.id } })).code).toBe(
      'INTEGRATION_DISABLED',
    );
    await ok(admin, 'mutation($input: UpdateIntegrationInput!) { integration { update(input: $input) { disabled } } }', { input: { id: erp.id, disabled: false } });
    expect((await ok(erp.headers, 'query { component { findAll { totalCount } } }')).component.findAll.totalCount).toBeGreaterThan(0);
  });
});
