import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, newTenant, testStore, type Tenant } from '../support/api.js';
import { uploadFile } from '../support/files.js';
import { emptyLibraryTenant, sourcedResistor } from './transferHelpers.js';

/**
 * Sourcing through a library export and import by the API, as an ERP integrator does it: what comes back
 * must be what went out (found by probing: a CSV export its own import refused or changed, a JSON import
 * that kept price breaks out of order).
 */

const store = testStore();
const exportMutation = `mutation($input: ExportLibraryInput) { transfer { exportLibrary(input: $input) { files { name downloadUrl } } } }`;
const importMutation = `mutation($input: ImportLibraryInput!) { transfer { importLibrary(input: $input) { id } } }`;
const jobQuery = `query($id: ID!) { transfer { importJob(id: $id) { status problems { path code message } } } }`;
const sourcingQuery = `{ component { findAll { edges { node { cpn vendorSourcing {
  parts { mpn isLegacyImport approval manufacturer { name } isPrimary
    quotes { distributor { name } currency unitPrice moq isLegacyImport isPrimary priceBreaks { minQuantity unitPrice } } } } } } } } }`;

interface Job {
  status: string;
  problems: { path: string; code: string; message: string }[];
}

let source: Tenant;
const sourcing = (t: Tenant) => gqlOk<{ component: { findAll: { edges: { node: unknown }[] } } }>(t, sourcingQuery).then((r) => r.component.findAll.edges.map((e) => e.node));

async function exportFiles(format: 'JSON' | 'CSV'): Promise<{ name: string; bytes: Buffer }[]> {
  const files = (await gqlOk<{ transfer: { exportLibrary: { files: { name: string; downloadUrl: string }[] } } }>(source, exportMutation, { input: { format } })).transfer.exportLibrary.files;
  return Promise.all(files.map(async (f) => ({ name: f.name, bytes: Buffer.from(await (await fetch(f.downloadUrl)).arrayBuffer()) })));
}

async function importInto(target: Tenant, files: Record<string, { bytes: Buffer; name: string; contentType: string }>): Promise<Job> {
  const ids: Record<string, string> = {};
  for (const [field, f] of Object.entries(files)) ids[field] = (await uploadFile(target, f.bytes, { name: f.name, contentType: f.contentType })).id;
  const { id } = (await gqlOk<{ transfer: { importLibrary: { id: string } } }>(target, importMutation, { input: ids })).transfer.importLibrary;
  for (let attempt = 0; attempt < 600; attempt++) {
    const job = (await gqlOk<{ transfer: { importJob: Job } }>(target, jobQuery, { id })).transfer.importJob;
    if (job.status === 'SUCCEEDED' || job.status === 'FAILED') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Import job ${id} did not finish`);
}

beforeAll(async () => {
  source = await newTenant();
  const component = await sourcedResistor(source);
  const part = async (input: Record<string, unknown>) =>
    (
      await gqlOk<{ vendorSourcing: { createPart: { id: string } } }>(source, 'mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { id } } }', {
        input: { componentId: component.id, manufacturerName: 'Yageo', ...input },
      })
    ).vendorSourcing.createPart.id;
  const quote = async (input: Record<string, unknown>) =>
    (
      await gqlOk<{ vendorSourcing: { createQuote: { id: string } } }>(source, 'mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { id } } }', {
        input: { componentId: component.id, distributorName: 'DigiKey', currency: 'USD', ...input },
      })
    ).vendorSourcing.createQuote.id;
  // A part from a legacy cost migration that was since quoted anew, and a part of its own whose only quote is a migrated one.
  const migrated = await part({ mpn: 'RC0603FR-07470RL', approval: 'APPROVED', isLegacyImport: true });
  await quote({ partId: migrated, unitPrice: 0.03, isLegacyImport: true });
  // Two quotes of one distributor on the same terms (last year's and this year's prices): two quotes, not one.
  const current = await quote({
    partId: migrated,
    priceBreaks: [
      { minQuantity: 1, unitPrice: 0.02 },
      { minQuantity: 1000, unitPrice: 0.01 },
    ],
  });
  await gqlOk(source, 'mutation($input: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $input) { componentId } } }', {
    input: { componentId: component.id, partId: migrated, quoteId: current },
  });
  const alternate = await part({ mpn: 'RC0603JR-07470RL', approval: 'PROTOTYPE_ONLY' });
  await quote({ partId: alternate, unitPrice: 0.04, moq: 100, isLegacyImport: true });
});

describe('sourcing through a library export and import by the API', () => {
  it('a CSV export imports back identical: quotes of one distributor on the same terms stay apart, legacy flags stay on the part or the quote they were on', async () => {
    const before = await sourcing(source);
    const files = await exportFiles('CSV');
    const file = (suffix: string) => ({ ...files.find((f) => f.name.endsWith(suffix))!, contentType: 'text/csv' });
    const target = await emptyLibraryTenant(store, source, 'src');
    const job = await importInto(target, { fileId: file('components.csv'), bomFileId: file('bom.csv'), sourcingFileId: file('sourcing.csv') });
    expect(job).toEqual({ status: 'SUCCEEDED', problems: [] });
    expect(await sourcing(target)).toEqual(before);
  });

  it('a JSON import keeps price breaks by minQuantity, so Quote.unitPrice is the smallest break’s price', async () => {
    const [file] = await exportFiles('JSON');
    const bundle = JSON.parse(file!.bytes.toString('utf8'));
    // An integrator's generator writes the breaks in its own order.
    for (const c of bundle.components) for (const p of c.sourcing?.parts ?? []) for (const q of p.quotes) q.priceBreaks.reverse();
    const target = await emptyLibraryTenant(store, source, 'src');
    const job = await importInto(target, { fileId: { name: 'export.json', bytes: Buffer.from(JSON.stringify(bundle)), contentType: 'application/json' } });
    expect(job).toEqual({ status: 'SUCCEEDED', problems: [] });
    const [imported] = (await sourcing(target)) as { vendorSourcing: { parts: { quotes: { unitPrice: number; priceBreaks: { minQuantity: number }[] }[] }[] } }[];
    const quotes = imported!.vendorSourcing.parts.flatMap((p) => p.quotes);
    expect(quotes.find((q) => q.priceBreaks.length === 2)).toEqual(
      expect.objectContaining({
        unitPrice: 0.02,
        priceBreaks: [
          { minQuantity: 1, unitPrice: 0.02 },
          { minQuantity: 1000, unitPrice: 0.01 },
        ],
      }),
    );
    expect(await sourcing(target)).toEqual(await sourcing(source));
  });
});
