import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { ok, refusal } from './accessHelpers.js';
import { createComponent, libraryPartition, partitionItems } from './componentHelpers.js';

/**
 * Sourcing under the principal and attribute access model: `sourcing.parts` (the AML and the primary
 * source) and `sourcing.quotes` are designated like attributes. A CAD connector owns the parts, an ERP the
 * quotes; people (the native principal) are refused where a linked integration manages them.
 */

const quoteFields = 'id partId unitPrice currency';
const partFields = `id mpn approval quotes { ${quoteFields} }`;
const sourcingFields = `componentId parts { ${partFields} } primarySource { part { id } quote { id } }`;
const createVendor = 'mutation($input: CreateVendorInput!) { vendorSourcing { createVendor(input: $input) { id } } }';
const createPartM = `mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { ${partFields} } } }`;
const updatePartM = `mutation($input: UpdatePartInput!) { vendorSourcing { updatePart(input: $input) { ${partFields} } } }`;
const createQuoteM = `mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { ${quoteFields} } } }`;
const updateQuoteM = `mutation($input: UpdateQuoteInput!) { vendorSourcing { updateQuote(input: $input) { ${quoteFields} } } }`;
const primaryM = `mutation($input: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $input) { ${sourcingFields} } } }`;
const sourcingQ = `query($id: ID!) { component { findOne(id: $id) { id vendorSourcing { ${sourcingFields} } } } vendorSourcing { componentSourcing(componentId: $id) { ${sourcingFields} } } }`;
const byMpnQ = `query($mpn: String!) { vendorSourcing { findPartsByMpn(mpn: $mpn) { ${partFields} } } }`;
const setAccess = 'mutation($entries: [AttributeAccessEntryInput!]!) { setAttributeAccess(entries: $entries) { version entries { attribute principal write read } } }';
const link = 'mutation($componentId: ID!, $principalId: ID) { linkComponent(componentId: $componentId, principalId: $principalId) { id } }';
const history = 'query($id: ID!) { component { findOne(id: $id) { history { actingIntegrationId changes { field } } } } }';

