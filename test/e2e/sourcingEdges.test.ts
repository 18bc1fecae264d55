import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { refusal } from './accessHelpers.js';
import { libraryPartition, partitionItems } from './componentHelpers.js';
import { createItems } from './itemHelpers.js';

/**
 * Edges of sourcing a careless or hostile client reaches (found by probing from outside): each was an
 * INTERNAL_SERVER_ERROR or a 200 that dropped part of the request, and is a typed refusal now.
 */

const ratesM = `mutation($input: SetExchangeRatesInput!) { vendorSourcing { setExchangeRates(input: $input) { baseCurrency version rates { currency rate } } } }`;
const ratesQ = `query { vendorSourcing { exchangeRates { baseCurrency version rates { currency rate } } } }`;
const rollupQ = `query($id: ID!, $quantity: Int!) { component { costRollup(id: $id, quantity: $quantity) { total lines { orderQuantity extendedQuantity } missing { reason } } } }`;
const sourcingQ = `query($id: ID!) { vendorSourcing { componentSourcing(componentId: $id) { componentId parts { id } } } }`;

describe('sourcing edges', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let distributor: string;
  let manufacturer: string;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    const vendor = async (kind: string, name: string) =>
      (await ok(admin, `mutation($i: CreateVendorInput!) { vendorSourcing { createVendor(input: $i) { id } } }`, { i: { kind, name } })).vendorSourcing.createVendor.id as string;
    manufacturer = await vendor('MANUFACTURER', 'Edge Mfr');
    distributor = await vendor('DISTRIBUTOR', 'Edge Dist');
  });

  /** A purchased part with an approved part and a primary quote. */
  async function sourcedPart(name: string, quote: Record<string, unknown>) {
    const [leaf] = await createItems(tenant, [{ name, categoryId: 'mechanical' }]);
    const part = (
      await ok(admin, `mutation($i: CreatePartInput!) { vendorSourcing { createPart(input: $i) { id } } }`, {
        i: { componentId: leaf!.id, manufacturerId: manufacturer, mpn: name, approval: 'APPROVED' },
      })
    ).vendorSourcing.createPart.id;
    const q = (
      await ok(admin, `mutation($i: CreateQuoteInput!) { vendorSourcing { createQuote(input: $i) { id } } }`, {
        i: { componentId: leaf!.id, partId: part, distributorId: distributor, currency: 'USD', ...quote },
      })
    ).vendorSourcing.createQuote.id;
    await ok(admin, `mutation($i: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $i) { componentId } } }`, { i: { componentId: leaf!.id, partId: part, quoteId: q } });
    return leaf!;
  }

  it('refuses a cost roll-up whose line would need or order more units than an Int holds (was INTERNAL_SERVER_ERROR)', async () => {
    const leaf = await sourcedPart('EDGE-NEED', { unitPrice: 0.01 });
    const [top] = await createItems(tenant, [{ name: 'Edge top', categoryId: 'pcba', children: [{ childId: leaf.id, quantity: 3 }] }]);
    // 1e9 boards × 3 = 3e9 units: past 2,147,483,647.
    const need = await refusal(admin, rollupQ, { id: top!.id, quantity: 1_000_000_000 });
    expect(need).toMatchObject({ code: 'BAD_USER_INPUT', error: { extensions: { field: 'quantity', componentId: leaf.id, limit: 2_147_483_647 } } });
    // Within the bound it answers.
    const fine = (await ok(admin, rollupQ, { id: top!.id, quantity: 700_000_000 })).component.costRollup;
    expect(fine.lines).toEqual([{ orderQuantity: 2_100_000_000, extendedQuantity: 2_100_000_000 }]);

    // The need fits, the order multiple takes the order past it: 2.1e9 rounded up to a multiple of 1e9 is 3e9.
    const multiple = await sourcedPart('EDGE-MULT', { unitPrice: 0.01, orderMultiple: 1_000_000_000 });
    const [board] = await createItems(tenant, [{ name: 'Edge multiple', categoryId: 'pcba', children: [{ childId: multiple.id, quantity: 2.1 }] }]);
    const order = await refusal(admin, rollupQ, { id: board!.id, quantity: 1_000_000_000 });
    expect(order).toMatchObject({ code: 'BAD_USER_INPUT', error: { extensions: { field: 'quantity', componentId: multiple.id } } });
  });

  it('refuses exchange rates it cannot keep as given, and keeps the rates it had (was INTERNAL_SERVER_ERROR or a silent drop)', async () => {
    const before = (await ok(admin, ratesM, { input: { baseCurrency: 'USD', rates: [{ currency: 'EUR', rate: 1.1 }] } })).vendorSourcing.setExchangeRates;
    const cases: [Record<string, unknown>[], string][] = [
      // Below DynamoDB's smallest number: the write failed with INTERNAL_SERVER_ERROR.
      [[{ currency: 'JPY', rate: 1e-300 }], 'rates.0.rate'],
      // Twice the same currency: the last one silently won.
      [
        [
          { currency: 'EUR', rate: 1.1 },
          { currency: 'eur', rate: 1.2 },
        ],
        'rates.1.currency',
      ],
      // The base currency's rate is 1: a rate for it was silently dropped.
      [[{ currency: 'USD', rate: 2 }], 'rates.0.currency'],
    ];
    for (const [rates, field] of cases) {
      const refused = await refusal(admin, ratesM, { input: { baseCurrency: 'USD', rates } });
      expect({ code: refused.code, field: refused.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field });
    }
    expect((await ok(admin, ratesQ)).vendorSourcing.exchangeRates).toEqual(before);
  });

  it('answers NOT_FOUND for the sourcing of a component the library does not have (was an empty sourcing)', async () => {
    const leaf = await sourcedPart('EDGE-GONE', { unitPrice: 1 });
    expect((await ok(admin, sourcingQ, { id: leaf.id })).vendorSourcing.componentSourcing.parts).toHaveLength(1);
    await ok(admin, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [leaf.id] });
    for (const id of [leaf.id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      expect((await refusal(admin, sourcingQ, { id })).code).toBe('NOT_FOUND');
    }
  });

  it('refuses an MPN whose search form is too long to index with BAD_USER_INPUT, writing nothing (was INTERNAL_SERVER_ERROR)', async () => {
    const [leaf] = await createItems(tenant, [{ name: 'Edge MPN', categoryId: 'mechanical' }]);
    const createPartM = `mutation($i: CreatePartInput!) { vendorSourcing { createPart(input: $i) { id mpn } } }`;
    const updatePartM = `mutation($i: UpdatePartInput!) { vendorSourcing { updatePart(input: $i) { id mpn } } }`;
    // 255 characters of the BMP, 3 bytes each: the longest MPN a client can send fits the index.
    const widest = '\u4e00'.repeat(255);
    const kept = (await ok(admin, createPartM, { i: { componentId: leaf!.id, manufacturerId: manufacturer, mpn: widest } })).vendorSourcing.createPart;
    expect(kept.mpn).toBe(widest);
    expect((await ok(admin, `query($m: String!) { vendorSourcing { findPartsByMpn(mpn: $m) { id } } }`, { m: widest })).vendorSourcing.findPartsByMpn).toEqual([{ id: kept.id }]);
    // ΐ upper-cases to three characters (6 bytes): 255 of them are 255 characters but 1,530 bytes of index key.
    const growing = '\u0390'.repeat(255);
    const before = await partitionItems(libraryPartition(tenant), ['SRC#', 'MPN#', 'C#', 'H#']);
    const created = await refusal(admin, createPartM, { i: { componentId: leaf!.id, manufacturerId: manufacturer, mpn: growing } });
    const updated = await refusal(admin, updatePartM, { i: { componentId: leaf!.id, id: kept.id, mpn: growing } });
    for (const refused of [created, updated]) expect({ code: refused.code, field: refused.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'mpn' });
    expect(await partitionItems(libraryPartition(tenant), ['SRC#', 'MPN#', 'C#', 'H#'])).toEqual(before);
  });

  it('compares vendor names in Unicode NFKC: composed and decomposed accents, full-width letters are one name (was a second vendor)', async () => {
    const createVendorM = `mutation($i: CreateVendorInput!) { vendorSourcing { createVendor(input: $i) { id name } } }`;
    const resolveQ = `query($n: String!) { vendorSourcing { resolveVendor(kind: MANUFACTURER, name: $n) { id } } }`;
    const composed = 'W\u00fcrth Elektronik';
    const decomposed = 'Wu\u0308rth Elektronik';
    const wurth = (await ok(admin, createVendorM, { i: { kind: 'MANUFACTURER', name: composed, aliases: ['\uff34\uff24\uff2b'] } })).vendorSourcing.createVendor;
    // The same name as a macOS or an ERP export may write it (decomposed), or in ASCII for the full-width alias.
    const again = await refusal(admin, createVendorM, { i: { kind: 'MANUFACTURER', name: decomposed } });
    const alias = await refusal(admin, createVendorM, { i: { kind: 'MANUFACTURER', name: 'tdk' } });
    for (const refused of [again, alias]) expect(refused.code).toBe('ALREADY_EXISTS');
    for (const name of [decomposed, 'W\uff35\u0308RTH  elektronik', 'TDK']) expect((await ok(admin, resolveQ, { n: name })).vendorSourcing.resolveVendor).toEqual({ id: wurth.id });
    const [leaf] = await createItems(tenant, [{ name: 'Edge inductor', categoryId: 'mechanical' }]);
    const part = (
      await ok(admin, `mutation($i: CreatePartInput!) { vendorSourcing { createPart(input: $i) { manufacturer { id } } } }`, {
        i: { componentId: leaf!.id, manufacturerName: decomposed, mpn: '744043' },
      })
    ).vendorSourcing.createPart;
    expect(part.manufacturer).toEqual({ id: wurth.id });
    const names = (await ok(admin, `query { vendorSourcing { vendors(kind: MANUFACTURER) { name } } }`)).vendorSourcing.vendors.map((v: { name: string }) => v.name);
    expect(names.filter((n: string) => n.normalize('NFKC').toLowerCase().includes('rth'))).toEqual([composed]);

    // A name whose compared form is too long to claim (a ligature NFKC spells out in 18 letters) is refused, not a server fault.
    const ligatures = await refusal(admin, createVendorM, { i: { kind: 'MANUFACTURER', name: '\ufdfa'.repeat(255) } });
    expect({ code: ligatures.code, field: ligatures.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
    expect((await ok(admin, resolveQ, { n: '\ufdfa'.repeat(255) })).vendorSourcing.resolveVendor).toBeNull();
    // resolveVendor's own argument is named when it is empty (it named manufacturerId, an argument it does not have).
    const empty = await refusal(admin, resolveQ, { n: ' ' });
    expect({ code: empty.code, field: empty.error?.extensions?.field }).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
  });

  it('refuses an empty part or quote id in setPrimarySource instead of clearing the primary source or ignoring the quote', async () => {
    const leaf = await sourcedPart('EDGE-PRIMARY', { unitPrice: 1 });
    const primaryM = `mutation($i: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $i) { primarySource { part { id } quote { id } } } } }`;
    const primaryQ = `query($id: ID!) { vendorSourcing { componentSourcing(componentId: $id) { primarySource { part { id } quote { id } } } } }`;
    const before = (await ok(admin, primaryQ, { id: leaf.id })).vendorSourcing.componentSourcing.primarySource;
    expect(before.quote).not.toBeNull();
    const items = await partitionItems(libraryPartition(tenant), ['SRC#', 'C#', 'H#']);
    const noPart = await refusal(admin, primaryM, { i: { componentId: leaf.id, partId: '' } });
    const noQuote = await refusal(admin, primaryM, { i: { componentId: leaf.id, partId: before.part.id, quoteId: '' } });
    expect([noPart, noQuote].map((r) => [r.code, r.error?.extensions?.field])).toEqual([
      ['PART_NOT_FOUND', 'partId'],
      ['QUOTE_NOT_FOUND', 'quoteId'],
    ]);
    expect((await ok(admin, primaryQ, { id: leaf.id })).vendorSourcing.componentSourcing.primarySource).toEqual(before);
    expect(await partitionItems(libraryPartition(tenant), ['SRC#', 'C#', 'H#'])).toEqual(items);
  });
});
