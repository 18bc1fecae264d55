import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { webhookReceiver } from '../support/webhooks.js';
import { configureSaml, idpMetadata, verifiedDomainOf } from './scimHelpers.js';

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

describe('item.update children', () => {
  it('refuses children: null (omitted keeps the BOM, [] empties it): the BOM stays, nothing is written', async () => {
    const made = await call('mutation { item { create(inputs: [{ name: "Kept child", categoryId: "mechanical" }, { name: "Kept board", categoryId: "pcba" }]) { id version } } }');
    const [child, board] = made.data.item.create as { id: string; version: number }[];
    const linked = await call('mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id version } } }', {
      inputs: [{ id: board!.id, children: [{ childId: child!.id, quantity: 2 }] }],
    });
    const version = linked.data.item.update[0].version;
    const refused = await call('mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id version } } }', { inputs: [{ id: board!.id, name: 'Renamed', children: null }] });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'children', inputIndex: 0 });
    const after = await call('query($id: ID!) { component { findOne(id: $id) { name version children { childId quantity } } } }', { id: board!.id });
    expect(after.data.component.findOne).toEqual({ name: 'Kept board', version, children: [{ childId: child!.id, quantity: 2 }] });
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

describe('sourcing updates', () => {
  it('refuse null for what a vendor, part or quote always has; null aliases empties the list (all were ignored)', async () => {
    const vendor = (await call('mutation { vendorSourcing { createVendor(input: { kind: MANUFACTURER, name: "Nullco", aliases: ["NC"] }) { id } } }')).data.vendorSourcing.createVendor;
    const updateVendor = 'mutation($input: UpdateVendorInput!) { vendorSourcing { updateVendor(input: $input) { name aliases } } }';
    expect(refusedField(await call(updateVendor, { input: { id: vendor.id, name: null } }))).toBe('name');
    expect((await call(updateVendor, { input: { id: vendor.id, aliases: null } })).data.vendorSourcing.updateVendor).toEqual({ name: 'Nullco', aliases: [] });

    const component = (await call('mutation { component { create(inputs: [{ name: "Sourced", categoryId: "mechanical" }]) { id } } }')).data.component.create[0];
    const part = (
      await call('mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { id } } }', { input: { componentId: component.id, manufacturerName: 'Nullco', mpn: 'N-1' } })
    ).data.vendorSourcing.createPart;
    const updatePart = 'mutation($input: UpdatePartInput!) { vendorSourcing { updatePart(input: $input) { id } } }';
    for (const field of ['mpn', 'lifecycle', 'approval', 'isLegacyImport', 'manufacturerId', 'manufacturerName']) {
      expect(refusedField(await call(updatePart, { input: { componentId: component.id, id: part.id, rank: 3, [field]: null } })), `updatePart ${field}`).toBe(field);
    }
    await call('mutation { vendorSourcing { createVendor(input: { kind: DISTRIBUTOR, name: "Nullco Distribution" }) { id } } }');
    const quote = (
      await call('mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { id } } }', {
        input: { componentId: component.id, partId: part.id, distributorName: 'Nullco Distribution', currency: 'USD', unitPrice: 1 },
      })
    ).data?.vendorSourcing.createQuote;
    const updateQuote = 'mutation($input: UpdateQuoteInput!) { vendorSourcing { updateQuote(input: $input) { id } } }';
    for (const field of ['currency', 'isLegacyImport', 'distributorId', 'distributorName']) {
      expect(refusedField(await call(updateQuote, { input: { componentId: component.id, id: quote.id, moq: 5, [field]: null } })), `updateQuote ${field}`).toBe(field);
    }
  });
});

describe('roles, integrations and webhooks', () => {
  const receiver = webhookReceiver(
    () => 204,
    () => undefined,
  );
  afterAll(() => receiver.server.close());

  it('refuse null for what they always have; null clears a role description (all were ignored)', async () => {
    const role = (await call('mutation { roles { create(input: { name: "Nullable", description: "Has one", type: LIBRARY, permissions: ["components.read"] }) { id } } }')).data.roles.create;
    const updateRole = 'mutation($input: UpdateRoleInput!) { roles { update(input: $input) { name description permissions { name } } } }';
    expect(refusedField(await call(updateRole, { input: { id: role.id, name: null } }))).toBe('input.name');
    expect(refusedField(await call(updateRole, { input: { id: role.id, permissions: null } }))).toBe('input.permissions');
    expect((await call(updateRole, { input: { id: role.id, description: null } })).data.roles.update).toEqual({ name: 'Nullable', description: '', permissions: [{ name: 'components.read' }] });

    const integration = (await call('mutation { integration { create(input: { name: "Nullable sync" }) { id } } }')).data.integration.create;
    const updateIntegration = 'mutation($input: UpdateIntegrationInput!) { integration { update(input: $input) { name disabled } } }';
    for (const field of ['name', 'disabled']) expect(refusedField(await call(updateIntegration, { input: { id: integration.id, [field]: null } })), field).toBe(`input.${field}`);

    const webhook = (await call('mutation($url: String!) { webhooks { create(input: { url: $url, events: [COMPONENT_CREATED] }) { webhook { id } } } }', { url: await receiver.url() })).data.webhooks
      .create.webhook;
    const updateWebhook = 'mutation($input: UpdateWebhookInput!) { webhooks { update(input: $input) { url events enabled } } }';
    for (const field of ['url', 'events', 'enabled']) expect(refusedField(await call(updateWebhook, { input: { id: webhook.id, [field]: null } })), field).toBe(`input.${field}`);
  });
});

describe('component groups', () => {
  it('refuse a pagination inside advancedFilter (it was ignored: the pagination argument pages)', async () => {
    await call('mutation { component { create(inputs: [{ name: "Grouped 1", categoryId: "mechanical" }, { name: "Grouped 2", categoryId: "mechanical" }]) { id } } }');
    const advancedFilter = { and: [{ name: { contains: 'Grouped' } }], pagination: { first: 1 } };
    const inGroup = await call(
      'query($advancedFilter: AdvancedComponentFilterInput) { component { componentsInGroup(groupBy: CATEGORY, key: "mechanical", advancedFilter: $advancedFilter) { totalCount edges { node { id } } } } }',
      { advancedFilter },
    );
    expect(refusedField(inGroup)).toBe('advancedFilter.pagination');
    const groups = await call('query($advancedFilter: AdvancedComponentFilterInput) { component { componentGroups(groupBy: CATEGORY, advancedFilter: $advancedFilter) { totalCount } } }', {
      advancedFilter,
    });
    expect(refusedField(groups)).toBe('advancedFilter.pagination');
    const paged = await call(
      'query($advancedFilter: AdvancedComponentFilterInput) { component { componentsInGroup(groupBy: CATEGORY, key: "mechanical", pagination: { first: 1 }, advancedFilter: $advancedFilter) { totalCount edges { node { id } } } } }',
      { advancedFilter: { and: advancedFilter.and } },
    );
    expect(paged.data.component.componentsInGroup.edges).toHaveLength(1);
    expect(paged.data.component.componentsInGroup.totalCount).toBe(2);
  });
});

describe('library role lists', () => {
  it('refuse a library named twice in libraryRoles (the earlier assignment was silently dropped)', async () => {
    const libraryId = tenant.library.id;
    const twice = [
      { libraryId, roleId: 'LIBRARY_EDITOR' },
      { libraryId, roleId: 'LIBRARY_VIEWER' },
    ];
    const createTeam = 'mutation($input: CreateTeamInput!) { organization { teams { create(input: $input) { id } } } }';
    expect(refusedField(await call(createTeam, { input: { name: 'Twice', libraryRoles: twice } }))).toBe('input.libraryRoles[1].libraryId');
    const team = (await call(createTeam, { input: { name: 'Once', libraryRoles: [twice[0]] } })).data.organization.teams.create;
    expect(refusedField(await call('mutation($input: SetTeamRolesInput!) { organization { teams { setRoles(input: $input) { id } } } }', { input: { id: team.id, libraryRoles: twice } }))).toBe(
      'input.libraryRoles[1].libraryId',
    );
    const invite = await call('mutation($input: BulkInviteInput!) { organization { bulkInvite(input: $input) { successful { email } } } }', {
      input: { emails: ['twice@example.com'], libraryRoles: twice.map(({ libraryId: id, roleId }) => ({ libraryId: id, roleName: roleId })) },
    });
    expect(refusedField(invite)).toBe('input.libraryRoles[1].libraryId');
  });
});

describe('saml.configure', () => {
  it('refuses metadata or domains sent with enabled: false, and a null domains clears them (all were ignored)', async () => {
    const sso = await newTenant();
    const admin = tenantHeaders(sso);
    const domain = await verifiedDomainOf(sso);
    const configure = (input: Record<string, unknown>) => graphql<any>(configureSaml, { input }, admin).then((response) => response.body);
    expect((await configure({ enabled: true, idpMetadataXml: idpMetadata(), domains: [domain] })).data.saml.configure.domains).toEqual([domain]);
    expect(refusedField(await configure({ enabled: false, domains: [] }))).toBe('input.domains');
    expect(refusedField(await configure({ enabled: false, idpMetadataXml: idpMetadata({ entityId: 'https://other.example/idp' }) }))).toBe('input.idpMetadataXml');
    const kept = (await graphql<any>('{ saml { configuration { enabled domains } } }', undefined, admin)).body.data.saml.configuration;
    expect(kept).toEqual({ enabled: true, domains: [domain] });
    expect((await configure({ enabled: true, domains: null })).data.saml.configure.domains).toEqual([]);
  });
});
