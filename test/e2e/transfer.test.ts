import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { plans } from '../../lib/orgs/plans.js';
import { getLibrary } from '../../lib/store/library.js';
import { LibraryImportError } from '../../lib/errors.js';
import { ImportInvalidError } from '../../lib/transfer/errors.js';
import { writeItems } from '../../lib/items/writer.js';
import { TableSearchIndex } from '../../lib/search/table/index.js';
import { readManifest } from '../../lib/search/table/storage.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import { syntheticLibraryCsv } from '../../lib/transfer/synthetic.js';
import { readImportDirectory, writeExportDirectory } from '../../lib/transfer/files.js';
import { importLibrary, SimulatedImportFailure, type ImportOptions } from '../../lib/transfer/import.js';
import { gqlOk, newTenant, stack, testStore, uniqueSlug, type Tenant } from '../support/api.js';
import { adminCli } from '../support/admin.js';
import { sha256Hex } from '../support/files.js';
import { markReleased, seedContext } from './searchHelpers.js';
import { createComponents, updateComponents } from '../../lib/components/service.js';
import { canonical, canonicalLibrary, newEmptyLibrary, partitionSnapshot, seedTemplatesAndFiles, stackFiles, templateDocument, type LibraryTarget } from './transferHelpers.js';
import { rm, writeFile as writeBytes } from 'node:fs/promises';
import { addMember } from '../../lib/orgs/operator.js';
import { getFile, importedFileItem, listFileRecords } from '../../lib/store/file.js';
import { listTemplates } from '../../lib/store/changeOrderTemplate.js';
import { importedTemplateItems } from '../../lib/store/changeOrderTemplate.js';
import { markLibraryImporting, putItemsInParallel } from '../../lib/store/libraryTransfer.js';
import { abandonLibraryImport } from '../../lib/transfer/import.js';
import { createTemplate } from '../../lib/changeOrders/templates.js';
import { createVendor } from '../../lib/sourcing/directory.js';
import { createPart, createQuote, setPrimarySource, updatePart } from '../../lib/sourcing/parts.js';
import { setExchangeRates } from '../../lib/sourcing/rates.js';
import { findPartsByMpn } from '../../lib/sourcing/model.js';
import { normalizeMpn } from '../../lib/store/component.js';
import { listVendors, vendorIdByName } from '../../lib/store/sourcing.js';
import { createPlannedVendors, planSourcing } from '../../lib/transfer/sourcing.js';
import { sourcingColumns, sourcingToCsv } from '../../lib/transfer/sourcingCsv.js';

const store = testStore();
const releaseDraft = 'mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { id } } }';
const fixtures = new URL('../fixtures/', import.meta.url).pathname;
let tenant: Tenant;
let source: LibraryTarget;

const options = (t: { user: { id: string } }): ImportOptions => ({
  actor: { userId: t.user.id, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() },
  entitlements: plans.enterprise,
});

async function roundTrip(from: LibraryTarget) {
  const directory = await mkdtemp(join(tmpdir(), 'plm-export-'));
  const exported = await exportLibrary(store, from.ref);
  await writeExportDirectory(directory, exported, stackFiles());
  const target = await newEmptyLibrary(store, from, uniqueSlug('imp'));
  const result = await importLibrary(store, target.ref, await readImportDirectory(directory), { ...options(from), blobs: stackFiles() });
  return { directory, exported, target, result };
}

beforeAll(async () => {
  tenant = await newTenant();
  source = { ...tenant, ref: { organizationId: tenant.organization.id, libraryId: tenant.library.id } };
});

/** Components with sourcing and a BOM line with a substitute: TI (alias TI), Yageo, Digi-Key (alias DigiKey), EUR rates. */
async function seedSourcing(from: LibraryTarget) {
  const ctx = await seedContext(store, from, new Date().toISOString());
  const [r1, r2, alt] = await createComponents(store, ctx, [
    { name: 'R1', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 1 }] },
    { name: 'R2', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 2 }] },
    { name: 'R alt', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 1 }] },
  ]);
  await writeItems(store, ctx, 'create', [{ name: 'Board', categoryId: 'pcba', children: [{ childId: r1!.id, quantity: 2, substitutes: [alt!.id] }, { childId: r2!.id }] }], {});
  const org = from.ref.organizationId;
  const actor = { ...from.ref, userId: from.user.id, actingIntegrationId: null };
  const ti = await createVendor(store, org, { kind: 'MANUFACTURER', name: 'Texas Instruments', aliases: ['TI'] });
  await createVendor(store, org, { kind: 'MANUFACTURER', name: 'Yageo' });
  const digikey = await createVendor(store, org, { kind: 'DISTRIBUTOR', name: 'Digi-Key', aliases: ['DigiKey'] });
  const p1 = await createPart(store, actor, { componentId: r1!.id, manufacturerId: ti.id, mpn: 'RC0603-10K', approval: 'APPROVED', lifecycle: 'ACTIVE', rank: 1 });
  const p2 = await createPart(store, actor, { componentId: r1!.id, manufacturerName: 'yageo', mpn: 'RC0603FR-0710KL', approval: 'PROTOTYPE_ONLY', datasheetUrl: 'https://yageo.example/rc.pdf' });
  const q1 = await createQuote(store, actor, {
    componentId: r1!.id,
    partId: p1.id,
    distributorId: digikey.id,
    distributorPartNumber: '296-RC0603-ND',
    currency: 'EUR',
    priceBreaks: [
      { minQuantity: 1, unitPrice: 0.1 },
      { minQuantity: 100, unitPrice: 0.05 },
    ],
    moq: 10,
    orderMultiple: 10,
    leadTimeDays: 14,
    stock: 5000,
    validUntil: '2027-01-01',
  });
  await updatePart(store, actor, { componentId: r1!.id, id: p2.id, rank: 2 });
  // A cell a spreadsheet would run as a formula.
  await createQuote(store, actor, { componentId: r1!.id, partId: p2.id, distributorName: 'digikey', distributorPartNumber: '=1+1', currency: 'USD', unitPrice: 0.2 });
  await setPrimarySource(store, actor, { componentId: r1!.id, partId: p1.id, quoteId: q1.id });
  await createPart(store, actor, { componentId: r2!.id, manufacturerName: 'TI', mpn: 'R2-LEGACY', isLegacyImport: true });
  await setExchangeRates(store, { ...from.ref, userId: from.user.id }, { baseCurrency: 'USD', rates: [{ currency: 'EUR', rate: 1.1 }] });
  return { r1: r1!, r2: r2! };
}

