import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { ok, refusal } from './accessHelpers.js';
import { createComponent, libraryPartition, partitionItems } from './componentHelpers.js';

/**
 * Sourcing writes by an integration from which sourcing is withheld: no refusal or answer may carry the
 * withheld parts or quotes, nor tell a right guess from a wrong one (schema/README.md, Sourcing, "Access
 * designations"). An integration that may not write is refused before anything stored is looked at; one that
 * may write but not read (RECEIVE_ONLY) is answered only what it sent.
 */

const partFields = 'id componentId mpn description datasheetUrl lifecycle approval rank isLegacyImport isPrimary manufacturer { id } quotes { id }';
const quoteFields = 'id componentId partId unitPrice currency priceBreaks { minQuantity unitPrice } distributorPartNumber moq stock isPrimary distributor { id }';
const createVendor = 'mutation($input: CreateVendorInput!) { vendorSourcing { createVendor(input: $input) { id } } }';
const createPartM = `mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { ${partFields} } } }`;
const updatePartM = `mutation($input: UpdatePartInput!) { vendorSourcing { updatePart(input: $input) { ${partFields} } } }`;
const createQuoteM = `mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { ${quoteFields} } } }`;
const updateQuoteM = `mutation($input: UpdateQuoteInput!) { vendorSourcing { updateQuote(input: $input) { ${quoteFields} } } }`;
const deleteQuoteM = 'mutation($c: ID!, $id: ID!) { vendorSourcing { deleteQuote(componentId: $c, id: $id) { componentId } } }';
const primaryM = 'mutation($input: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $input) { componentId } } }';
const setAccess = 'mutation($entries: [AttributeAccessEntryInput!]!) { setAttributeAccess(entries: $entries) { version } }';
const history = 'query($id: ID!) { component { findOne(id: $id) { history { changes { field from to } } } } }';
const exportMutation = 'mutation($input: ExportLibraryInput) { transfer { exportLibrary(input: $input) { files { name downloadUrl } } } }';

