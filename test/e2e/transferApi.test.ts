import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clearImportMark, markLibraryImporting } from '../../lib/store/libraryTransfer.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newSession, sessionPutItem } from '../../lib/people/sessions.js';
import { transactWrite } from '../../lib/store/items.js';
import { createImportJob, importJobKey, type ImportJobRecord } from '../../lib/store/importJob.js';
import { abortLibraryImport } from '../../lib/transfer/jobs.js';
import { memberWithRole, refusal } from './accessHelpers.js';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { uploadFile } from '../support/files.js';
import { seedContext } from './searchHelpers.js';
import { createComponents } from '../../lib/components/service.js';
import { canonicalLibrary, emptyLibraryTenant, partitionSnapshot, seedTemplatesAndFiles, sourcedResistor } from './transferHelpers.js';
import { addMember } from '../../lib/orgs/operator.js';
import { listTemplates } from '../../lib/store/changeOrderTemplate.js';
import { listFileRecords } from '../../lib/store/file.js';
import { writeItems } from '../../lib/items/writer.js';

const store = testStore();
let tenant: Tenant;

const exportMutation = `mutation($input: ExportLibraryInput) { transfer { exportLibrary(input: $input) {
  files { id name contentType size status downloadUrl } counts { components bomLines documentLinks historyRecords } } } }`;
const jobFields = `id status format fileId bomFileId progress { components itemsWritten itemsTotal } counts { components bomLines documentLinks historyRecords }
  durationMs problems { path code message } problemCount error { code message } createdAt createdBy { id } startedAt finishedAt heartbeatAt stale`;
const importMutation = `mutation($input: ImportLibraryInput!) { transfer { importLibrary(input: $input) { ${jobFields} } } }`;
const jobQuery = `query($id: ID!) { transfer { importJob(id: $id) { ${jobFields} } } }`;

interface Job {
  id: string;
  status: string;
  format: string;
  progress: { components: number | null; itemsWritten: number; itemsTotal: number | null };
  counts: Record<string, number> | null;
  durationMs: number | null;
  problems: { path: string; code: string; message: string }[];
  problemCount: number;
  error: { code: string; message: string } | null;
  createdAt: string;
  createdBy: { id: string } | null;
  startedAt: string | null;
  finishedAt: string | null;
  stale: boolean;
}

/** Starts an import through the API: the job as importLibrary returns it. */
async function startImport(target: Tenant, input: Record<string, unknown>): Promise<Job> {
  return (await gqlOk<{ transfer: { importLibrary: Job } }>(target, importMutation, { input })).transfer.importLibrary;
}