describe('library export and import', () => {
  it('round-trips a library with components of every kind, attributes, BOMs, document links, NRM, labels, releases and history', async () => {
    const at = (minute: number) => new Date(Date.parse('2025-01-01T00:00:00Z') + minute * 60_000).toISOString();
    const ctx = await seedContext(store, source, at(0));
    const [resistor, capacitor, nrm, drawing] = await createComponents(store, ctx, [
      {
        name: '10k resistor',
        categoryId: 'resistor',
        attributeValues: [
          { attributeId: 'resistance', hasValue: true, value: 10000 },
          { attributeId: 'package', hasValue: true, value: '0603' },
        ],
        labels: ['rohs', 'reach'],
        eid: 'ERP-1',
      },
      { name: '100n capacitor', categoryId: 'capacitor', description: 'X7R; 16 V', attributeValues: [{ attributeId: 'capacitance', hasValue: true, value: 1e-7 }] },
      { name: 'Fixed spec resistor', categoryId: 'resistor', statusId: 'production', notRevisionManaged: true, attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 1 }] },
      { name: 'Controller drawing', categoryId: 'drawing', documentFormats: ['PDF', 'DXF'] },
    ]);
    const [updated] = await updateComponents(store, { ...ctx, at: at(1) }, [{ id: resistor!.id, expectedVersion: 1, name: '10k resistor, 1%', labels: ['rohs'] }]);
    const [board] = await writeItems(
      store,
      { ...ctx, at: at(2) },
      'create',
      [
        {
          name: 'Controller board',
          categoryId: 'pcba',
          children: [
            { childId: resistor!.id, quantity: 4, refDes: 'R1-R4', itemNumber: '10', childHistoryId: `${resistor!.id}:1` },
            { childId: capacitor!.id, quantity: 2, notes: 'hand placed' },
          ],
          documentComponentIds: [drawing!.id],
        },
      ],
      {},
    );
    await writeItems(store, { ...ctx, at: at(3) }, 'update', [{ id: board!.id, expectedVersion: 1, children: [{ childId: resistor!.id, quantity: 6, refDes: 'R1-R6' }, { childId: nrm!.id }] }], {});
    const [top] = await writeItems(store, { ...ctx, at: at(4) }, 'create', [{ name: 'Controller unit', categoryId: 'top-level-assembly', children: [{ childId: board!.id, quantity: 1 }] }], {});
    await markReleased(store, updated!);
    await markReleased(store, top!);
    // A real release through a change order: a RELEASE history record (with the change order's number).
    const co = (
      await gqlOk<{ changeOrders: { create: { id: string } } }>(tenant, releaseDraft, {
        input: {
          name: 'Release the capacitor',
          templateId: 'default-one-stage',
          componentIds: [capacitor!.id],
          values: { reason: 'First release' },
          stages: [{ index: 0, reviewerIds: [tenant.user.id], approvalType: 'Majority' }],
        },
      })
    ).changeOrders.create;
    await gqlOk(tenant, 'mutation($id: ID!) { changeOrders { submit(id: $id) { status } } }', { id: co.id });
    await gqlOk(tenant, 'mutation($id: ID!) { changeOrders { approve(id: $id) { status } } }', { id: co.id });

    const { target, result } = await roundTrip(source);
    expect(result.components).toBe(6);
    const imported = await canonicalLibrary(store, target.ref);
    expect(imported).toEqual(await canonicalLibrary(store, source.ref));
    expect(imported.components.find((c) => c.name === '100n capacitor')!.history.map((h) => h.action)).toEqual(['CREATE', 'RELEASE']);
    expect(imported.components.find((c) => c.name === '10k resistor, 1%')!.history.map((h) => h.action)).toEqual(['CREATE', 'UPDATE']);
    // The search index of the imported library answers at once (entries folded into blocks).
    expect((await readManifest(store, { organizationId: target.ref.organizationId, libraryId: target.ref.libraryId })).blocks.reduce((n, b) => n + b.rows, 0)).toBe(6);
    expect((await new TableSearchIndex(store, target.ref).terms()).labels).toEqual(['rohs']);
    expect((await getLibrary(store, target.ref.organizationId, target.ref.libraryId))?.importing).toBeFalsy();
  });

  it('round-trips sourcing (vendors with aliases, parts, quotes, primary sources, rates) and substitutes, in its organization and into another', { timeout: 60_000 }, async () => {
    const a = await newTenant();
    const from: LibraryTarget = { ...a, ref: { organizationId: a.organization.id, libraryId: a.library.id } };
    const { r1, r2 } = await seedSourcing(from);

    // Into its own organization: the same vendors, the same library (export -> import -> export).
    const { target, result } = await roundTrip(from);
    expect(result).toMatchObject({ components: 4, sourcingParts: 3, vendorsCreated: 0 });
    const original = await canonicalLibrary(store, from.ref);
    expect(original.components.find((c) => c.name === 'Board')!.bom!.lines[0]!.substitutes).toEqual(['cpn:' + original.components.find((c) => c.name === 'R alt')!.cpn]);
    expect(original.components.find((c) => c.name === r1.name)!.sourcing!.parts).toHaveLength(2);
    expect(original.manifest.sourcing!.exchangeRates).toEqual({ baseCurrency: 'USD', rates: { EUR: 1.1 } });
    expect(await canonicalLibrary(store, target.ref)).toEqual(original);
    const found = await findPartsByMpn(store, target.ref, ' rc0603-10k');
    expect(found.map((p) => [p.mpn, p.isPrimary, p.quotes.length])).toEqual([['RC0603-10K', true, 1]]);

    // Into another organization that already has Texas Instruments (by another spelling): matched, the others created, ids rewritten everywhere.
    const b = await newTenant();
    const bTi = await createVendor(store, b.organization.id, { kind: 'MANUFACTURER', name: 'texas  INSTRUMENTS' });
    const exported = await exportLibrary(store, from.ref);
    const bTarget = await newEmptyLibrary(store, b, uniqueSlug('src'));
    const bResult = await importLibrary(store, bTarget.ref, { kind: 'json', library: exported, root: 'components.json' }, options(b));
    expect(bResult).toMatchObject({ sourcingParts: 3, vendorsCreated: 2 });
    const bVendors = await listVendors(store, b.organization.id);
    expect(bVendors.map((v) => `${v.kind}:${v.name}:${v.aliases.join('|')}`).sort()).toEqual(['DISTRIBUTOR:Digi-Key:DigiKey', 'MANUFACTURER:Yageo:', 'MANUFACTURER:texas  INSTRUMENTS:']);
    const bIds = new Set(bVendors.map((v) => v.id));
    const again = await exportLibrary(store, bTarget.ref);
    for (const c of again.components) {
      for (const id of c.sourcingIndex?.manufacturerIds ?? []) expect(bIds.has(id)).toBe(true);
      for (const p of c.sourcing?.parts ?? []) {
        expect(bIds.has(p.manufacturerId)).toBe(true);
        for (const q of p.quotes) expect(bIds.has(q.distributorId)).toBe(true);
      }
      for (const h of c.history)
        for (const change of h.changes.filter((x) => x.field.startsWith('sourcing.part.') && x.to)) expect(bIds.has((change.to as { manufacturerId: string }).manufacturerId)).toBe(true);
    }
    expect((await findPartsByMpn(store, bTarget.ref, 'RC0603-10K'))[0]!.manufacturerId).toBe(bTi.id);
    // The same library but for the vendor ids (by name) and the authors (a's user is no member of b).
    const asImported = JSON.parse(JSON.stringify(original.components).replaceAll(a.user.id, b.user.id).replaceAll('vendor:MANUFACTURER:Texas Instruments', 'vendor:MANUFACTURER:texas  INSTRUMENTS'));
    expect(canonical(again).components).toEqual(asImported);
    // And b's library round-trips exactly in b.
    const { target: bAgain } = await roundTrip({ ...b, ref: bTarget.ref, library: { id: bTarget.ref.libraryId } });
    expect(await canonicalLibrary(store, bAgain.ref)).toEqual(await canonicalLibrary(store, bTarget.ref));

    // A failure midway leaves neither the library nor the directory of a third organization changed.
    const c = await newTenant();
    const cTarget = await newEmptyLibrary(store, c, uniqueSlug('srcfail'));
    const cBefore = await partitionSnapshot(store, cTarget.ref);
    const failed = await importLibrary(store, cTarget.ref, { kind: 'json', library: exported, root: 'components.json' }, { ...options(c), failAfterItems: 5 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(SimulatedImportFailure);
    expect(await partitionSnapshot(store, cTarget.ref)).toEqual(cBefore);
    expect(await listVendors(store, c.organization.id)).toEqual([]);
    expect(r2).toBeDefined();

    // A crash after the vendors were created: import-abort deletes them (and their name claims) with the library's items.
    const d = await newTenant();
    const dTarget = await newEmptyLibrary(store, d, uniqueSlug('srccrash'));
    const crashId = randomUUID();
    const plan = await planSourcing(
      store,
      dTarget.ref,
      exported.manifest.sourcing,
      exported.components,
      { manifest: '', component: (i) => `[${i}]` },
      { userId: d.user.id, at: new Date().toISOString() },
      [],
    );
    await markLibraryImporting(store, dTarget.ref.organizationId, dTarget.ref.libraryId, { importId: crashId, startedAt: new Date().toISOString(), startedBy: d.user.id });
    await createPlannedVendors(store, plan, crashId, []);
    expect(await listVendors(store, d.organization.id)).toHaveLength(3);
    expect(await vendorIdByName(store, d.organization.id, 'MANUFACTURER', 'ti')).toBeDefined();
    await abandonLibraryImport(store, dTarget.ref, crashId);
    expect(await listVendors(store, d.organization.id)).toEqual([]);
    expect(await vendorIdByName(store, d.organization.id, 'MANUFACTURER', 'ti')).toBeUndefined();
  });

  it('writes sourcing.csv and reads it back on a CSV import; a legacy cost sheet marks its parts and quotes', { timeout: 60_000 }, async () => {
    const a = await newTenant();
    const from: LibraryTarget = { ...a, ref: { organizationId: a.organization.id, libraryId: a.library.id } };
    const { r1, r2 } = await seedSourcing(from);
    const directory = await mkdtemp(join(tmpdir(), 'plm-export-sourcing-'));
    const written = await writeExportDirectory(directory, await exportLibrary(store, from.ref), stackFiles());
    expect(written).toContain('sourcing.csv');
    const csv = await readFile(join(directory, 'sourcing.csv'), 'utf8');
    const lines = csv.trim().split('\n');
    expect(lines).toEqual([
      sourcingColumns.join(','),
      `${r1.cpn},Texas Instruments,RC0603-10K,ACTIVE,APPROVED,1,Digi-Key,296-RC0603-ND,1,0.1,EUR,10,10,14,5000,2027-01-01,true,,1`,
      `${r1.cpn},Texas Instruments,RC0603-10K,ACTIVE,APPROVED,1,Digi-Key,296-RC0603-ND,100,0.05,EUR,10,10,14,5000,2027-01-01,true,,1`,
      // The formula-looking distributor part number is escaped with a leading quote.
      `${r1.cpn},Yageo,RC0603FR-0710KL,UNKNOWN,PROTOTYPE_ONLY,2,Digi-Key,'=1+1,1,0.2,USD,,,,,,,,1`,
      `${r2.cpn},Texas Instruments,R2-LEGACY,UNKNOWN,NOT_APPROVED,,,,,,,,,,,,,true,`,
    ]);

    // A CSV import into another organization: vendors by name (created there), parts, quotes, breaks, primary.
    const b = await newTenant();
    const target = await newEmptyLibrary(store, b, uniqueSlug('csvsrc'));
    const result = await importLibrary(store, target.ref, await readImportDirectory(directory, 'csv'), options(b));
    expect(result).toMatchObject({ components: 4, sourcingParts: 3, vendorsCreated: 3 });
    const imported = await exportLibrary(store, target.ref);
    expect(sourcingToCsv(imported.components, imported.manifest.sourcing)).toBe(csv);
    expect((await findPartsByMpn(store, target.ref, '=1+1')).length).toBe(0);
    expect((await findPartsByMpn(store, target.ref, 'rc0603fr-0710kl'))[0]!.quotes[0]!.distributorPartNumber).toBe('=1+1');

    // A hand-written legacy cost sheet: rows with legacy=true, or the whole file as legacy.
    const sheet = await mkdtemp(join(tmpdir(), 'plm-legacy-'));
    for (const name of ['library.json', 'components.csv', 'bom.csv']) await writeFile(join(sheet, name), await readFile(join(directory, name)));
    await writeFile(
      join(sheet, 'sourcing.csv'),
      `cpn,manufacturer,mpn,distributor,currency,unitPrice,legacy\n${r1.cpn},Texas Instruments,OLD-1,Mouser,USD,1.5,true\n${r2.cpn},Murata,NEW-2,Mouser,USD,2,\n`,
    );
    const legacyParts = async (source: Awaited<ReturnType<typeof readImportDirectory>>) => {
      const lib = await newEmptyLibrary(store, b, uniqueSlug('legacy'));
      await importLibrary(store, lib.ref, source, options(b));
      const parts = (await exportLibrary(store, lib.ref)).components.flatMap((c) => c.sourcing?.parts ?? []);
      return parts.map((p) => [p.mpn, p.isLegacyImport, p.quotes.map((q) => q.isLegacyImport)]).sort();
    };
    expect(await legacyParts(await readImportDirectory(sheet, 'csv'))).toEqual([
      ['NEW-2', false, [false]],
      ['OLD-1', true, [true]],
    ]);
    expect(await legacyParts(await readImportDirectory(sheet, 'csv', { legacy: true }))).toEqual([
      ['NEW-2', true, [true]],
      ['OLD-1', true, [true]],
    ]);
    // The operator CLI's --legacy reads the sheet the same way.
    const cliSlug = uniqueSlug('legacycli');
    const cliLibrary = await newEmptyLibrary(store, b, cliSlug);
    await adminCli(['import', '--org-slug', b.organization.slug, '--library-slug', cliSlug, '--in', sheet, '--legacy']);
    const cliParts = (await exportLibrary(store, cliLibrary.ref)).components.flatMap((c) => c.sourcing?.parts ?? []);
    expect(cliParts.map((p) => [p.mpn, p.isLegacyImport, p.quotes.map((q) => q.isLegacyImport)]).sort()).toEqual([
      ['NEW-2', true, [true]],
      ['OLD-1', true, [true]],
    ]);
    // A bad row refuses the import with its row, and writes nothing (no vendor either).
    await writeFile(join(sheet, 'sourcing.csv'), `cpn,manufacturer,mpn,distributor,currency,unitPrice\nNOPE-1,Texas Instruments,X,Mouser,USD,1\n${r1.cpn},Vishay,Y,Arrow,ZZZ,abc\n`);
    const c = await newTenant();
    const refusedLib = await newEmptyLibrary(store, c, uniqueSlug('badcsv'));
    const refused = await importLibrary(store, refusedLib.ref, await readImportDirectory(sheet, 'csv'), options(c)).catch((e: unknown) => e);
    expect((refused as ImportInvalidError).problems.map((p) => [p.path, p.code])).toEqual([
      ['sourcing.csv row 2 cpn', 'COMPONENT_NOT_FOUND'],
      ['sourcing.csv row 3 unitPrice', 'CSV_INVALID_CELL'],
      ['sourcing.csv row 3 currency', 'UNKNOWN_CURRENCY'],
    ]);
    expect(await listVendors(store, c.organization.id)).toEqual([]);
  });

  it("derives an imported component's sourcing search index from its sourcing, never from the file", async () => {
    const a = await newTenant();
    const from: LibraryTarget = { ...a, ref: { organizationId: a.organization.id, libraryId: a.library.id } };
    const { r1, r2 } = await seedSourcing(from);
    const edited = structuredClone(await exportLibrary(store, from.ref));
    const first = edited.components.find((c) => c.id === r1.id)!;
    const second = edited.components.find((c) => c.id === r2.id)!;
    // A hand-edited file: one component's sourcing removed, its index left; another's index naming a part it does not have.
    first.sourcing = null;
    second.sourcingIndex = { mpns: ['GHOST-MPN', ...second.sourcingIndex!.mpns], manufacturerIds: second.sourcingIndex!.manufacturerIds };
    const target = await newEmptyLibrary(store, a, uniqueSlug('idx'));
    await importLibrary(store, target.ref, { kind: 'json', library: edited, root: 'components.json' }, options(a));
    const imported = await exportLibrary(store, target.ref);
    const byCpn = (cpn: string) => imported.components.find((c) => c.cpn === cpn)!;
    expect(byCpn(first.cpn).sourcingIndex).toBeUndefined();
    // What search filters on (mpn:, manufacturer:) is what the parts say.
    expect(byCpn(second.cpn).sourcingIndex!.mpns.sort()).toEqual(second.sourcing!.parts.map((p) => normalizeMpn(p.mpn)).sort());
  });

  it('validates the sourcing of an import before writing anything: every problem with its path and code', async () => {
    const a = await newTenant();
    const from: LibraryTarget = { ...a, ref: { organizationId: a.organization.id, libraryId: a.library.id } };
    await seedSourcing(from);
    const exported = await exportLibrary(store, from.ref);
    const bad = structuredClone(exported);
    const i = bad.components.findIndex((c) => (c.sourcing?.parts.length ?? 0) === 2);
    const s = bad.components[i]!.sourcing!;
    const approved = s.parts.findIndex((p) => p.approval === 'APPROVED');
    const other = 1 - approved;
    s.parts[approved]!.quotes[0]!.currency = 'ZZZ';
    s.parts[approved]!.quotes[0]!.priceBreaks[0]!.unitPrice = -1;
    s.parts[other]!.manufacturerId = randomUUID();
    // What createPart, createQuote and createVendor refuse: a script URL, a quantity past an Int, no date.
    s.parts[approved]!.datasheetUrl = 'javascript:alert(1)';
    s.parts[approved]!.quotes[0]!.moq = 1e12;
    s.parts[approved]!.quotes[0]!.validUntil = 'someday';
    s.parts[approved]!.quotes[0]!.priceBreaks.push({ minQuantity: 1e12, unitPrice: 0.01 });
    s.primaryPartId = s.parts[other]!.id;
    // JPY: below DynamoDB's smallest number (validation passed it and the commit failed); USD: the base currency (setExchangeRates refuses both).
    bad.manifest.sourcing!.exchangeRates!.rates = { QQQ: 2, JPY: 1e-300, USD: 2 };
    const distributor = bad.manifest.sourcing!.vendors.findIndex((v) => v.kind === 'DISTRIBUTOR');
    bad.manifest.sourcing!.vendors.push({ ...bad.manifest.sourcing!.vendors[distributor]!, id: randomUUID(), name: 'DIGIKEY', aliases: [] });
    bad.manifest.sourcing!.vendors[distributor]!.website = 'javascript:alert(1)';
    const b = await newTenant();
    const target = await newEmptyLibrary(store, b, uniqueSlug('srcbad'));
    const before = await partitionSnapshot(store, target.ref);
    const refused = await importLibrary(store, target.ref, { kind: 'json', library: bad, root: 'components.json' }, options(b)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ImportInvalidError);
    const at = `components.json[${i}].sourcing`;
    expect((refused as ImportInvalidError).problems.map((p) => [p.path, p.code]).sort()).toEqual(
      [
        [`library.json: sourcing.vendors[${bad.manifest.sourcing!.vendors.length - 1}].name`, 'ALREADY_EXISTS'],
        [`${at}.parts[${other}].manufacturerId`, 'MANUFACTURER_NOT_FOUND'],
        [`${at}.parts[${approved}].quotes[0].currency`, 'UNKNOWN_CURRENCY'],
        [`${at}.parts[${approved}].quotes[0].priceBreaks[0].unitPrice`, 'INVALID_PRICE'],
        [`${at}.primaryPartId`, 'PRIMARY_NOT_APPROVED'],
        ['library.json: sourcing.exchangeRates.rates.QQQ', 'UNKNOWN_CURRENCY'],
        ['library.json: sourcing.exchangeRates.rates.JPY', 'BAD_USER_INPUT'],
        [`library.json: sourcing.vendors[${distributor}].website`, 'BAD_USER_INPUT'],
        [`${at}.parts[${approved}].datasheetUrl`, 'BAD_USER_INPUT'],
        [`${at}.parts[${approved}].quotes[0].moq`, 'BAD_USER_INPUT'],
        [`${at}.parts[${approved}].quotes[0].validUntil`, 'BAD_USER_INPUT'],
        [`${at}.parts[${approved}].quotes[0].priceBreaks[${s.parts[approved]!.quotes[0]!.priceBreaks.length - 1}].minQuantity`, 'BAD_USER_INPUT'],
        ['library.json: sourcing.exchangeRates.rates.USD', 'BAD_USER_INPUT'],
      ].sort(),
    );
    expect(await partitionSnapshot(store, target.ref)).toEqual(before);
    expect(await listVendors(store, b.organization.id)).toEqual([]);
  });

  it('imports the hand-written CSV of the documented format', async () => {
    const target = await newEmptyLibrary(store, source, uniqueSlug('csv'));
    const result = await importLibrary(store, target.ref, await readImportDirectory(join(fixtures, 'transfer')), options(source));
    expect(result).toMatchObject({ components: 6, bomLines: 4, documentLinks: 1, historyRecords: 6 });
    const library = await canonicalLibrary(store, target.ref);
    const byCpn = new Map(library.components.map((c) => [c.cpn, c]));
    expect(byCpn.get('100-00001')).toMatchObject({
      name: '10k resistor',
      categoryId: 'resistor',
      statusId: 'design',
      revisionValue: 'A',
      state: 'MODIFIED',
      description: 'Thick film, 1%',
      eid: 'ERP-1',
      labels: ['rohs', 'reach'],
      attributeValues: { resistance: 10000, package: '0603' },
      version: 1,
    });
    expect(byCpn.get('100-00002')).toMatchObject({ statusId: 'production', revisionValue: 'B', state: 'RELEASED', notRevisionManaged: true, attributeValues: { resistance: 4700, package: '0402' } });
    expect(byCpn.get('110-00001')).toMatchObject({ statusId: 'design', description: 'X7R, 16 V', attributeValues: { capacitance: 1e-7 } });
    expect(byCpn.get('900-00001')).toMatchObject({ documentFormats: ['PDF', 'DXF'] });
    const board = byCpn.get('400-00001')!;
    expect(board).toMatchObject({ categoryId: 'pcba', statusId: 'prototype', revisionValue: 'A', labels: ['top'] });
    expect(board.bom!.lines.map((l) => [l.childId, l.quantity, l.refDes, l.itemNumber, l.notes])).toEqual([
      ['cpn:100-00001', 4, 'R1-R4', '10', null],
      ['cpn:100-00002', 2, 'R5,R6', '20', 'hand placed'],
      ['cpn:110-00001', null, 'C1', '30', null],
    ]);
    expect(board.documentLinks!.links.map((l) => l.documentId)).toEqual(['cpn:900-00001']);
    expect(board.history).toHaveLength(1);
    expect(board.history[0]!.action).toBe('CREATE');
    expect(board.history[0]!.changes.map((c) => c.field)).toEqual(expect.arrayContaining(['name', 'categoryId', 'children', 'documentLinks']));
    expect(byCpn.get('500-00001')!.bom!.lines.map((l) => l.childId)).toEqual(['cpn:400-00001']);
    // Counters moved past the imported CPNs: the next generated resistor CPN is new.
    const [next] = await createComponents(store, await seedContext(store, target, new Date().toISOString()), [
      { name: 'next', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 1 }] },
    ]);
    expect(next!.cpn).toBe('100-00003');
  });

  it('refuses bad input with every problem listed, and writes nothing', async () => {
    const target = await newEmptyLibrary(store, source, uniqueSlug('bad'));
    const before = await partitionSnapshot(store, target.ref);
    const error = await importLibrary(store, target.ref, await readImportDirectory(join(fixtures, 'transfer-bad')), options(source)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportInvalidError);
    const problems = (error as ImportInvalidError).problems;
    expect(problems.map((p) => p.code).sort()).toEqual(['BOM_CYCLE', 'CATEGORY_NOT_FOUND', 'DUPLICATE_CPN']);
    expect(problems.find((p) => p.code === 'DUPLICATE_CPN')!.path).toBe('components.csv row 3.cpn');
    expect(problems.find((p) => p.code === 'CATEGORY_NOT_FOUND')!.path).toBe('components.csv row 4.category');
    expect(problems.find((p) => p.code === 'BOM_CYCLE')!.message).toContain('400-00001 > 400-00002 > 400-00001');

    const malformed = await mkdtemp(join(tmpdir(), 'plm-bad-csv-'));
    await writeFile(join(malformed, 'components.csv'), 'cpn,name,category\n100-1,"unclosed,resistor\n');
    await writeFile(join(malformed, 'bom.csv'), 'parentCpn,childCpn,wrong\n');
    const malformedError = await importLibrary(store, target.ref, await readImportDirectory(malformed), options(source)).catch((e: unknown) => e);
    expect((malformedError as ImportInvalidError).problems.map((p) => p.code).sort()).toEqual(['CSV_MALFORMED', 'CSV_UNKNOWN_COLUMN']);
    expect(await partitionSnapshot(store, target.ref)).toEqual(before);
  });

  it('imports only into an empty library, and a failure midway leaves the library as it was', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'plm-export-'));
    await writeExportDirectory(directory, await exportLibrary(store, source.ref));
    const refused = await importLibrary(store, source.ref, await readImportDirectory(directory), options(source)).catch((e: unknown) => e);
    expect((refused as LibraryImportError).code).toBe('LIBRARY_NOT_EMPTY');

    const target = await newEmptyLibrary(store, source, uniqueSlug('fail'));
    const before = await partitionSnapshot(store, target.ref);
    const failed = await importLibrary(store, target.ref, await readImportDirectory(directory), { ...options(source), failAfterItems: 20 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(SimulatedImportFailure);
    expect(await partitionSnapshot(store, target.ref)).toEqual(before);
    // And the JSON files themselves are the whole: components.json holds the history.
    const components = JSON.parse(await readFile(join(directory, 'components.json'), 'utf8')) as { history: unknown[] }[];
    expect(components.every((c) => c.history.length >= 1)).toBe(true);
  });

  it('npm run admin -- export / import print one JSON line each, progress on stderr, refusals with every problem', { timeout: 120_000 }, async () => {
    const admin = (...args: string[]) => adminCli(args);
    const directory = await mkdtemp(join(tmpdir(), 'plm-cli-export-'));
    const exported = await admin('export', '--org-slug', tenant.organization.slug, '--library-slug', tenant.library.slug, '--out', directory);
    expect(exported.stdout.trim().split('\n')).toHaveLength(1);
    // audit.jsonl (issue 24: the organization's audit entries about the library, read only) when the library's records were named by audited operations (the tests before this one).
    const written = JSON.parse(exported.stdout) as { directory: string; files: string[] };
    expect(written.directory).toBe(directory);
    expect(written.files.filter((name) => name !== 'audit.jsonl')).toEqual(['library.json', 'components.json', 'components.csv', 'bom.csv']);
    const slug = uniqueSlug('cli');
    const target = await newEmptyLibrary(store, source, slug);
    const imported = await admin('import', '--org-slug', tenant.organization.slug, '--library-slug', slug, '--in', directory);
    expect(JSON.parse(imported.stdout)).toMatchObject({ components: JSON.parse(exported.stdout).counts.components });
    expect(imported.stderr).toContain('"phase":"committed"');
    expect(await canonicalLibrary(store, target.ref)).toEqual(await canonicalLibrary(store, source.ref));

    const badSlug = uniqueSlug('clibad');
    await newEmptyLibrary(store, source, badSlug);
    const refused = await admin('import', '--org-slug', tenant.organization.slug, '--library-slug', badSlug, '--in', join(fixtures, 'transfer-bad')).catch((e: { code: number; stderr: string }) => e);
    expect((refused as { code: number }).code).toBe(2);
    expect((refused as { stderr: string }).stderr).toContain('IMPORT_INVALID');
    expect((refused as { stderr: string }).stderr).toContain('components.csv row 4.category: CATEGORY_NOT_FOUND');
  });

  it('carries change order templates (participants by email) and uploaded files into another organization', { timeout: 60_000 }, async () => {
    const a = await newTenant();
    const aRef = { organizationId: a.organization.id, libraryId: a.library.id };
    const { reviewer, notified } = await seedTemplatesAndFiles(store, a);
    const directory = await mkdtemp(join(tmpdir(), 'plm-export-files-'));
    const exported = await exportLibrary(store, aRef);
    const written = await writeExportDirectory(directory, exported, stackFiles());
    expect(exported.manifest.changeOrderTemplates!.map((t) => t.name)).toEqual(['Production ECO', 'Quick fix']);
    expect(exported.manifest.changeOrderTemplates![0]!.participantEmails).toEqual({ [reviewer.userId]: reviewer.email, [notified.userId]: notified.email });
    expect(exported.manifest.files!.map((f) => f.name).sort()).toEqual(['controller-rev-b.pdf', 'controller.pdf', 'resistor.png', 'spec.txt']);
    expect(written.filter((name) => name.startsWith('files/'))).toHaveLength(4);

    // Another organization where both participants are members: the templates resolve to them there.
    const b = await newTenant();
    for (const member of [reviewer, notified]) await addMember(store, { orgSlug: b.organization.slug, email: member.email, role: 'VIEWER' });
    const bOptions = { ...options(b), blobs: stackFiles() };
    const target = await newEmptyLibrary(store, b, uniqueSlug('files'));
    const result = await importLibrary(store, target.ref, await readImportDirectory(directory), bOptions);
    expect(result).toMatchObject({ components: 4, changeOrderTemplates: 2, files: 4 });
    // The same library, but authored by the importer where the author (a's Site Admin) is no member of b.
    const asImported = JSON.parse(JSON.stringify(await canonicalLibrary(store, aRef)).replaceAll(a.user.id, b.user.id));
    expect(await canonicalLibrary(store, target.ref)).toEqual(asImported);
    const templates = await listTemplates(store, target.ref.organizationId, target.ref.libraryId);
    const eco = templates.find((t) => t.name === 'Production ECO')!;
    expect(eco.organizationId).toBe(b.organization.id);
    const ecoStage = (eco.document as { stages: { open: { reviewers: { users: unknown[] }; notifyList: unknown }[] } }).stages.open[0]!;
    expect(ecoStage.reviewers.users).toEqual([reviewer.userId, { id: notified.userId, isRequired: true }]);
    expect(ecoStage.notifyList).toEqual({ users: [notified.userId], emails: ['vendor@supplier.example'] });
    // Files: new ids in the target, READY, same name, type, size and checksum, bytes in the target's keys.
    const imported = await exportLibrary(store, target.ref);
    const drawing = imported.components.find((c) => c.name === 'Controller drawing')!;
    const file = (await getFile(store, target.ref.organizationId, target.ref.libraryId, drawing.fileId!))!;
    const original = exported.manifest.files!.find((f) => f.name === 'controller-rev-b.pdf')!;
    expect(file).toMatchObject({
      status: 'READY',
      name: original.name,
      contentType: original.contentType,
      size: original.size,
      sha256: original.sha256,
      storageKey: `${target.ref.organizationId}/${target.ref.libraryId}/${file.id}`,
    });
    expect(file.id).not.toBe(original.id);
    const bytes = (await stackFiles().get(file.storageKey))!;
    expect(sha256Hex(bytes)).toBe(original.sha256);
    expect(drawing.history[1]!.changes.find((c) => c.field === 'fileId')).toMatchObject({ to: file.id });
    const image = imported.components.find((c) => c.name === 'Resistor with photo')!.imageFileId!;
    expect(await getFile(store, target.ref.organizationId, target.ref.libraryId, image)).toMatchObject({ name: 'resistor.png', contentType: 'image/png' });
    const board = imported.components.find((c) => c.name === 'Board')!;
    const specDocument = imported.components.find((c) => c.name === 'Board spec')!;
    expect(board.documentLinks!.links.map((l) => l.documentId).sort()).toEqual([drawing.id, specDocument.id].sort());
    expect(await getFile(store, target.ref.organizationId, target.ref.libraryId, specDocument.fileId!)).toMatchObject({ name: 'spec.txt', status: 'READY' });

    // The target's own templates and files stay: a failure leaves the library as it was, a clash is a problem.
    const own = await newEmptyLibrary(store, b, uniqueSlug('own'));
    await createTemplate(store, { ...own.ref, userId: b.user.id }, { name: 'Local ECO', template: templateDocument([b.user.id]) });
    const before = await partitionSnapshot(store, own.ref);
    const failed = await importLibrary(store, own.ref, await readImportDirectory(directory), { ...bOptions, failAfterItems: 200 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(SimulatedImportFailure);
    expect(await partitionSnapshot(store, own.ref)).toEqual(before);
    await importLibrary(store, own.ref, await readImportDirectory(directory), bOptions);
    expect((await listTemplates(store, own.ref.organizationId, own.ref.libraryId)).map((t) => t.name).sort()).toEqual(['Local ECO', 'Production ECO', 'Quick fix']);
    const clash = await newEmptyLibrary(store, b, uniqueSlug('clash'));
    await createTemplate(store, { ...clash.ref, userId: b.user.id }, { name: 'quick FIX', template: templateDocument([b.user.id]) });
    const clashed = await importLibrary(store, clash.ref, await readImportDirectory(directory), bOptions).catch((e: unknown) => e);
    expect((clashed as ImportInvalidError).problems).toEqual([expect.objectContaining({ path: 'library.json: changeOrderTemplates[1].name', code: 'TEMPLATE_NAME_TAKEN' })]);

    // An organization where the notified user is not a member: IMPORT_INVALID with the path, nothing written.
    const c = await newTenant();
    await addMember(store, { orgSlug: c.organization.slug, email: reviewer.email, role: 'VIEWER' });
    const cTarget = await newEmptyLibrary(store, c, uniqueSlug('nomember'));
    const cBefore = await partitionSnapshot(store, cTarget.ref);
    const refused = await importLibrary(store, cTarget.ref, await readImportDirectory(directory), { ...options(c), blobs: stackFiles() }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ImportInvalidError);
    expect((refused as ImportInvalidError).problems.map((p) => [p.path, p.code]).sort()).toEqual([
      ['library.json: changeOrderTemplates[0].document.stages.open[0].notifyList.users[0]', 'PARTICIPANT_NOT_IN_ORGANIZATION'],
      ['library.json: changeOrderTemplates[0].document.stages.open[0].reviewers.users[1]', 'PARTICIPANT_NOT_IN_ORGANIZATION'],
      ['library.json: changeOrderTemplates[1].document.stages.resolved.notifyList.users[0]', 'PARTICIPANT_NOT_IN_ORGANIZATION'],
    ]);
    expect(await partitionSnapshot(store, cTarget.ref)).toEqual(cBefore);

    // A missing or corrupt file is a problem too.
    const [first, second] = exported.manifest.files!;
    await writeBytes(join(directory, 'files', first!.id), Buffer.from('not the drawing'));
    await rm(join(directory, 'files', second!.id));
    const broken = await newEmptyLibrary(store, b, uniqueSlug('broken'));
    const brokenBefore = await partitionSnapshot(store, broken.ref);
    const corrupt = await importLibrary(store, broken.ref, await readImportDirectory(directory), bOptions).catch((e: unknown) => e);
    expect((corrupt as ImportInvalidError).problems.map((p) => [p.path, p.code])).toEqual([
      ['library.json: files[0]', 'FILE_CORRUPT'],
      ['library.json: files[1]', 'FILE_MISSING'],
    ]);
    expect(await partitionSnapshot(store, broken.ref)).toEqual(brokenBefore);
  });

  it("import-abort deletes the templates and files of the abandoned import, never the library's own", async () => {
    const t = await newTenant();
    const target = await newEmptyLibrary(store, t, uniqueSlug('abort'));
    const ownTemplate = { id: 'own', organizationId: target.ref.organizationId, libraryId: target.ref.libraryId, name: 'Own', document: {}, createdAt: 'now', createdBy: t.user.id };
    const file = (id: string) => ({
      id,
      organizationId: target.ref.organizationId,
      libraryId: target.ref.libraryId,
      name: `${id}.pdf`,
      contentType: 'application/pdf',
      size: 3,
      sha256: 'ab',
      status: 'READY' as const,
      storageKey: `k/${id}`,
      createdAt: 'now',
      createdBy: t.user.id,
      completedAt: 'now',
    });
    const ownFile = file(randomUUID());
    await putItemsInParallel(store, [...importedTemplateItems(ownTemplate, 'an-earlier-import'), importedFileItem(ownFile, 'an-earlier-import')], 1);
    const before = await partitionSnapshot(store, target.ref);
    await markLibraryImporting(store, target.ref.organizationId, target.ref.libraryId, { importId: 'crashed', startedAt: 'now', startedBy: t.user.id });
    await putItemsInParallel(store, [...importedTemplateItems({ ...ownTemplate, id: 'imported', name: 'Imported' }, 'crashed'), importedFileItem(file(randomUUID()), 'crashed')], 1);
    expect(await abandonLibraryImport(store, target.ref, 'crashed')).toEqual({ deleted: 3 });
    expect(await partitionSnapshot(store, target.ref)).toEqual(before);
    expect((await listFileRecords(store, target.ref.organizationId, target.ref.libraryId)).map((f) => f.id)).toEqual([ownFile.id]);
  });

  it('round-trips 10,000 components and their BOMs', { timeout: 600_000 }, async () => {
    const big = await newTenant();
    const from: LibraryTarget = { ...big, ref: { organizationId: big.organization.id, libraryId: big.library.id } };
    // The source library: 10,000 components (400 assemblies with 20-line BOMs, document links) loaded from CSV.
    const { componentsCsv, bomCsv } = syntheticLibraryCsv(10_000);
    await importLibrary(store, from.ref, { kind: 'csv', manifest: null, componentsCsv, bomCsv }, options(big));
    const started = performance.now();
    const { result, exported, target } = await roundTrip(from);
    console.log(`10,000-component round trip: export + files + import ${Math.round(performance.now() - started)} ms, import ${result.durationMs} ms, ${result.itemsWritten} items`);
    expect(exported.manifest.counts.bomLines).toBeGreaterThan(7_000);
    expect(result.components).toBe(10_000);
    expect(await canonicalLibrary(store, target.ref)).toEqual(canonical(exported));
    expect((await readManifest(store, target.ref)).blocks.reduce((n, block) => n + block.rows, 0)).toBe(10_000);
  });
});