describe('sourcing access designations', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let cad: { id: string; headers: Record<string, string> };
  let erp: { id: string; headers: Record<string, string> };
  const ids: Record<string, string> = {};

  async function integration(name: string) {
    const created = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id } } }', { input: { name } })).integration.create;
    const key = (await ok(admin, 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret } } }', { input: { name: `${name} key`, integrationId: created.id } })).apiKey.create;
    return { id: created.id as string, headers: { ...admin, 'x-api-key': key.secret as string } };
  }
  const items = () => partitionItems(libraryPartition(tenant), ['SRC#', 'MPN#', 'C#', 'H#']);
  const sourcing = async (headers: Record<string, string>, id: string) => {
    const data = await ok(headers, sourcingQ, { id });
    // The component field and the namespace query give the same view.
    expect(data.component.findOne.vendorSourcing).toEqual(data.vendorSourcing.componentSourcing);
    return data.vendorSourcing.componentSourcing;
  };

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    cad = await integration('Altium CAD');
    erp = await integration('SAP ERP');
    ids.ti = (await ok(admin, createVendor, { input: { kind: 'MANUFACTURER', name: 'Texas Instruments' } })).vendorSourcing.createVendor.id;
    ids.digikey = (await ok(admin, createVendor, { input: { kind: 'DISTRIBUTOR', name: 'Digi-Key' } })).vendorSourcing.createVendor.id;
    const policy = (
      await ok(admin, setAccess, {
        entries: [
          { attribute: 'sourcing.parts', principal: cad.id, write: 'EXCLUSIVE_WRITE' },
          { attribute: 'sourcing.parts', principal: erp.id, write: 'NO_WRITE' },
          { attribute: 'sourcing.quotes', principal: erp.id, write: 'EXCLUSIVE_WRITE' },
          { attribute: 'sourcing.quotes', principal: cad.id, write: 'NO_WRITE' },
        ],
      })
    ).setAttributeAccess;
    expect(policy.entries).toHaveLength(4);
  }, 60_000);

  it('takes the sourcing pseudo-attributes by the attribute rules; other unknown ids stay ATTRIBUTE_NOT_FOUND', async () => {
    expect((await refusal(admin, setAccess, { entries: [{ attribute: 'sourcing.prices', principal: erp.id, write: 'WRITE' }] })).code).toBe('ATTRIBUTE_NOT_FOUND');
    expect((await refusal(admin, setAccess, { entries: [{ attribute: 'sourcing.quotes', principal: cad.id, write: 'WRITE' }] })).code).toBe('ATTRIBUTE_MANAGED_EXCLUSIVELY');
    expect((await refusal(admin, setAccess, { entries: [{ attribute: 'sourcing.parts', principal: 'native', write: 'EXCLUSIVE_WRITE' }] })).code).toBe('EXCLUSIVE_WRITE_CONFLICT');
  });

  it('lets each linked manager write its part of the sourcing and refuses everyone else, writing nothing', async () => {
    const c = await createComponent(tenant, { name: 'Op amp', categoryId: 'mechanical' });
    await ok(admin, link, { componentId: c.id, principalId: cad.id });
    await ok(admin, link, { componentId: c.id, principalId: erp.id });
    const part = (await ok(cad.headers, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'OPA2333', approval: 'APPROVED' } })).vendorSourcing.createPart;
    const quote = (await ok(erp.headers, createQuoteM, { input: { componentId: c.id, partId: part.id, distributorId: ids.digikey, currency: 'USD', unitPrice: 1.5 } })).vendorSourcing.createQuote;
    expect(quote).toMatchObject({ partId: part.id, unitPrice: 1.5 });
    await ok(cad.headers, primaryM, { input: { componentId: c.id, partId: part.id } });

    const before = await items();
    const cases: [Record<string, string>, string, Record<string, unknown>][] = [
      // The CAD connector does not own quotes (NO_WRITE).
      [cad.headers, createQuoteM, { input: { componentId: c.id, partId: part.id, distributorId: ids.digikey, currency: 'USD', unitPrice: 2 } }],
      [cad.headers, updateQuoteM, { input: { componentId: c.id, id: quote.id, unitPrice: 0.01 } }],
      // The ERP does not own parts (NO_WRITE).
      [erp.headers, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'OPA2334' } }],
      [erp.headers, updatePartM, { input: { componentId: c.id, id: part.id, rank: 2 } }],
      // A person is refused where a linked integration manages exclusively: parts, the primary source, quotes.
      [admin, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'OPA2335' } }],
      [admin, primaryM, { input: { componentId: c.id, partId: null } }],
      [admin, updateQuoteM, { input: { componentId: c.id, id: quote.id, stock: 5 } }],
    ];
    for (const [headers, mutation, variables] of cases) {
      const refused = await refusal(headers, mutation, variables);
      expect(refused.code, JSON.stringify(variables)).toBe('ATTRIBUTE_WRITE_DENIED');
    }
    expect(await items()).toEqual(before);

    const written = (await ok(admin, history, { id: c.id })).component.findOne.history as { actingIntegrationId: string | null; changes: { field: string }[] }[];
    const byField = (prefix: string) => written.filter((h) => h.changes.some((ch) => ch.field.startsWith(prefix))).map((h) => h.actingIntegrationId);
    expect(byField('sourcing.part.')).toEqual([cad.id]);
    expect(byField('sourcing.quote.')).toEqual([erp.id]);
  });

  it('freezes managed sourcing on a component no manager is linked to', async () => {
    const c = await createComponent(tenant, { name: 'Unlinked', categoryId: 'mechanical' });
    const before = await items();
    expect((await refusal(admin, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'LM358' } })).code).toBe('ATTRIBUTE_FROZEN');
    expect((await refusal(cad.headers, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'LM358' } })).code).toBe('ATTRIBUTE_FROZEN');
    expect(await items()).toEqual(before);
    await ok(admin, link, { componentId: c.id, principalId: cad.id });
    await ok(cad.headers, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'LM358' } });
  });

  it('withholds parts or quotes from an integration whose read designation withholds them', async () => {
    const c = await createComponent(tenant, { name: 'Regulator', categoryId: 'mechanical' });
    await ok(admin, link, { componentId: c.id, principalId: cad.id });
    await ok(admin, link, { componentId: c.id, principalId: erp.id });
    const part = (await ok(cad.headers, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'TPS7A02', approval: 'APPROVED' } })).vendorSourcing.createPart;
    const quote = (await ok(erp.headers, createQuoteM, { input: { componentId: c.id, partId: part.id, distributorId: ids.digikey, currency: 'USD', unitPrice: 0.3 } })).vendorSourcing.createQuote;
    await ok(cad.headers, primaryM, { input: { componentId: c.id, partId: part.id, quoteId: quote.id } });
    const full = await sourcing(admin, c.id);
    expect(full.parts[0].quotes.map((q: { id: string }) => q.id)).toEqual([quote.id]);
    expect(full.primarySource).toEqual({ part: { id: part.id }, quote: { id: quote.id } });
    // Both read everything until withheld.
    expect(await sourcing(cad.headers, c.id)).toEqual(full);

    await ok(admin, setAccess, {
      entries: [
        { attribute: 'sourcing.quotes', principal: cad.id, read: 'RECEIVE_ONLY' },
        { attribute: 'sourcing.parts', principal: erp.id, read: 'NO_ACCESS' },
      ],
    });
    const cadView = await sourcing(cad.headers, c.id);
    expect(cadView.parts).toEqual([{ ...full.parts[0], quotes: [] }]);
    expect(cadView.primarySource).toEqual({ part: { id: part.id }, quote: null });
    expect((await ok(cad.headers, byMpnQ, { mpn: 'tps7a02' })).vendorSourcing.findPartsByMpn).toEqual([{ ...full.parts[0], quotes: [] }]);
    expect(await sourcing(erp.headers, c.id)).toEqual({ componentId: c.id, parts: [], primarySource: null });
    expect((await ok(erp.headers, byMpnQ, { mpn: 'TPS7A02' })).vendorSourcing.findPartsByMpn).toEqual([]);
    // People always read all of it.
    expect(await sourcing(admin, c.id)).toEqual(full);
    expect((await ok(admin, byMpnQ, { mpn: 'TPS7A02' })).vendorSourcing.findPartsByMpn).toEqual([full.parts[0]]);
  });

  it('withholds the same from what its own writes answer (mutations answered the whole sourcing)', async () => {
    const c = await createComponent(tenant, { name: 'Buck converter', categoryId: 'mechanical' });
    await ok(admin, link, { componentId: c.id, principalId: cad.id });
    await ok(admin, link, { componentId: c.id, principalId: erp.id });
    const part = (await ok(cad.headers, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'TPS62840', approval: 'APPROVED' } })).vendorSourcing.createPart;
    const quote = (await ok(erp.headers, createQuoteM, { input: { componentId: c.id, partId: part.id, distributorId: ids.digikey, currency: 'USD', unitPrice: 0.9 } })).vendorSourcing.createQuote;
    const spare = (await ok(erp.headers, createQuoteM, { input: { componentId: c.id, partId: part.id, distributorId: ids.digikey, currency: 'USD', unitPrice: 1.1 } })).vendorSourcing.createQuote;
    // The CAD connector is not sent quotes, the ERP not sent parts.
    await ok(admin, setAccess, {
      entries: [
        { attribute: 'sourcing.quotes', principal: cad.id, read: 'NO_ACCESS' },
        { attribute: 'sourcing.parts', principal: erp.id, read: 'NO_ACCESS' },
      ],
    });

    // The CAD connector's part writes: the part without its quotes, the sourcing as componentSourcing gives it.
    const updated = (await ok(cad.headers, updatePartM, { input: { componentId: c.id, id: part.id, rank: 1 } })).vendorSourcing.updatePart;
    expect(updated.quotes).toEqual([]);
    const primary = (await ok(cad.headers, primaryM, { input: { componentId: c.id, partId: part.id } })).vendorSourcing.setPrimarySource;
    expect(primary).toEqual(await sourcing(cad.headers, c.id));
    expect(primary.parts[0].quotes).toEqual([]);

    // The ERP's quote writes: no parts at all.
    const afterDelete = (await ok(erp.headers, `mutation($c: ID!, $id: ID!) { vendorSourcing { deleteQuote(componentId: $c, id: $id) { ${sourcingFields} } } }`, { c: c.id, id: spare.id }))
      .vendorSourcing.deleteQuote;
    expect(afterDelete).toEqual({ componentId: c.id, parts: [], primarySource: null });
    // People are sent all of it.
    expect((await sourcing(admin, c.id)).parts[0].quotes.map((q: { id: string }) => q.id)).toEqual([quote.id]);
  });

  it("leaves withheld sourcing out of the component's history changes (they carried the MPNs and the prices)", async () => {
    const c = await createComponent(tenant, { name: 'LDO', categoryId: 'mechanical' });
    await ok(admin, link, { componentId: c.id, principalId: cad.id });
    await ok(admin, link, { componentId: c.id, principalId: erp.id });
    const part = (await ok(cad.headers, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: 'TLV758', approval: 'APPROVED' } })).vendorSourcing.createPart;
    await ok(erp.headers, createQuoteM, { input: { componentId: c.id, partId: part.id, distributorId: ids.digikey, currency: 'USD', unitPrice: 0.42 } });
    await ok(cad.headers, primaryM, { input: { componentId: c.id, partId: part.id } });
    const fieldsFor = async (headers: Record<string, string>) =>
      ((await ok(headers, history, { id: c.id })).component.findOne.history as { changes: { field: string }[] }[]).flatMap((h) => h.changes.map((ch) => ch.field.replace(/\.[0-9a-f-]{36}$/, '')));
    const sourcingFieldsFor = async (headers: Record<string, string>) => (await fieldsFor(headers)).filter((f) => f.startsWith('sourcing.'));
    expect(await sourcingFieldsFor(admin)).toEqual(['sourcing.primary', 'sourcing.quote', 'sourcing.part']);
    // Read by everyone until withheld.
    await ok(admin, setAccess, {
      entries: [
        { attribute: 'sourcing.quotes', principal: cad.id, read: 'READ' },
        { attribute: 'sourcing.parts', principal: erp.id, read: 'READ' },
      ],
    });
    expect(await sourcingFieldsFor(cad.headers)).toEqual(['sourcing.primary', 'sourcing.quote', 'sourcing.part']);
    await ok(admin, setAccess, {
      entries: [
        { attribute: 'sourcing.quotes', principal: cad.id, read: 'NO_ACCESS' },
        { attribute: 'sourcing.parts', principal: erp.id, read: 'RECEIVE_ONLY' },
      ],
    });
    expect(await sourcingFieldsFor(cad.headers)).toEqual(['sourcing.primary', 'sourcing.part']);
    expect(await sourcingFieldsFor(erp.headers)).toEqual(['sourcing.quote']);
  });
});
