import { randomUUID } from 'node:crypto';
import type { PermissionName } from '../access/permissions.js';
import type { LibraryRef, LibraryScope } from '../model/scope.js';
import { DomainError, InvalidInputError, LibraryImportError, NotFoundError } from '../errors.js';
import { ImportInvalidError, maxListedImportProblems } from './errors.js';
import type { BlobStorage } from '../files/port.js';
import { checkFilesReady, readFileBytes } from '../files/files.js';
import { entitlementsOf } from '../orgs/plans.js';
import type { Store } from '../store/client.js';
import { getFiles, type FileRecord } from '../store/file.js';
import {
  claimImportJob,
  createImportJob,
  failImportJob,
  getImportJob,
  importJobSucceededItem,
  listImportJobs,
  releaseLibraryImportJob,
  unfinishedImportJobStatuses,
  updateImportJobProgress,
  type ImportJobRecord,
} from '../store/importJob.js';
import { getLibrary } from '../store/library.js';
import { libraryHasImportedKinds } from '../store/libraryTransfer.js';
import { getOrganization } from '../store/organization.js';
import { readImportBundle } from './files.js';
import { libraryFileBytes } from './fileBytes.js';
import { abandonLibraryImport, importLibrary, type ImportProgress, type ImportSource } from './import.js';

/**
 * Imports through the API run as jobs: API Gateway ends a request at 30 s, and 10,000 components take
 * longer. `importLibrary` checks what is cheap to check (the files, the permissions, an empty library, no
 * other job), records a QUEUED job and answers at once; the table's stream hands the job's INSERT to the
 * jobs function (deployed) or the local stack's poller, which runs `runImportJob`: the import of
 * lib/transfer/import.ts (validate everything, close the library, write, commit), recording its progress
 * and heartbeat on the job, and SUCCEEDED (in the import's own commit transaction) or FAILED.
 */

/** How often a running job touches its heartbeat (progress updates count as heartbeats too). */
export const importJobHeartbeatMs = Number(process.env.IMPORT_JOB_HEARTBEAT_MS) || 30_000;
/** A job unfinished and without a heartbeat for this long has lost its worker (crash, Lambda timeout). */
export const staleImportJobAfterMs = 5 * 60_000;
/** Progress is written at most this often while items are written. */
const progressEveryMs = 2_000;
/** The most recent jobs importJobs lists. */
const listedJobs = 20;

export type ImportFormat = 'JSON' | 'CSV';

/** What the API import needs of the request: its permissions and principal. */
export interface ImportCaller {
  requireLibraryPermission(permission: PermissionName): Promise<void>;
  principalId: string;
  actingIntegrationId: string | null;
  /** The library an API key is bound to, null for a session or a Bearer token. */
  keyLibraryId: string | null;
}

const isCsv = (file: FileRecord) => file.contentType === 'text/csv' || file.name.toLowerCase().endsWith('.csv');

/**
 * Records an import job for a READY file of the library: a JSON bundle as exportLibrary(format: JSON) writes
 * it, or components.csv with bom.csv as a second file. Beside library.settings.update (the operation's rule)
 * the caller needs what the import does: components.create and components.revision.create (imports carry
 * revisions and Not Revision Managed flags as they are), and library.statuses.manage and
 * library.categories.manage for a JSON bundle (it carries configuration documents). Refuses a library that
 * has components (LIBRARY_NOT_EMPTY) or a queued or running job (LIBRARY_IMPORT_IN_PROGRESS). The files'
 * contents are read by the job.
 */