describe('sourcing writes by an integration from which sourcing is withheld', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  const ids: Record<string, string> = {};
  // Stored values distinctive enough that their absence from a whole answer means no trace of them.
  const stored = { mpn: 'ZQ-STORED-7731', description: 'SECRET-DESCRIPTION-4410', dpn: 'DPN-SECRET-9902', unitPrice: 8765.4321 };

  async function integration(name: string, entries: { attribute: string; write?: string; read?: string }[]) {
    const created = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id } } }', { input: { name } })).integration.create;
    const key = (
      await ok(admin, 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret } } }', {
        input: { name: `${name} key`, integrationId: created.id, roleId: 'LIBRARY_ADMIN' },
      })
    ).apiKey.create;
    await ok(admin, setAccess, { entries: entries.map((e) => ({ ...e, principal: created.id })) });
    return { id: created.id as string, headers: { ...admin, 'x-api-key': key.secret as string } };
  }
  const items = () => partitionItems(libraryPartition(tenant), ['SRC#', 'MPN#', 'C#', 'H#']);

  /** A component with a primary APPROVED part (and its primary quote) and a PROTOTYPE_ONLY part, written by a person. */
  async function sourced(name: string) {
    const c = await createComponent(tenant, { name, categoryId: 'mechanical' });
    const part = (await ok(admin, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: stored.mpn, approval: 'APPROVED', description: stored.description } })).vendorSourcing
      .createPart;
    const proto = (await ok(admin, createPartM, { input: { componentId: c.id, manufacturerId: ids.ti, mpn: `${stored.mpn}-P`, approval: 'PROTOTYPE_ONLY' } })).vendorSourcing.createPart;
    const quote = (
      await ok(admin, createQuoteM, {
        input: { componentId: c.id, partId: part.id, distributorId: ids.digikey, currency: 'USD', unitPrice: stored.unitPrice, distributorPartNumber: stored.dpn, moq: 5 },
      })
    ).vendorSourcing.createQuote;
    await ok(admin, primaryM, { input: { componentId: c.id, partId: part.id, quoteId: quote.id } });
    return { componentId: c.id, partId: part.id as string, protoId: proto.id as string, quoteId: quote.id as string };
  }
  const traces = (value: unknown, s: Awaited<ReturnType<typeof sourced>>) =>
    [stored.mpn, stored.description, stored.dpn, String(stored.unitPrice), 'PROTOTYPE_ONLY', s.partId, s.protoId].filter((v) => JSON.stringify(value).includes(v));

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    ids.ti = (await ok(admin, createVendor, { input: { kind: 'MANUFACTURER', name: 'Texas Instruments' } })).vendorSourcing.createVendor.id;
    ids.adi = (await ok(admin, createVendor, { input: { kind: 'MANUFACTURER', name: 'Analog Devices' } })).vendorSourcing.createVendor.id;
    ids.digikey = (await ok(admin, createVendor, { input: { kind: 'DISTRIBUTOR', name: 'Digi-Key' } })).vendorSourcing.createVendor.id;
  }, 60_000);

  it('refuses an integration that may not write before looking at the stored sourcing: a right guess and a wrong one get the same refusal', async () => {
    const s = await sourced('Probed op amp');
    const probe = await integration('Prober', [
      { attribute: 'sourcing.parts', write: 'NO_WRITE', read: 'NO_ACCESS' },
      { attribute: 'sourcing.quotes', write: 'NO_WRITE', read: 'NO_ACCESS' },
    ]);
    const before = await items();
    const same = async (right: [string, Record<string, unknown>], wrong: [string, Record<string, unknown>]) => {
      const [a, b] = [await refusal(probe.headers, ...right), await refusal(probe.headers, ...wrong)];
      expect(a.code, JSON.stringify(right[1])).toBe('ATTRIBUTE_WRITE_DENIED');
      expect(a).toEqual(b);
      expect(traces(a, s)).toEqual([]);
    };
    // The MPN guess (DUPLICATE_MPN with the part's id when right).
    await same(
      [createPartM, { input: { componentId: s.componentId, manufacturerName: 'Texas Instruments', mpn: stored.mpn } }],
      [createPartM, { input: { componentId: s.componentId, manufacturerName: 'Texas Instruments', mpn: 'GUESS-0' } }],
    );
    // The approval guess (PRIMARY_NOT_APPROVED naming the stored approval).
    await same([primaryM, { input: { componentId: s.componentId, partId: s.protoId } }], [primaryM, { input: { componentId: s.componentId, partId: s.partId } }]);
    // The primary part guess (PRIMARY_NOT_APPROVED when the part is primary).
    await same(
      [updatePartM, { input: { componentId: s.componentId, id: s.partId, approval: 'NOT_APPROVED' } }],
      [updatePartM, { input: { componentId: s.componentId, id: s.protoId, approval: 'NOT_APPROVED' } }],
    );
    // The id guesses (PART_NOT_FOUND, QUOTE_NOT_FOUND).
    const unknown = '00000000-0000-4000-8000-000000000000';
    await same(
      [createQuoteM, { input: { componentId: s.componentId, partId: s.partId, distributorId: ids.digikey, currency: 'USD' } }],
      [createQuoteM, { input: { componentId: s.componentId, partId: unknown, distributorId: ids.digikey, currency: 'USD' } }],
    );
    expect((await refusal(probe.headers, deleteQuoteM, { c: s.componentId, id: unknown })).code).toBe('ATTRIBUTE_WRITE_DENIED');
    expect(await items()).toEqual(before);
  });

  it('a RECEIVE_ONLY writer: refusals without stored data, answers of what it sent only', async () => {
    const s = await sourced('Blindly written regulator');
    const blind = await integration('Blind writer', [
      { attribute: 'sourcing.parts', write: 'OPEN', read: 'RECEIVE_ONLY' },
      { attribute: 'sourcing.quotes', write: 'OPEN', read: 'RECEIVE_ONLY' },
    ]);
    const before = await items();
    // The one bit of uniqueness stays (documented), not the clashing part's id.
    const duplicate = await refusal(blind.headers, createPartM, { input: { componentId: s.componentId, manufacturerId: ids.ti, mpn: stored.mpn.toLowerCase() } });
    expect(duplicate.code).toBe('DUPLICATE_MPN');
    expect(duplicate.error?.extensions?.partId).toBeUndefined();
    expect(traces(duplicate, s)).toEqual([]);
    const notApproved = await refusal(blind.headers, primaryM, { input: { componentId: s.componentId, partId: s.protoId } });
    expect(notApproved.code).toBe('PRIMARY_NOT_APPROVED');
    expect(traces(notApproved, s)).toEqual([]);
    // An update must send the non-null fields its answer cannot take from storage, checked before the row is read.
    const stockOnly = await refusal(blind.headers, updateQuoteM, { input: { componentId: s.componentId, id: s.quoteId, stock: 7 } });
    expect(stockOnly).toMatchObject({ code: 'BAD_USER_INPUT', error: { extensions: { field: 'distributorId', reason: 'SOURCING_WITHHELD' } } });
    expect((await refusal(blind.headers, updatePartM, { input: { componentId: s.componentId, id: s.partId, rank: 1 } })).error?.extensions).toMatchObject({ field: 'manufacturerId' });
    expect(await items()).toEqual(before);

    // The answers: what it sent, never the stored prices, DPN, MPN or description.
    const quote = (await ok(blind.headers, updateQuoteM, { input: { componentId: s.componentId, id: s.quoteId, distributorId: ids.digikey, currency: 'USD', stock: 7 } })).vendorSourcing.updateQuote;
    expect(quote).toEqual({
      id: s.quoteId,
      componentId: s.componentId,
      partId: s.partId,
      unitPrice: null,
      currency: 'USD',
      priceBreaks: [],
      distributorPartNumber: null,
      moq: null,
      stock: 7,
      isPrimary: false,
      distributor: { id: ids.digikey },
    });
    const part = (await ok(blind.headers, updatePartM, { input: { componentId: s.componentId, id: s.partId, manufacturerId: ids.adi, mpn: 'NEW-MPN-1', lifecycle: 'ACTIVE', approval: 'APPROVED' } }))
      .vendorSourcing.updatePart;
    expect(part).toEqual({
      id: s.partId,
      componentId: s.componentId,
      mpn: 'NEW-MPN-1',
      description: null,
      datasheetUrl: null,
      lifecycle: 'ACTIVE',
      approval: 'APPROVED',
      rank: null,
      isLegacyImport: false,
      isPrimary: false,
      manufacturer: { id: ids.adi },
      quotes: [],
    });
    const created = (await ok(blind.headers, createQuoteM, { input: { componentId: s.componentId, partId: s.partId, distributorId: ids.digikey, currency: 'EUR', unitPrice: 2 } })).vendorSourcing
      .createQuote;
    expect(created).toMatchObject({ partId: s.partId, unitPrice: 2, currency: 'EUR', isPrimary: false });
    // The part's id is in them because the calls sent it; none of the stored values is.
    expect(traces([quote, part, created], s)).toEqual([s.partId]);
    // The writes happened: a person reads them with the stored values they kept.
    const full = (
      await ok(admin, `query($id: ID!) { vendorSourcing { componentSourcing(componentId: $id) { parts { id mpn description quotes { id stock unitPrice distributorPartNumber } } } } }`, {
        id: s.componentId,
      })
    ).vendorSourcing.componentSourcing.parts.find((p: { id: string }) => p.id === s.partId);
    expect(full).toMatchObject({ mpn: 'NEW-MPN-1', description: stored.description });
    expect(full.quotes.find((q: { id: string }) => q.id === s.quoteId)).toEqual({ id: s.quoteId, stock: 7, unitPrice: stored.unitPrice, distributorPartNumber: stored.dpn });
  });

  it('an integration without sourcing.quotes reads the primary source changes without the primary quote (history and export)', async () => {
    const s = await sourced('Quote-blind LDO');
    const second = (await ok(admin, createQuoteM, { input: { componentId: s.componentId, partId: s.partId, distributorId: ids.digikey, currency: 'USD', unitPrice: 3 } })).vendorSourcing.createQuote;
    // Only the quote changes: the change is left out for it.
    await ok(admin, primaryM, { input: { componentId: s.componentId, partId: s.partId, quoteId: second.id } });
    const blind = await integration('Quote-blind CAD', [{ attribute: 'sourcing.quotes', read: 'NO_ACCESS' }]);
    const primaryChanges = (changes: { field: string; from: unknown; to: unknown }[]) => changes.filter((c) => c.field === 'sourcing.primary');
    const read = async (headers: Record<string, string>) =>
      ((await ok(headers, history, { id: s.componentId })).component.findOne.history as { changes: { field: string; from: unknown; to: unknown }[] }[]).flatMap((h) => primaryChanges(h.changes));
    // A person: the part and quote set together, then the quote moved.
    expect(await read(admin)).toEqual([
      { field: 'sourcing.primary', from: { partId: s.partId, quoteId: s.quoteId }, to: { partId: s.partId, quoteId: second.id } },
      { field: 'sourcing.primary', from: null, to: { partId: s.partId, quoteId: s.quoteId } },
    ]);
    const expected = [{ field: 'sourcing.primary', from: null, to: { partId: s.partId, quoteId: null } }];
    expect(await read(blind.headers)).toEqual(expected);

    const files = (await ok(blind.headers, exportMutation, { input: { format: 'JSON' } })).transfer.exportLibrary.files as { downloadUrl: string }[];
    const text = Buffer.from(await (await fetch(files[0]!.downloadUrl)).arrayBuffer()).toString('utf8');
    expect([s.quoteId, second.id].filter((id) => text.includes(id))).toEqual([]);
    const bundle = JSON.parse(text) as { components: { id: string; history: { changes: { field: string; from: unknown; to: unknown }[] }[] }[] };
    expect(bundle.components.find((c) => c.id === s.componentId)!.history.flatMap((h) => primaryChanges(h.changes))).toEqual(expected);
  });

  it('deleting the primary quote is a quote write: a quotes writer that may not write parts deletes it', async () => {
    const s = await sourced('Quote owner bracket');
    const erp = await integration('Quotes-only ERP', [
      { attribute: 'sourcing.parts', write: 'NO_WRITE', read: 'NO_ACCESS' },
      { attribute: 'sourcing.quotes', write: 'OPEN', read: 'READ' },
    ]);
    // Refused before the fix with ATTRIBUTE_WRITE_DENIED exactly when the quote was primary (it cannot read the primary source).
    expect((await ok(erp.headers, deleteQuoteM, { c: s.componentId, id: s.quoteId })).vendorSourcing.deleteQuote.componentId).toBe(s.componentId);
    const primary = (await ok(admin, 'query($id: ID!) { vendorSourcing { componentSourcing(componentId: $id) { primarySource { part { id } quote { id } } } } }', { id: s.componentId })).vendorSourcing
      .componentSourcing.primarySource;
    expect(primary).toEqual({ part: { id: s.partId }, quote: null });
  });
});
