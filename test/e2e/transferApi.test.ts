import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/apikeys/apiKeys.js';
import { clearImportMark, markLibraryImporting } from '../../lib/store/libraryTransfer.js';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, uniqueSlug, type Tenant } from '../support/api.js';
import { uploadFile } from './itemHelpers.js';
import { seedContext } from './searchHelpers.js';
import { createComponents } from '../../lib/components/service.js';
import { canonicalLibrary, newEmptyLibrary, partitionSnapshot } from './transferHelpers.js';
import { writeItems } from '../../lib/items/writer.js';

const store = testStore();
let tenant: Tenant;

const exportMutation = `mutation($input: ExportLibraryInput) { transfer { exportLibrary(input: $input) {
  files { id name contentType size status downloadUrl } counts { components bomLines documentLinks historyRecords } } } }`;
const importMutation = `mutation($input: ImportLibraryInput!) { transfer { importLibrary(input: $input) {
  importId itemsWritten durationMs counts { components bomLines documentLinks historyRecords } } } }`;

interface ExportedFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  status: string;
  downloadUrl: string;
}

/** An empty library of the tenant's organization with an API key of its own (the key's owner is the Site Admin). */
async function emptyLibraryTenant(): Promise<Tenant> {
  const slug = uniqueSlug('api');
  const target = await newEmptyLibrary(store, tenant, slug);
  const key = await createApiKey(store, { organizationId: tenant.organization.id, libraryId: target.library.id, userId: tenant.user.id }, { name: 'import' });
  return { ...tenant, library: { ...tenant.library, id: target.library.id, slug, path: `@${tenant.organization.slug}/${slug}` }, apiKey: key.secret };
}

beforeAll(async () => {
  tenant = await newTenant();
  const ctx = await seedContext(store, tenant, new Date().toISOString());
  const [resistor, drawing] = await createComponents(store, ctx, [
    { name: 'Resistor', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 220 }], labels: ['rohs'] },
    { name: 'Drawing', categoryId: 'drawing' },
  ]);
  await writeItems(store, ctx, 'create', [{ name: 'Board', categoryId: 'pcba', children: [{ childId: resistor!.id, quantity: 3, refDes: 'R1-R3' }], documentComponentIds: [drawing!.id] }], {});
});

describe('library export and import through the API', () => {
  it('exports to the file store and imports an uploaded export into an empty library, identical', async () => {
    const exported = (await gqlOk<{ transfer: { exportLibrary: { files: ExportedFile[]; counts: Record<string, number> } } }>(tenant, exportMutation, {})).transfer.exportLibrary;
    expect(exported.counts).toEqual({ components: 3, bomLines: 1, documentLinks: 1, historyRecords: 3 });
    expect(exported.files).toHaveLength(1);
    expect(exported.files[0]).toMatchObject({ contentType: 'application/json', status: 'READY' });
    const bytes = Buffer.from(await (await fetch(exported.files[0]!.downloadUrl)).arrayBuffer());
    expect(bytes.length).toBe(exported.files[0]!.size);

    const target = await emptyLibraryTenant();
    const file = await uploadFile(target, bytes, { name: 'export.json', contentType: 'application/json' });
    const imported = (await gqlOk<{ transfer: { importLibrary: { counts: Record<string, number> } } }>(target, importMutation, { input: { fileId: file.id } })).transfer.importLibrary;
    expect(imported.counts).toEqual(exported.counts);
    const ref = (t: Tenant) => ({ organizationId: t.organization.id, libraryId: t.library.id });
    expect(await canonicalLibrary(store, ref(target))).toEqual(await canonicalLibrary(store, ref(tenant)));
    // The imported components are found by search at once.
    const found = await gqlOk<{ component: { findAll: { totalCount: number } } }>(target, '{ component { findAll { totalCount } } }');
    expect(found.component.findAll.totalCount).toBe(3);
  });

  it('exports CSV and imports components.csv with bom.csv', async () => {
    const exported = (await gqlOk<{ transfer: { exportLibrary: { files: ExportedFile[] } } }>(tenant, exportMutation, { input: { format: 'CSV' } })).transfer.exportLibrary;
    expect(exported.files.map((f) => f.contentType)).toEqual(['text/csv', 'text/csv']);
    const [components, bom] = await Promise.all(exported.files.map(async (f) => Buffer.from(await (await fetch(f.downloadUrl)).arrayBuffer())));
    expect(components!.toString()).toMatch(/^cpn,name,category,status,revision,state,/);
    const target = await emptyLibraryTenant();
    const componentsFile = await uploadFile(target, components!, { name: 'components.csv', contentType: 'text/csv' });
    const bomFile = await uploadFile(target, bom!, { name: 'bom.csv', contentType: 'text/csv' });
    const imported = (await gqlOk<{ transfer: { importLibrary: { counts: Record<string, number> } } }>(target, importMutation, { input: { fileId: componentsFile.id, bomFileId: bomFile.id } })).transfer.importLibrary;
    expect(imported.counts).toEqual({ components: 3, bomLines: 1, documentLinks: 1, historyRecords: 3 });
  });

  it('answers what a client sends wrong with a code, writing nothing', async () => {
    const target = await emptyLibraryTenant();
    const before = await partitionSnapshot(store, { organizationId: target.organization.id, libraryId: target.library.id });
    const garbage = await uploadFile(target, Buffer.from('{"format": "plm-library", "oops"'), { name: 'broken.json', contentType: 'application/json' });
    const after = await partitionSnapshot(store, { organizationId: target.organization.id, libraryId: target.library.id });
    const response = await graphql(importMutation, { input: { fileId: garbage.id } }, tenantHeaders(target));
    expect(response.body.errors?.[0]?.extensions?.code).toBe('IMPORT_INVALID');
    expect((response.body.errors?.[0]?.extensions?.problems as { code: string }[])[0]!.code).toBe('JSON_MALFORMED');
    expect(await partitionSnapshot(store, { organizationId: target.organization.id, libraryId: target.library.id })).toEqual(after);
    expect(after.length).toBe(before.length + 1);

    const missing = await graphql(importMutation, { input: { fileId: '00000000-0000-4000-8000-000000000000' } }, tenantHeaders(target));
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('FILE_NOT_FOUND');
    const notEmpty = await uploadFile(tenant, Buffer.from('cpn,name,category\n'), { name: 'c.csv', contentType: 'text/csv' });
    const refused = await graphql(importMutation, { input: { fileId: notEmpty.id } }, tenantHeaders(tenant));
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('LIBRARY_NOT_EMPTY');
  });

  it('closes the library while an import writes', async () => {
    const target = await emptyLibraryTenant();
    const ref = { organizationId: target.organization.id, libraryId: target.library.id };
    await markLibraryImporting(store, ref.organizationId, ref.libraryId, { importId: 'test-import', startedAt: new Date().toISOString(), startedBy: target.user.id });
    const closed = await graphql('{ component { findAll { totalCount } } }', undefined, tenantHeaders(target));
    expect(closed.body.errors?.[0]?.extensions?.code).toBe('LIBRARY_IMPORT_IN_PROGRESS');
    await clearImportMark(store, ref.organizationId, ref.libraryId, 'test-import');
    expect((await gqlOk<{ component: { findAll: { totalCount: number } } }>(target, '{ component { findAll { totalCount } } }')).component.findAll.totalCount).toBe(0);
  });
});