export async function enqueueLibraryImport(
  store: Store,
  scope: LibraryScope,
  caller: ImportCaller,
  input: { fileId: string; bomFileId?: string | null; sourcingFileId?: string | null; legacy?: boolean | null },
): Promise<ImportJobRecord> {
  const { organizationId: org, libraryId: lib } = scope;
  const fileIds = [input.fileId, input.bomFileId, input.sourcingFileId].filter((id): id is string => Boolean(id));
  await checkFilesReady(store, scope, fileIds, true);
  const file = (await getFiles(store, org, lib, [input.fileId])).get(input.fileId)!;
  const format: ImportFormat = isCsv(file) ? 'CSV' : 'JSON';
  if (format === 'JSON' && input.bomFileId) throw new InvalidInputError('bomFileId goes with a components CSV file, not with a JSON bundle', { field: 'input.bomFileId' });
  if (format === 'JSON' && input.sourcingFileId)
    throw new InvalidInputError('sourcingFileId goes with a components CSV file, not with a JSON bundle (it carries its sourcing)', { field: 'input.sourcingFileId' });
  if (input.legacy && !input.sourcingFileId) throw new InvalidInputError('legacy marks the parts and quotes of a sourcing.csv: give sourcingFileId', { field: 'input.legacy' });
  const permissions: PermissionName[] = ['components.create', 'components.revision.create'];
  if (format === 'JSON') permissions.push('library.statuses.manage', 'library.categories.manage');
  for (const permission of permissions) await caller.requireLibraryPermission(permission);

  const [notEmpty, library] = await Promise.all([libraryHasImportedKinds(store, org, lib), getLibrary(store, org, lib)]);
  if (notEmpty) throw new LibraryImportError('LIBRARY_NOT_EMPTY', 'Only an empty library can be imported into: this one has (or had) components. Create a new library for the import.');
  // A pointer to a finished job is left over (its worker stopped before releasing it): the new job replaces it.
  let replacing: string | null = null;
  if (library?.importJob) {
    const holder = await getImportJob(store, org, lib, library.importJob.jobId);
    // A job still QUEUED long after its creation never reached a worker (its stream record was lost): it wrote
    // nothing, so it is failed and replaced. A stale job that started may have written: import-abort cleans it.
    const lost =
      holder?.status === 'QUEUED' &&
      isStaleImportJob(holder) &&
      // False when a worker claimed it after all, just now: then it is in progress.
      (await failImportJob(
        store,
        holder,
        new Date().toISOString(),
        { code: 'IMPORT_ABANDONED', message: 'No worker took this job; a later import replaced it', problems: [], problemCount: 0, maxProblems: 0 },
        ['QUEUED'],
      ));
    if (holder && !lost && unfinishedImportJobStatuses.includes(holder.status)) {
      throw new LibraryImportError('LIBRARY_IMPORT_IN_PROGRESS', `Import job ${holder.id} is ${holder.status} in this library; wait for it to finish (transfer.importJob)`, { jobId: holder.id });
    }
    replacing = library.importJob.jobId;
  }
  const at = new Date().toISOString();
  const job: ImportJobRecord = {
    id: randomUUID(),
    organizationId: org,
    libraryId: lib,
    status: 'QUEUED',
    format,
    fileId: input.fileId,
    bomFileId: input.bomFileId ?? null,
    sourcingFileId: input.sourcingFileId ?? null,
    legacy: input.legacy ?? false,
    createdAt: at,
    createdBy: scope.userId,
    principalId: caller.principalId,
    actingIntegrationId: caller.actingIntegrationId,
    keyLibraryId: caller.keyLibraryId,
    startedAt: null,
    finishedAt: null,
    heartbeatAt: at,
    components: null,
    itemsWritten: 0,
    itemsTotal: null,
    counts: null,
    durationMs: null,
    problems: [],
    problemCount: 0,
    error: null,
  };
  await createImportJob(store, job, replacing);
  return job;
}

export async function findImportJob(store: Store, library: LibraryRef, jobId: string): Promise<ImportJobRecord | null> {
  return (await getImportJob(store, library.organizationId, library.libraryId, jobId)) ?? null;
}

/** The library's most recent jobs, newest first. */
export async function recentImportJobs(store: Store, library: LibraryRef): Promise<ImportJobRecord[]> {
  const jobs = await listImportJobs(store, library.organizationId, library.libraryId);
  return jobs.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, listedJobs);
}

/** An unfinished job whose worker has not been heard of for staleImportJobAfterMs. */
export function isStaleImportJob(job: ImportJobRecord, now = Date.now()): boolean {
  return unfinishedImportJobStatuses.includes(job.status) && now - Date.parse(job.heartbeatAt) > staleImportJobAfterMs;
}

/** The import's input, read from the file store: what the job validates and writes. */
async function readImportSource(store: Store, blobs: BlobStorage, job: ImportJobRecord): Promise<ImportSource> {
  const { bytes } = await readFileBytes(store, blobs, job, job.fileId);
  // The files a bundle lists are copied from the library it was exported from (see libraryFileBytes).
  if (job.format === 'JSON')
    return readImportBundle(bytes.toString('utf8'), (manifest) => libraryFileBytes(store, blobs, manifest.source, { userId: job.createdBy, keyLibraryId: job.keyLibraryId }, 'bundle.source'));
  const [bom, sourcing] = await Promise.all([job.bomFileId, job.sourcingFileId].map((id) => (id ? readFileBytes(store, blobs, job, id) : null)));
  return {
    kind: 'csv',
    manifest: null,
    componentsCsv: bytes.toString('utf8'),
    bomCsv: bom ? bom.bytes.toString('utf8') : null,
    sourcingCsv: sourcing ? sourcing.bytes.toString('utf8') : null,
    legacy: job.legacy ?? false,
  };
}

/**
 * Runs a QUEUED job to its end (the worker: the jobs function, or the local stack's stream poller). A second
 * delivery of the same job does nothing (claiming it is conditional on QUEUED). Never throws a refusal: the
 * job records it (FAILED with its code, message and, for IMPORT_INVALID, its problems). An unexpected
 * failure is recorded as IMPORT_FAILED and rethrown, so that the function's error alarm sees it.
 */
