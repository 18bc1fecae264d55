import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, ok, refusal, type Member } from './accessHelpers.js';

/**
 * Integration access on every path, not only the GraphQL reads and writes (integrations.test.ts): an
 * integration's key acts with a role of its own (never its creator's Site Admin), an export it starts and
 * the webhook bodies it receives hold no value withheld from it, and a write of a withheld attribute gets
 * the same answer whatever the stored value (so it cannot confirm a guess).
 */

// Values distinctive enough that their absence from a whole response or file means no trace of them.
const mass = [48213.125, 57119.375];
const finish = ['vacuum-plated-qx7', 'vacuum-plated-zr9'];

const setAccess = `mutation($entries: [AttributeAccessEntryInput!]!) { setAttributeAccess(entries: $entries) { version } }`;
const createKey = 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret apiKey { id integrationId roleId } } } }';
const exportMutation = 'mutation($input: ExportLibraryInput) { transfer { exportLibrary(input: $input) { files { name downloadUrl } } } }';
const updateMutation = 'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id version } } }';
const reconcileMutation = 'mutation($input: ReconcileInput!) { reconcile(input: $input) { component { version } applied { field } refused { attributeId code message } } }';

describe('integration access on every path', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let alice: Member;
  let cad: { id: string; keyId: string; headers: Record<string, string> };
  let erp: { id: string; keyId: string; headers: Record<string, string> };
  let partId: string;

  async function integration(name: string, roleId?: string) {
    const created = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id } } }', { input: { name } })).integration.create;
    const key = (await ok(admin, createKey, { input: { name: `${name} key`, integrationId: created.id, ...(roleId ? { roleId } : {}) } })).apiKey.create;
    expect(key.apiKey).toMatchObject({ integrationId: created.id, roleId: roleId ?? null });
    return { id: created.id as string, keyId: key.apiKey.id as string, headers: { ...admin, 'x-api-key': key.secret as string } };
  }
  const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer()).toString('utf8');
  const withheldValues = [...mass.map(String), ...finish];
  const traces = (text: string) => withheldValues.filter((value) => text.includes(value));

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    alice = await memberWithRole(tenant, 'EDITOR');
    cad = await integration('Onshape CAD');
    // The ERP runs exports and webhooks: a library administrator's role, chosen explicitly; still no integrations.configure.
    erp = await integration('NetSuite ERP', 'LIBRARY_ADMIN');
    await ok(admin, setAccess, {
      entries: [
        { attribute: 'mass', principal: cad.id, write: 'EXCLUSIVE_WRITE' },
        { attribute: 'mass', principal: erp.id, read: 'NO_ACCESS' },
        { attribute: 'finish', principal: erp.id, read: 'RECEIVE_ONLY' },
        { attribute: 'finish', principal: cad.id, read: 'RECEIVE_ONLY' },
      ],
    });
    const part = (
      await ok(cad.headers, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', {
        inputs: [
          {
            name: 'Traced bracket',
            categoryId: 'mechanical',
            attributeValues: [
              { attributeId: 'mass', value: mass[0] },
              { attributeId: 'material', value: 'Al 6061' },
              { attributeId: 'finish', value: finish[0] },
            ],
          },
        ],
      })
    ).component.create[0];
    partId = part.id;
    // Both values change once, so history carries each old and new value.
    await ok(cad.headers, updateMutation, { inputs: [{ id: partId, attributeValues: [{ attributeId: 'mass', value: mass[1] }] }] });
    await ok(alice.headers, updateMutation, { inputs: [{ id: partId, attributeValues: [{ attributeId: 'finish', value: finish[1] }] }] });
  }, 60_000);

  it("an integration's key acts with its own role: it cannot change designations, create integrations, keys or roles", async () => {
    // The creator (the tenant's Site Admin) holds integrations.configure; the keys do not.
    for (const headers of [cad.headers, erp.headers]) {
      const designation = await refusal(headers, setAccess, { entries: [{ attribute: 'mass', principal: erp.id, read: 'READ' }] });
      expect(designation).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(designation.error!.extensions).toMatchObject({ requiredPermission: 'integrations.configure' });
      expect((await refusal(headers, 'mutation { integration { create(input: { name: "Rogue" }) { id } } }')).code).toBe('FORBIDDEN');
      expect((await refusal(headers, 'mutation { roles { create(input: { name: "Rogue", type: ORG, permissions: ["integrations.configure"] }) { id } } }')).code).toBe('FORBIDDEN');
      // No new key either: a native one would read everything, another integration's would act as it.
      expect((await refusal(headers, createKey, { input: { name: 'escape' } })).code).toBe('FORBIDDEN');
      expect((await refusal(headers, createKey, { input: { name: 'escape', integrationId: cad.id } })).code).toBe('FORBIDDEN');
      expect((await refusal(headers, 'mutation { organization { create(input: { name: "Rogue org" }) { id } } }')).code).toBe('FORBIDDEN');
    }
    const policy = (await ok(admin, 'query { accessPolicy { entries { attribute principal read } } }')).accessPolicy.entries;
    expect(policy).toContainEqual({ attribute: 'mass', principal: erp.id, read: 'NO_ACCESS' });
    expect((await ok(admin, 'query { integration { findAll { name } } }')).integration.findAll.map((p: { name: string }) => p.name)).not.toContain('Rogue');

    // It sees and manages only keys like itself, never its owner's other keys (whose secret would act as the owner).
    const listed = (await ok(cad.headers, 'query { apiKey { findAllForUser { id integrationId } } }')).apiKey.findAllForUser;
    expect(listed).toEqual([{ id: cad.keyId, integrationId: cad.id }]);
    const ownersKeys = (await ok(admin, 'query { apiKey { findAllForUser { id integrationId } } }')).apiKey.findAllForUser;
    const ownKey = ownersKeys.find((k: { integrationId: string | null }) => k.integrationId === null);
    expect((await refusal(cad.headers, 'mutation($input: RotateApiKeyInput!) { apiKey { rotate(input: $input) { secret } } }', { input: { id: ownKey.id } })).code).toBe('NOT_FOUND');
    expect((await refusal(cad.headers, 'mutation($input: DeactivateApiKeyInput!) { apiKey { deactivate(input: $input) { status } } }', { input: { id: erp.keyId } })).code).toBe('NOT_FOUND');

    // It still does an integration's work, and a role given explicitly by an administrator who holds it can allow more.
    expect((await ok(cad.headers, 'query { component { findOne(id: "' + partId + '") { id } } }')).component.findOne.id).toBe(partId);
    const sync = await integration('PLM sync', 'SITE_ADMIN');
    expect((await ok(sync.headers, setAccess, { entries: [{ attribute: 'material', principal: sync.id, write: 'OPEN' }] })).setAttributeAccess.version).toBeGreaterThan(1);
  });

  it('a role is capped: nobody gives a key more than they hold, and a key never does more than its role', async () => {
    // An Editor cannot make a key with an Admin's role (403 naming a permission the Editor lacks).
    const refused = await refusal(alice.headers, createKey, { input: { name: 'too strong', roleId: 'ADMIN' } });
    expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await refusal(alice.headers, createKey, { input: { name: 'unknown role', roleId: 'NO_SUCH_ROLE' } })).code).toBe('BAD_USER_INPUT');
    // Alice's own key (a person's key without a role) may create one narrowed to a Viewer's role: it reads, never writes.
    const viewer = (await ok(alice.headers, createKey, { input: { name: 'read only', roleId: 'VIEWER' } })).apiKey.create;
    expect(viewer.apiKey).toMatchObject({ integrationId: null, roleId: 'VIEWER' });
    const headers = { ...alice.headers, 'x-api-key': viewer.secret };
    expect((await ok(headers, 'query { component { findAll { totalCount } } }')).component.findAll.totalCount).toBeGreaterThan(0);
    const write = await refusal(headers, updateMutation, { inputs: [{ id: partId, description: 'x' }] });
    expect(write.error!.extensions).toMatchObject({ code: 'FORBIDDEN', requiredPermission: 'components.update' });
  });

  it('an export started by the integration (JSON and CSV) holds no trace of a withheld value', async () => {
    const json = (await ok(erp.headers, exportMutation, { input: { format: 'JSON' } })).transfer.exportLibrary.files;
    const bundleText = await download(json[0].downloadUrl);
    expect(traces(bundleText)).toEqual([]);
    const bundle = JSON.parse(bundleText);
    const part = bundle.components.find((c: { id: string }) => c.id === partId);
    expect(part.attributeValues).toEqual({ material: 'Al 6061' });
    expect(part.history.flatMap((h: { changes: { field: string }[] }) => h.changes.map((c) => c.field)).filter((f: string) => f.startsWith('attributeValues.'))).toEqual(['attributeValues.material']);

    const csv = (await ok(erp.headers, exportMutation, { input: { format: 'CSV' } })).transfer.exportLibrary.files;
    expect(csv).toHaveLength(2);
    for (const file of csv) expect(traces(await download(file.downloadUrl)), file.name).toEqual([]);

    // The same export by a person (the native principal) holds every value.
    const full = await download((await ok(admin, exportMutation, { input: { format: 'JSON' } })).transfer.exportLibrary.files[0].downloadUrl);
    expect(traces(full).sort()).toEqual([...withheldValues].sort());
  });

  it('no read by the integration carries a withheld value (component, history, search, groups)', async () => {
    const query = `query($id: ID!) {
      component {
        findOne(id: $id) { attributeValues { attributeId value } mass: attributeValue(attributeId: "mass") finish: attributeValue(attributeId: "finish") history { changes { field from to } } }
        filter(input: { and: [{ name: { eq: "Traced bracket" } }] }) { edges { node { attributeValues { attributeId value } } } }
        componentGroups(groupBy: CATEGORY) { edges { node { components { edges { node { attributeValues { attributeId value } } } } } } }
      }
    }`;
    expect(traces(JSON.stringify(await ok(erp.headers, query, { id: partId })))).toEqual([]);
    expect(traces(JSON.stringify(await ok(admin, query, { id: partId }))).sort()).toEqual([...withheldValues].sort());
  });

  it('webhook bodies the integration receives carry no withheld value', { timeout: 120_000 }, async () => {
    const bodies: string[] = [];
    const server: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        bodies.push(body);
        response.statusCode = 204;
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/erp`;
      await ok(erp.headers, 'mutation($input: CreateWebhookInput!) { webhooks { create(input: $input) { webhook { id } } } }', {
        input: { url, events: ['COMPONENT_CREATED', 'COMPONENT_UPDATED'] },
      });
      const created = (
        await ok(cad.headers, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', {
          inputs: [
            {
              name: 'Hooked bracket',
              categoryId: 'mechanical',
              attributeValues: [
                { attributeId: 'mass', value: mass[0] },
                { attributeId: 'finish', value: finish[0] },
              ],
            },
          ],
        })
      ).component.create[0];
      await ok(cad.headers, updateMutation, { inputs: [{ id: created.id, attributeValues: [{ attributeId: 'mass', value: mass[1] }] }] });
      const deadline = Date.now() + 90_000;
      const about = () => bodies.filter((b) => b.includes(created.id));
      while (about().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(
        about()
          .map((b) => JSON.parse(b).type)
          .sort(),
      ).toEqual(['component.created', 'component.updated']);
      expect(traces(bodies.join('\n'))).toEqual([]);
      const log = (await ok(erp.headers, 'query { webhooks { findAll { deliveries(first: 50) { body } } } }')).webhooks.findAll;
      expect(traces(JSON.stringify(log))).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('a write of a withheld attribute gets the same answer whatever the stored value', async () => {
    const stored = (await ok(admin, `query { component { findOne(id: "${partId}") { version mass: attributeValue(attributeId: "mass") } } }`)).component.findOne;
    expect(stored.mass).toBe(mass[1]);
    // The ERP (NO_ACCESS on mass) guesses right and wrong: the answers are the same refusal.
    const answers = await Promise.all(
      [mass[1], mass[0], 1].map(async (value) => {
        const result = await refusal(erp.headers, updateMutation, { inputs: [{ id: partId, attributeValues: [{ attributeId: 'mass', value }] }] });
        return { status: result.status, code: result.code, message: result.error?.message, extensions: result.error?.extensions, data: result.data };
      }),
    );
    expect(answers[0]).toMatchObject({ code: 'ATTRIBUTE_WRITE_DENIED' });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // reconcile reports it refused either way and applies the rest.
    const views = await Promise.all(
      [mass[1], 1].map(async (value) => (await ok(erp.headers, reconcileMutation, { input: { componentId: partId, attributeValues: [{ attributeId: 'mass', value }] } })).reconcile),
    );
    expect(views[0]).toEqual(views[1]);
    expect(views[0]).toMatchObject({ applied: [], refused: [{ attributeId: 'mass', code: 'ATTRIBUTE_WRITE_DENIED' }], component: { version: stored.version } });
    // item.update follows the same rule.
    const item = await refusal(erp.headers, 'mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id } } }', {
      inputs: [{ id: partId, attributeValues: [{ attributeId: 'mass', value: mass[1] }] }],
    });
    expect(item.code).toBe('ATTRIBUTE_WRITE_DENIED');
    expect((await ok(admin, `query { component { findOne(id: "${partId}") { version } } }`)).component.findOne.version).toBe(stored.version);
  });

  it('a write by an integration is never judged on a stored value withheld from it, nor is it echoed', async () => {
    // The category now caps mass below the stored value. The ERP holds library.settings.update, so it could
    // move that cap itself: were its writes refused for the stored mass, it could bisect the value.
    const categories = (await ok(admin, 'query { configs(filter: { types: [CATEGORIES] }) { document } }')).configs[0].document;
    const mechanical = categories.categories.find((c: { id: string }) => c.id === 'mechanical');
    mechanical.attributes.find((a: { id: string }) => a.id === 'mass').max = 10;
    await ok(admin, 'mutation($input: SetLibraryConfigInput!) { config { setLibraryConfig(input: $input) { version } } }', { input: { type: 'CATEGORIES', document: categories } });
    const write = { inputs: [{ id: partId, attributeValues: [{ attributeId: 'material', value: 'Al 7075' }] }] };
    // A person (who reads mass) is refused and told the value, as any write validates the whole set for them.
    const forAlice = await refusal(alice.headers, updateMutation, write);
    expect(forAlice.code).toBe('ATTRIBUTE_VALIDATION_FAILED');
    expect(traces(JSON.stringify(forAlice))).toEqual([String(mass[1])]);
    // The ERP's write leaves mass as it is and is not judged on it: it is written.
    const before = (await ok(admin, `query { component { findOne(id: "${partId}") { version } } }`)).component.findOne.version;
    const written = (await ok(erp.headers, updateMutation, write)).component.update[0];
    expect(written.version).toBe(before + 1);
    const after = (await ok(admin, `query { component { findOne(id: "${partId}") { attributeValues { attributeId value } } } }`)).component.findOne.attributeValues;
    expect(after).toEqual(
      expect.arrayContaining([
        { attributeId: 'mass', value: mass[1] },
        { attributeId: 'material', value: 'Al 7075' },
      ]),
    );
  });

  it('an integration may not change the category while an attribute of either category is withheld from it, whatever the values', async () => {
    const create = 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }';
    const categoryOf = async (id: string) => (await ok(admin, `query { component { findOne(id: "${id}") { category { id } version } } }`)).component.findOne;
    // One bracket holds values of mass and finish (withheld from the ERP), the other holds none: a category
    // without them (fastener) would refuse the first (unknown attributes) and take the second, telling the
    // ERP whether values it may not read are set. Both get the same refusal, before any value is judged.
    const empty = (await ok(admin, create, { inputs: [{ name: 'Bare bracket', categoryId: 'mechanical' }] })).component.create[0].id as string;
    for (const id of [partId, empty]) {
      const before = await categoryOf(id);
      const refused = await refusal(erp.headers, updateMutation, { inputs: [{ id, categoryId: 'fastener' }] });
      expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(refused.error!.extensions).toMatchObject({ reason: 'ATTRIBUTE_WITHHELD', field: 'categoryId', attributeIds: ['finish', 'mass'] });
      expect(traces(JSON.stringify(refused))).toEqual([]);
      expect(await categoryOf(id)).toEqual(before);
      // Naming a withheld attribute without a value sends nothing: the same refusal.
      const named = await refusal(erp.headers, updateMutation, { inputs: [{ id, categoryId: 'fastener', attributeValues: [{ attributeId: 'mass' }, { attributeId: 'finish' }] }] });
      expect(named.error!.extensions).toMatchObject({ reason: 'ATTRIBUTE_WITHHELD', attributeIds: ['finish', 'mass'] });
      expect(traces(JSON.stringify(named))).toEqual([]);
    }
    // Between categories of which nothing is withheld from it, the ERP changes the category as before.
    const connector = (await ok(admin, create, { inputs: [{ name: 'Header', categoryId: 'connector' }] })).component.create[0].id as string;
    await ok(erp.headers, updateMutation, { inputs: [{ id: connector, categoryId: 'fastener' }] });
    expect((await categoryOf(connector)).category.id).toBe('fastener');
    // A person changes the category under the usual rules: the bare bracket moves, the other is refused
    // because fastener has no mass or finish, and told which.
    await ok(alice.headers, updateMutation, { inputs: [{ id: empty, categoryId: 'fastener' }] });
    expect((await categoryOf(empty)).category.id).toBe('fastener');
    const forAlice = await refusal(alice.headers, updateMutation, { inputs: [{ id: partId, categoryId: 'fastener' }] });
    expect(forAlice.code).toBe('ATTRIBUTE_VALIDATION_FAILED');
    expect(forAlice.error!.extensions!.errors).toEqual(expect.arrayContaining([expect.objectContaining({ attributeId: 'mass' })]));
  });
});

describe('an export started by an integration leaves out the sourcing withheld from it', () => {
  // Distinctive enough that their absence from a whole file means no trace of them.
  const mpn = 'QX7-MPN-88231';
  const distributorPartNumber = 'DPN-ZR9-5512';
  const unitPrice = 4321.987;
  let admin: Record<string, string>;
  let componentId: string;

  async function integration(name: string, read: { attribute: string; read: string }) {
    const created = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id } } }', { input: { name } })).integration.create;
    const key = (await ok(admin, createKey, { input: { name: `${name} key`, integrationId: created.id, roleId: 'LIBRARY_ADMIN' } })).apiKey.create;
    await ok(admin, setAccess, { entries: [{ ...read, principal: created.id }] });
    return { ...admin, 'x-api-key': key.secret as string };
  }
  const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer()).toString('utf8');
  const exported = async (headers: Record<string, string>, format: 'JSON' | 'CSV') =>
    Promise.all(
      ((await ok(headers, exportMutation, { input: { format } })).transfer.exportLibrary.files as { name: string; downloadUrl: string }[]).map(async (f) => ({
        name: f.name,
        text: await download(f.downloadUrl),
      })),
    );
  const traces = (text: string) => [mpn, distributorPartNumber, String(unitPrice)].filter((value) => text.includes(value));
  const risksQuery = 'query { vendorSourcing { risks { componentId reason } } }';
  const rollupQuery = 'query($id: ID!) { component { costRollup(id: $id, quantity: 10) { total } } }';
  type Bundle = {
    components: {
      id: string;
      sourcing: { parts: { mpn: string; quotes: unknown[] }[]; primaryPartId: string | null; primaryQuoteId: string | null } | null;
      history: { changes: { field: string }[] }[];
    }[];
  };
  const sourcingFields = (bundle: Bundle) =>
    [
      ...new Set(
        bundle.components
          .find((c) => c.id === componentId)!
          .history.flatMap((h) => h.changes.map((c) => c.field))
          .filter((f) => f.startsWith('sourcing.')),
      ),
    ].sort();

  beforeAll(async () => {
    const tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    const vendor = async (kind: string, name: string) =>
      (await ok(admin, 'mutation($i: CreateVendorInput!) { vendorSourcing { createVendor(input: $i) { id } } }', { i: { kind, name } })).vendorSourcing.createVendor.id as string;
    const [manufacturerId, distributorId] = [await vendor('MANUFACTURER', 'Traced Mfr'), await vendor('DISTRIBUTOR', 'Traced Dist')];
    componentId = (await ok(admin, 'mutation { component { create(inputs: [{ name: "Sourced bracket", categoryId: "mechanical" }]) { id } } }')).component.create[0].id;
    const partId = (await ok(admin, 'mutation($i: CreatePartInput!) { vendorSourcing { createPart(input: $i) { id } } }', { i: { componentId, manufacturerId, mpn, approval: 'APPROVED' } }))
      .vendorSourcing.createPart.id;
    const quoteId = (
      await ok(admin, 'mutation($i: CreateQuoteInput!) { vendorSourcing { createQuote(input: $i) { id } } }', {
        i: { componentId, partId, distributorId, distributorPartNumber, currency: 'USD', unitPrice },
      })
    ).vendorSourcing.createQuote.id;
    await ok(admin, 'mutation($i: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $i) { componentId } } }', { i: { componentId, partId, quoteId } });
  }, 60_000);

  it('without sourcing.parts: no parts (so none of their quotes) or primary source, no sourcing.csv, no part history, no MPN anywhere; a person exports them all', async () => {
    const blind = await integration('Parts-blind ERP', { attribute: 'sourcing.parts', read: 'NO_ACCESS' });
    const [json] = await exported(blind, 'JSON');
    // The quotes' own history stays (sourcing.quotes is readable: as in Component.history); no MPN anywhere.
    expect(traces(json!.text)).toEqual([distributorPartNumber, String(unitPrice)]);
    const bundle = JSON.parse(json!.text) as Bundle;
    expect(bundle.components.find((c) => c.id === componentId)!.sourcing).toBeNull();
    expect(sourcingFields(bundle).length).toBeGreaterThan(0);
    expect(sourcingFields(bundle).every((f) => f.startsWith('sourcing.quote.'))).toBe(true);
    const csv = await exported(blind, 'CSV');
    expect(csv.map((f) => f.name.replace(/^.*-/, ''))).toEqual(['components.csv', 'bom.csv']);
    for (const file of csv) expect(traces(file.text), file.name).toEqual([]);

    // Its reads: no search on MPNs or manufacturers, whether the guess is right or not.
    const byMpn = (headers: Record<string, string>, guess: string) =>
      refusal(headers, 'query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount } } }', { input: { and: [{ mpn: { eq: guess } }] } });
    for (const guess of [mpn, 'NOT-AN-MPN']) {
      expect(await byMpn(blind, guess)).toMatchObject({ status: 403, code: 'FORBIDDEN', error: { extensions: { reason: 'SOURCING_WITHHELD', field: 'mpn' } } });
    }
    expect(await byMpn(blind, mpn)).toEqual({ ...(await byMpn(blind, 'NOT-AN-MPN')), error: expect.anything() });
    expect((await byMpn(admin, mpn)).data.component.filter.totalCount).toBe(1);
    // Nor what is made of the parts: the risks and a cost roll-up.
    expect(await refusal(blind, risksQuery)).toMatchObject({ code: 'FORBIDDEN', error: { extensions: { reason: 'SOURCING_WITHHELD', attribute: 'sourcing.parts' } } });
    expect(await refusal(blind, rollupQuery, { id: componentId })).toMatchObject({ code: 'FORBIDDEN', error: { extensions: { reason: 'SOURCING_WITHHELD', attribute: 'sourcing.parts' } } });
    expect((await ok(admin, rollupQuery, { id: componentId })).component.costRollup.total).toBeGreaterThan(0);

    const [full] = await exported(admin, 'JSON');
    expect(traces(full!.text)).toEqual([mpn, distributorPartNumber, String(unitPrice)]);
    expect(sourcingFields(JSON.parse(full!.text) as Bundle)).toEqual(expect.arrayContaining(['sourcing.primary']));
    expect(sourcingFields(JSON.parse(full!.text) as Bundle).some((f) => f.startsWith('sourcing.quote.'))).toBe(true);
  });

  it('without sourcing.quotes: the parts without quotes or primary quote, no quote history', async () => {
    const blind = await integration('Quotes-blind ERP', { attribute: 'sourcing.quotes', read: 'RECEIVE_ONLY' });
    const [json] = await exported(blind, 'JSON');
    expect(traces(json!.text)).toEqual([mpn]);
    const bundle = JSON.parse(json!.text) as Bundle;
    const sourcing = bundle.components.find((c) => c.id === componentId)!.sourcing!;
    expect(sourcing.parts).toEqual([expect.objectContaining({ mpn, quotes: [] })]);
    expect(sourcing.primaryPartId).not.toBeNull();
    expect(sourcing.primaryQuoteId).toBeNull();
    expect(sourcingFields(bundle).some((f) => f.startsWith('sourcing.quote.'))).toBe(false);
    expect(sourcingFields(bundle).some((f) => f.startsWith('sourcing.part.'))).toBe(true);
    // A cost roll-up is made of the quotes' prices: refused, on the screen and as a file; the risks (parts only) answer.
    expect(await refusal(blind, rollupQuery, { id: componentId })).toMatchObject({ code: 'FORBIDDEN', error: { extensions: { reason: 'SOURCING_WITHHELD', attribute: 'sourcing.quotes' } } });
    const file = await refusal(blind, 'mutation($input: ExportCostRollupInput!) { transfer { exportCostRollup(input: $input) { id } } }', { input: { componentId, quantity: 10 } });
    expect(file).toMatchObject({ code: 'FORBIDDEN', error: { extensions: { reason: 'SOURCING_WITHHELD', attribute: 'sourcing.quotes' } } });
    expect(Array.isArray((await ok(blind, risksQuery)).vendorSourcing.risks)).toBe(true);
    // The parts are readable, so is a search on them.
    expect(
      (await ok(blind, 'query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount } } }', { input: { and: [{ mpn: { eq: mpn } }] } })).component.filter.totalCount,
    ).toBe(1);
    const csv = await exported(blind, 'CSV');
    expect(csv.map((f) => f.name.replace(/^.*-/, ''))).toEqual(['components.csv', 'bom.csv', 'sourcing.csv']);
    for (const file of csv) expect(traces(file.text), file.name).toEqual(file.name.endsWith('sourcing.csv') ? [mpn] : []);
  });
});