/** Polls the job until it is SUCCEEDED or FAILED (a bounded wait: the test fails if it never finishes). */
async function finishedJob(target: Tenant, id: string): Promise<Job> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const job = (await gqlOk<{ transfer: { importJob: Job | null } }>(target, jobQuery, { id })).transfer.importJob;
    if (job?.status === 'SUCCEEDED' || job?.status === 'FAILED') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Import job ${id} did not finish`);
}

/** A job as a worker holds it (VALIDATING: the stream's worker finds it claimed and leaves it alone). */
function runningJob(target: Tenant, heartbeatAt: string): ImportJobRecord {
  return {
    id: randomUUID(),
    organizationId: target.organization.id,
    libraryId: target.library.id,
    status: 'VALIDATING',
    format: 'JSON',
    fileId: randomUUID(),
    bomFileId: null,
    createdAt: heartbeatAt,
    createdBy: target.user.id,
    principalId: 'native',
    actingIntegrationId: null,
    keyLibraryId: null,
    startedAt: heartbeatAt,
    finishedAt: null,
    heartbeatAt,
    components: null,
    itemsWritten: 0,
    itemsTotal: null,
    counts: null,
    durationMs: null,
    problems: [],
    problemCount: 0,
    error: null,
  };
}

const withoutJobs = (items: Record<string, unknown>[]) => items.filter((item) => !String(item.SK).startsWith('IMPORTJOB#'));

interface ExportedFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  status: string;
  downloadUrl: string;
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

    const target = await emptyLibraryTenant(store, tenant, 'api');
    const file = await uploadFile(target, bytes, { name: 'export.json', contentType: 'application/json' });
    const queued = await startImport(target, { fileId: file.id });
    expect(queued).toMatchObject({ status: 'QUEUED', format: 'JSON', counts: null, error: null, startedAt: null, finishedAt: null, stale: false, createdBy: { id: target.user.id } });
    const imported = await finishedJob(target, queued.id);
    expect(imported).toMatchObject({ id: queued.id, status: 'SUCCEEDED', counts: exported.counts, error: null, problems: [], problemCount: 0, stale: false });
    expect(imported.progress.components).toBe(3);
    expect(imported.progress.itemsWritten).toBe(imported.progress.itemsTotal);
    expect(imported.startedAt).not.toBeNull();
    expect(imported.finishedAt).not.toBeNull();
    const listed = await gqlOk<{ transfer: { importJobs: { id: string; status: string }[] } }>(target, '{ transfer { importJobs { id status } } }');
    expect(listed.transfer.importJobs).toEqual([{ id: queued.id, status: 'SUCCEEDED' }]);
    const ref = (t: Tenant) => ({ organizationId: t.organization.id, libraryId: t.library.id });
    expect(await canonicalLibrary(store, ref(target))).toEqual(await canonicalLibrary(store, ref(tenant)));
    // The imported components are found by search at once.
    const found = await gqlOk<{ component: { findAll: { totalCount: number } } }>(target, '{ component { findAll { totalCount } } }');
    expect(found.component.findAll.totalCount).toBe(3);
  });

  it('carries change order templates and files into another organization: participants by email, files copied from the source library', { timeout: 60_000 }, async () => {
    const a = await newTenant();
    const { reviewer, notified } = await seedTemplatesAndFiles(store, a);
    const exported = (await gqlOk<{ transfer: { exportLibrary: { files: ExportedFile[] } } }>(a, exportMutation, {})).transfer.exportLibrary;
    const bytes = Buffer.from(await (await fetch(exported.files[0]!.downloadUrl)).arrayBuffer());
    const bundle = JSON.parse(bytes.toString()) as { files: { id: string }[]; changeOrderTemplates: unknown[] };
    expect(bundle.files).toHaveLength(4);
    expect(bundle.changeOrderTemplates).toHaveLength(2);

    // Another organization, whose administrator may export the source library and where the participants are members.
    const b = await newTenant();
    for (const member of [reviewer, notified]) await addMember(store, { orgSlug: b.organization.slug, email: member.email, role: 'VIEWER' });
    await addMember(store, { orgSlug: a.organization.slug, email: b.user.email, role: 'SITE_ADMIN' });
    const ref = (t: Tenant) => ({ organizationId: t.organization.id, libraryId: t.library.id });
    const file = await uploadFile(b, bytes, { name: 'export.json', contentType: 'application/json' });
    // With b's API key (bound to b's library) the files of a's library are out of reach, whatever its owner may do.
    const byKey = await finishedJob(b, (await startImport(b, { fileId: file.id })).id);
    expect(byKey).toMatchObject({ status: 'FAILED', error: { code: 'IMPORT_INVALID' } });
    expect(byKey.problems.map((p) => [p.path, p.code])).toEqual([['bundle.source', 'FILES_NOT_ACCESSIBLE']]);
    // Signed in as the same person (a session), the import copies them.
    const session = newSession(b.user.id);
    await transactWrite(store, [sessionPutItem(session)]);
    const asPerson = { cookie: `__Host-service_session=${session.cookieValue}`, 'x-csrf-token': session.csrfToken, 'x-organization': `@${b.organization.slug}`, 'x-library': b.library.path };
    const started = await graphql<{ transfer: { importLibrary: Job } }>(importMutation, { input: { fileId: file.id } }, asPerson);
    expect(started.body.errors).toBeUndefined();
    const imported = await finishedJob(b, started.body.data!.transfer.importLibrary.id);
    expect(imported).toMatchObject({ status: 'SUCCEEDED', error: null });
    // Authored by the importer where the author (a's Site Admin) is no member of b.
    expect(await canonicalLibrary(store, ref(b))).toEqual(JSON.parse(JSON.stringify(await canonicalLibrary(store, ref(a))).replaceAll(a.user.id, b.user.id)));
    // The copies are files of the target: their ids are new, and the uploaded export is still there.
    const targetFiles = await listFileRecords(store, b.organization.id, b.library.id);
    expect(targetFiles).toHaveLength(5);
    expect(targetFiles.filter((f) => bundle.files.some((g) => g.id === f.id))).toEqual([]);
    const drawing = (
      await gqlOk<{ component: { findAll: { edges: { node: { name: string; file: { name: string; downloadUrl: string } | null } }[] } } }>(
        b,
        '{ component { findAll { edges { node { name file { name downloadUrl } } } } } }',
      )
    ).component.findAll.edges.find((e) => e.node.name === 'Controller drawing')!.node;
    expect(drawing.file?.name).toBe('controller-rev-b.pdf');
    expect((await fetch(drawing.file!.downloadUrl)).status).toBe(200);

    // An organization where the notified user is not a member, imported by a user who may not export the source:
    // the job fails with every problem and the library is as it was.
    const c = await newTenant();
    await addMember(store, { orgSlug: c.organization.slug, email: reviewer.email, role: 'VIEWER' });
    const upload = await uploadFile(c, bytes, { name: 'export.json', contentType: 'application/json' });
    const before = await partitionSnapshot(store, ref(c));
    const failed = await finishedJob(c, (await startImport(c, { fileId: upload.id })).id);
    expect(failed).toMatchObject({ status: 'FAILED', error: { code: 'IMPORT_INVALID' } });
    expect(failed.problems.map((p) => [p.path, p.code]).sort()).toEqual([
      ['bundle.changeOrderTemplates[0].document.stages.open[0].notifyList.users[0]', 'PARTICIPANT_NOT_IN_ORGANIZATION'],
      ['bundle.changeOrderTemplates[0].document.stages.open[0].reviewers.users[1]', 'PARTICIPANT_NOT_IN_ORGANIZATION'],
      ['bundle.changeOrderTemplates[1].document.stages.resolved.notifyList.users[0]', 'PARTICIPANT_NOT_IN_ORGANIZATION'],
      ['bundle.source', 'FILES_NOT_ACCESSIBLE'],
    ]);
    expect(withoutJobs(await partitionSnapshot(store, ref(c)))).toEqual(withoutJobs(before));
    expect(await listTemplates(store, c.organization.id, c.library.id)).toEqual([]);
  });

  it('exports CSV and imports components.csv with bom.csv', async () => {
    const exported = (await gqlOk<{ transfer: { exportLibrary: { files: ExportedFile[] } } }>(tenant, exportMutation, { input: { format: 'CSV' } })).transfer.exportLibrary;
    expect(exported.files.map((f) => f.contentType)).toEqual(['text/csv', 'text/csv']);
    const [components, bom] = await Promise.all(exported.files.map(async (f) => Buffer.from(await (await fetch(f.downloadUrl)).arrayBuffer())));
    expect(components!.toString()).toMatch(/^cpn,name,category,status,revision,state,/);
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const componentsFile = await uploadFile(target, components!, { name: 'components.csv', contentType: 'text/csv' });
    const bomFile = await uploadFile(target, bom!, { name: 'bom.csv', contentType: 'text/csv' });
    const queued = await startImport(target, { fileId: componentsFile.id, bomFileId: bomFile.id });
    expect(queued).toMatchObject({ status: 'QUEUED', format: 'CSV' });
    const imported = await finishedJob(target, queued.id);
    expect(imported).toMatchObject({ status: 'SUCCEEDED', counts: { components: 3, bomLines: 1, documentLinks: 1, historyRecords: 3 } });
    expect((await gqlOk<{ component: { findAll: { totalCount: number } } }>(target, '{ component { findAll { totalCount } } }')).component.findAll.totalCount).toBe(3);
  });

  it('answers what a client sends wrong with a code, writing nothing', async () => {
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const before = await partitionSnapshot(store, { organizationId: target.organization.id, libraryId: target.library.id });
    const garbage = await uploadFile(target, Buffer.from('{"format": "plm-library", "oops"'), { name: 'broken.json', contentType: 'application/json' });
    const after = await partitionSnapshot(store, { organizationId: target.organization.id, libraryId: target.library.id });
    // A file the job cannot read ends the job FAILED with its problems, having written nothing.
    const failed = await finishedJob(target, (await startImport(target, { fileId: garbage.id })).id);
    expect(failed).toMatchObject({ status: 'FAILED', error: { code: 'IMPORT_INVALID' }, counts: null, problemCount: 1 });
    expect(failed.problems[0]!.code).toBe('JSON_MALFORMED');
    expect(withoutJobs(await partitionSnapshot(store, { organizationId: target.organization.id, libraryId: target.library.id }))).toEqual(after);
    expect(after.length).toBe(before.length + 1);

    // A bundle with problems lists each of them on the job.
    const bad = { format: 'plm-library', formatVersion: 1, components: [{ cpn: 1 }, { cpn: 2 }] };
    const badFile = await uploadFile(target, Buffer.from(JSON.stringify(bad)), { name: 'bad.json', contentType: 'application/json' });
    const invalid = await finishedJob(target, (await startImport(target, { fileId: badFile.id })).id);
    expect(invalid).toMatchObject({ status: 'FAILED', error: { code: 'IMPORT_INVALID' } });
    expect(invalid.problemCount).toBeGreaterThan(1);
    expect(invalid.problems).toHaveLength(invalid.problemCount);
    expect((await gqlOk<{ component: { findAll: { totalCount: number } } }>(target, '{ component { findAll { totalCount } } }')).component.findAll.totalCount).toBe(0);

    const withBom = await graphql(importMutation, { input: { fileId: garbage.id, bomFileId: garbage.id } }, tenantHeaders(target));
    expect(withBom.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');

    const missing = await graphql(importMutation, { input: { fileId: '00000000-0000-4000-8000-000000000000' } }, tenantHeaders(target));
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('FILE_NOT_FOUND');
    const notEmpty = await uploadFile(tenant, Buffer.from('cpn,name,category\n'), { name: 'c.csv', contentType: 'text/csv' });
    const refused = await graphql(importMutation, { input: { fileId: notEmpty.id } }, tenantHeaders(tenant));
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('LIBRARY_NOT_EMPTY');
  });

  it('closes the library while an import writes', async () => {
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const ref = { organizationId: target.organization.id, libraryId: target.library.id };
    await markLibraryImporting(store, ref.organizationId, ref.libraryId, { importId: 'test-import', startedAt: new Date().toISOString(), startedBy: target.user.id });
    const closed = await graphql('{ component { findAll { totalCount } } }', undefined, tenantHeaders(target));
    expect(closed.body.errors?.[0]?.extensions?.code).toBe('LIBRARY_IMPORT_IN_PROGRESS');
    // The import's job can be followed meanwhile.
    expect((await gqlOk<{ transfer: { importJobs: unknown[] } }>(target, '{ transfer { importJobs { id } } }')).transfer.importJobs).toEqual([]);
    await clearImportMark(store, ref.organizationId, ref.libraryId, 'test-import');
    expect((await gqlOk<{ component: { findAll: { totalCount: number } } }>(target, '{ component { findAll { totalCount } } }')).component.findAll.totalCount).toBe(0);
  });

  it('runs one job per library: a second import is refused while one is queued or running', async () => {
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const ref = { organizationId: target.organization.id, libraryId: target.library.id };
    const running = runningJob(target, new Date().toISOString());
    await createImportJob(store, running, null);
    const file = await uploadFile(target, Buffer.from('cpn,name,category\n'), { name: 'c.csv', contentType: 'text/csv' });
    const refused = await graphql(importMutation, { input: { fileId: file.id } }, tenantHeaders(target));
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'LIBRARY_IMPORT_IN_PROGRESS', jobId: running.id });
    // Two requests racing for the library: the conditional write lets one job in.
    await expect(createImportJob(store, { ...runningJob(target, new Date().toISOString()), status: 'QUEUED' }, null)).rejects.toMatchObject({ code: 'LIBRARY_IMPORT_IN_PROGRESS' });

    // The worker is alive (fresh heartbeat): import-abort leaves it alone.
    await expect(abortLibraryImport(store, ref, { force: false })).rejects.toMatchObject({ code: 'LIBRARY_IMPORT_IN_PROGRESS' });
    expect((await gqlOk<{ transfer: { importJob: Job } }>(target, jobQuery, { id: running.id })).transfer.importJob).toMatchObject({ status: 'VALIDATING', stale: false });
  });

  it('shows a job whose worker died as stale; import-abort fails it and frees the library', async () => {
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const ref = { organizationId: target.organization.id, libraryId: target.library.id };
    const dead = runningJob(target, new Date(Date.now() - 10 * 60_000).toISOString());
    await createImportJob(store, dead, null);
    await markLibraryImporting(store, ref.organizationId, ref.libraryId, { importId: dead.id, startedAt: dead.startedAt!, startedBy: target.user.id });
    expect((await gqlOk<{ transfer: { importJob: Job } }>(target, jobQuery, { id: dead.id })).transfer.importJob).toMatchObject({ status: 'VALIDATING', stale: true });

    expect(await abortLibraryImport(store, ref, { force: false })).toMatchObject({ jobId: dead.id });
    expect((await gqlOk<{ transfer: { importJob: Job } }>(target, jobQuery, { id: dead.id })).transfer.importJob).toMatchObject({
      status: 'FAILED',
      error: { code: 'IMPORT_ABANDONED' },
      stale: false,
    });
    const exported = (await gqlOk<{ transfer: { exportLibrary: { files: ExportedFile[] } } }>(tenant, exportMutation, {})).transfer.exportLibrary;
    const bytes = Buffer.from(await (await fetch(exported.files[0]!.downloadUrl)).arrayBuffer());
    const file = await uploadFile(target, bytes, { name: 'export.json', contentType: 'application/json' });
    expect(await finishedJob(target, (await startImport(target, { fileId: file.id })).id)).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('replaces a job that stayed QUEUED because no worker ever got it, with no operator', async () => {
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const at = new Date(Date.now() - 10 * 60_000).toISOString();
    const lost = { ...runningJob(target, at), startedAt: null };
    // Written as VALIDATING (the stream's worker leaves it alone), then set back to QUEUED by a MODIFY, which the
    // worker's filter (INSERTs only) never sees: a job whose stream record was lost.
    await createImportJob(store, lost, null);
    await store.ddb.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: importJobKey(lost.organizationId, lost.libraryId, lost.id),
        UpdateExpression: 'SET #s = :q',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':q': 'QUEUED' },
      }),
    );
    expect((await gqlOk<{ transfer: { importJob: Job } }>(target, jobQuery, { id: lost.id })).transfer.importJob).toMatchObject({ status: 'QUEUED', stale: true });

    const exported = (await gqlOk<{ transfer: { exportLibrary: { files: ExportedFile[] } } }>(tenant, exportMutation, {})).transfer.exportLibrary;
    const bytes = Buffer.from(await (await fetch(exported.files[0]!.downloadUrl)).arrayBuffer());
    const file = await uploadFile(target, bytes, { name: 'export.json', contentType: 'application/json' });
    const replacement = await startImport(target, { fileId: file.id });
    expect((await gqlOk<{ transfer: { importJob: Job } }>(target, jobQuery, { id: lost.id })).transfer.importJob).toMatchObject({ status: 'FAILED', error: { code: 'IMPORT_ABANDONED' } });
    expect(await finishedJob(target, replacement.id)).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('needs library.settings.update to start or follow an import', async () => {
    const viewer = await memberWithRole(tenant, 'VIEWER');
    const editor = await memberWithRole(tenant, 'EDITOR');
    for (const member of [viewer, editor]) {
      expect(await refusal(member.headers, importMutation, { input: { fileId: randomUUID() } })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(await refusal(member.headers, jobQuery, { id: randomUUID() })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(await refusal(member.headers, '{ transfer { importJobs { id } } }')).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    }
    // A job of another library is not found through this one.
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const other = await startImport(target, { fileId: (await uploadFile(target, Buffer.from('{'), { name: 'x.json', contentType: 'application/json' })).id });
    expect((await gqlOk<{ transfer: { importJob: Job | null } }>(tenant, jobQuery, { id: other.id })).transfer.importJob).toBeNull();
  });
});

describe('a CSV import through the API with sourcing.csv', () => {
  it('imports manufacturer parts and quotes from sourcingFileId, marked as a legacy cost sheet when asked', { timeout: 60_000 }, async () => {
    const source = await newTenant();
    const part = await sourcedResistor(source);
    const created = await gqlOk<{ vendorSourcing: { createPart: { id: string } } }>(source, 'mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { id } } }', {
      input: { componentId: part.id, manufacturerName: 'Yageo', mpn: 'RC0603FR-07470RL', approval: 'APPROVED' },
    });
    await gqlOk(source, 'mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { id } } }', {
      input: { componentId: part.id, partId: created.vendorSourcing.createPart.id, distributorName: 'DigiKey', currency: 'USD', unitPrice: 0.02, moq: 100 },
    });
    const exported = (await gqlOk<{ transfer: { exportLibrary: { files: ExportedFile[] } } }>(source, exportMutation, { input: { format: 'CSV' } })).transfer.exportLibrary;
    expect(exported.files.map((f) => f.name.replace(/^.*-/, ''))).toEqual(['components.csv', 'bom.csv', 'sourcing.csv']);
    const [components, bom, sourcing] = await Promise.all(exported.files.map(async (f) => Buffer.from(await (await fetch(f.downloadUrl)).arrayBuffer())));
    const target = await emptyLibraryTenant(store, tenant, 'api');
    const upload = (bytes: Buffer | undefined, name: string) => uploadFile(target, bytes!, { name, contentType: 'text/csv' });
    const [componentsFile, bomFile, sourcingFile] = [await upload(components, 'components.csv'), await upload(bom, 'bom.csv'), await upload(sourcing, 'sourcing.csv')];
    const refused = await graphql(importMutation, { input: { fileId: componentsFile.id, legacy: true } }, tenantHeaders(target));
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const queued = await startImport(target, { fileId: componentsFile.id, bomFileId: bomFile.id, sourcingFileId: sourcingFile.id, legacy: true });
    expect(await finishedJob(target, queued.id)).toMatchObject({ status: 'SUCCEEDED', counts: { components: 1 } });
    const found = await gqlOk<{
      component: { findAll: { edges: { node: { vendorSourcing: { parts: { mpn: string; isLegacyImport: boolean; quotes: { unitPrice: number; isLegacyImport: boolean }[] }[] } } }[] } };
    }>(target, '{ component { findAll { edges { node { vendorSourcing { parts { mpn isLegacyImport quotes { unitPrice isLegacyImport } } } } } } } }');
    expect(found.component.findAll.edges[0]!.node.vendorSourcing.parts).toEqual([{ mpn: 'RC0603FR-07470RL', isLegacyImport: true, quotes: [{ unitPrice: 0.02, isLegacyImport: true }] }]);
  });
});