export async function runImportJob(store: Store, blobs: BlobStorage, queued: ImportJobRecord): Promise<'SUCCEEDED' | 'FAILED' | 'NOT_CLAIMED'> {
  // The job as the stream recorded its INSERT: no read that could miss it (the claim is conditional on QUEUED).
  if (!(await claimImportJob(store, queued, new Date().toISOString()))) return 'NOT_CLAIMED';
  const ref: LibraryRef = { organizationId: queued.organizationId, libraryId: queued.libraryId };
  const job = { ...queued, status: 'VALIDATING' as const };

  // Progress and heartbeats are written one at a time, in order; a failed write does not stop the import.
  let writes = Promise.resolve();
  let lastWrite = Date.now();
  const record = (fields: Parameters<typeof updateImportJobProgress>[2]) => {
    lastWrite = Date.now();
    writes = writes
      .then(() => updateImportJobProgress(store, job, { ...fields, heartbeatAt: new Date().toISOString() }))
      .then(
        () => undefined,
        (error: unknown) => console.error(JSON.stringify({ level: 'WARN', message: 'import job: recording progress failed', jobId: job.id, error: String(error) })),
      );
  };
  const heartbeat = setInterval(() => record({}), importJobHeartbeatMs);
  const onProgress = (progress: ImportProgress) => {
    if (progress.phase === 'validated') record({ status: 'WRITING', itemsWritten: 0, itemsTotal: progress.total });
    else if (progress.phase === 'writing' && Date.now() - lastWrite >= progressEveryMs) record({ itemsWritten: progress.written });
  };
  try {
    const organization = await getOrganization(store, ref.organizationId);
    if (!organization) throw new NotFoundError('Organization', ref.organizationId);
    const source = await readImportSource(store, blobs, job);
    await importLibrary(store, ref, source, {
      importId: job.id,
      actor: { userId: job.createdBy, principalId: job.principalId, actingIntegrationId: job.actingIntegrationId, at: job.createdAt },
      entitlements: entitlementsOf(organization),
      blobs,
      onProgress,
      commitItems: (result) => [
        importJobSucceededItem(job, new Date().toISOString(), {
          counts: {
            components: result.components,
            bomLines: result.bomLines,
            documentLinks: result.documentLinks,
            historyRecords: result.historyRecords,
            comments: result.comments,
            watches: result.watches,
            watchesDropped: result.watchesDropped,
            commentAuthorsUnmatched: result.commentAuthorsUnmatched,
            auditEntries: result.auditEntriesSkipped,
          },
          itemsWritten: result.itemsWritten,
          durationMs: result.durationMs,
        }),
      ],
    });
  } catch (error) {
    clearInterval(heartbeat);
    await writes;
    const refusal = error instanceof DomainError;
    const problems = error instanceof ImportInvalidError ? error.problems : [];
    await failImportJob(store, job, new Date().toISOString(), {
      code: refusal ? error.code : 'IMPORT_FAILED',
      message: refusal ? error.message : 'The import failed unexpectedly; nothing was written (the service log has the cause)',
      problems,
      problemCount: problems.length,
      maxProblems: maxListedImportProblems,
    });
    await releaseLibraryImportJob(store, ref.organizationId, ref.libraryId, job.id);
    if (!refusal) throw error;
    return 'FAILED';
  }
  clearInterval(heartbeat);
  await writes;
  await releaseLibraryImportJob(store, ref.organizationId, ref.libraryId, job.id);
  return 'SUCCEEDED';
}

/**
 * Finishes an import whose worker died (`npm run admin -- import-abort`): deletes what it wrote and reopens
 * the library (abandonLibraryImport, when the library is closed), marks its job FAILED (IMPORT_ABANDONED)
 * and releases the library. A job whose worker is alive (heartbeat within staleImportJobAfterMs) is left
 * alone unless `force`.
 */
export async function abortLibraryImport(store: Store, target: LibraryRef, options: { force: boolean }): Promise<{ deleted: number; jobId: string | null }> {
  const library = await getLibrary(store, target.organizationId, target.libraryId);
  const job = library?.importJob ? await getImportJob(store, target.organizationId, target.libraryId, library.importJob.jobId) : undefined;
  if (!library?.importing && !job) throw new LibraryImportError('IMPORT_FAILED', 'No import holds this library');
  if (job && !options.force && unfinishedImportJobStatuses.includes(job.status) && !isStaleImportJob(job)) {
    throw new LibraryImportError(
      'LIBRARY_IMPORT_IN_PROGRESS',
      `Import job ${job.id} is ${job.status} and its worker was heard from at ${job.heartbeatAt}; it is stale after ${staleImportJobAfterMs / 60_000} minutes without a heartbeat (or pass --force)`,
      { jobId: job.id },
    );
  }
  const { deleted } = library?.importing ? await abandonLibraryImport(store, target, library.importing.importId) : { deleted: 0 };
  if (job) {
    await failImportJob(store, job, new Date().toISOString(), {
      code: 'IMPORT_ABANDONED',
      message: 'The import stopped without finishing (its worker stopped); an operator removed what it wrote',
      problems: [],
      problemCount: 0,
      maxProblems: 0,
    });
    await releaseLibraryImportJob(store, target.organizationId, target.libraryId, job.id);
  }
  return { deleted, jobId: job?.id ?? null };
}
