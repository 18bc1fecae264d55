import * as z from 'zod';
import { LibraryImportError, type ImportProblem } from '../errors.js';
import type { Store } from './client.js';
import { getItem, transactWrite, updateIf, type Key, queryPrefix } from './items.js';
import { libraryKey, libraryPartition } from './library.js';

/**
 * An import through the API (lib/transfer/jobs.ts): ONE item per job in the library partition,
 * `IMPORTJOB#<jobId>`. The library item's `importJob` names the job that holds the library (at most one:
 * the pointer is put with the job, in one transaction, on condition that no unfinished job holds it). The
 * table's stream delivers the job's INSERT to the jobs function, which runs it and records its progress,
 * heartbeat and final state on this item.
 */

export const importJobStatuses = ['QUEUED', 'VALIDATING', 'WRITING', 'SUCCEEDED', 'FAILED'] as const;
export type ImportJobStatus = (typeof importJobStatuses)[number];
export const unfinishedImportJobStatuses: readonly ImportJobStatus[] = ['QUEUED', 'VALIDATING', 'WRITING'];

/** The entity name the stream filter selects (lib/transfer/jobStream.ts). */
export const importJobEntity = 'ImportJob';

const counts = z.object({
  components: z.number().int(),
  bomLines: z.number().int(),
  documentLinks: z.number().int(),
  historyRecords: z.number().int(),
  comments: z.number().int().optional(),
  watches: z.number().int().optional(),
  watchesDropped: z.number().int().optional(),
  commentAuthorsUnmatched: z.number().int().optional(),
  auditEntries: z.number().int().optional(),
});

export const importJobRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  status: z.enum(importJobStatuses),
  format: z.enum(['JSON', 'CSV']),
  fileId: z.string(),
  bomFileId: z.string().nullable(),
  /** A CSV import's sourcing.csv file, and whether it is a legacy cost sheet (absent on jobs recorded before). */
  sourcingFileId: z.string().nullable().optional(),
  legacy: z.boolean().optional(),
  createdAt: z.string(),
  createdBy: z.string(),
  /** Who the import acts as (history records, configuration versions): the requester's principal. */
  principalId: z.string(),
  actingIntegrationId: z.string().nullable(),
  /** The library of the API key that started the job (null: a session or a Bearer token): such a key copies no other library's files. */
  keyLibraryId: z.string().nullable().default(null),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Touched by the running worker at least every heartbeat interval; a stale one means the worker died. */
  heartbeatAt: z.string(),
  components: z.number().int().nullable(),
  itemsWritten: z.number().int(),
  itemsTotal: z.number().int().nullable(),
  counts: counts.nullable(),
  durationMs: z.number().int().nullable(),
  problems: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })),
  problemCount: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type ImportJobRecord = z.infer<typeof importJobRecord>;

/** Finished jobs expire with TTL after 30 days. */
const finishedTtlSeconds = 30 * 24 * 60 * 60;
/** Problems are kept up to this many bytes of JSON, so that the item stays well under DynamoDB's 400 KB. */
const maxProblemBytes = 300_000;

export const importJobKey = (orgId: string, libraryId: string, jobId: string): Key => ({ PK: libraryPartition(orgId, libraryId), SK: `IMPORTJOB#${jobId}` });

const ref = (job: Pick<ImportJobRecord, 'organizationId' | 'libraryId' | 'id'>) => importJobKey(job.organizationId, job.libraryId, job.id);

/** The library's pointer to the job holding it. */
export const libraryImportJobRef = z.object({ jobId: z.string(), createdAt: z.string() });

/**
 * Puts a new (QUEUED) job and points the library at it, in one transaction. The library must exist, not be
 * closed by an import, and hold no job pointer, or the pointer of `replacing` (a finished job whose worker
 * did not release it). LIBRARY_IMPORT_IN_PROGRESS otherwise.
 */
export async function createImportJob(store: Store, job: ImportJobRecord, replacing: string | null): Promise<void> {
  const inProgress = () => new LibraryImportError('LIBRARY_IMPORT_IN_PROGRESS', 'Another import into this library is queued or running; wait for its job to finish (transfer.importJobs)');
  await transactWrite(
    store,
    [
      { Put: { Item: { ...ref(job), entity: importJobEntity, ...job }, ConditionExpression: 'attribute_not_exists(PK)' } },
      {
        Update: {
          Key: libraryKey(job.organizationId, job.libraryId),
          UpdateExpression: 'SET importJob = :job',
          // With `replacing`: its worker may release the pointer meanwhile, which is as good.
          ConditionExpression: `attribute_exists(PK) AND attribute_not_exists(importing) AND ${replacing ? '(attribute_not_exists(importJob) OR importJob.jobId = :replacing)' : 'attribute_not_exists(importJob)'}`,
          ExpressionAttributeValues: { ':job': { jobId: job.id, createdAt: job.createdAt }, ...(replacing ? { ':replacing': replacing } : {}) },
        },
      },
    ],
    { otherwise: inProgress, onConflict: inProgress },
  );
}

export function getImportJob(store: Store, orgId: string, libraryId: string, jobId: string): Promise<ImportJobRecord | undefined> {
  return getItem(store, importJobKey(orgId, libraryId, jobId), importJobRecord, 'import job');
}

/** Every job of the library (few: only an empty library accepts one, and finished jobs expire). */
export function listImportJobs(store: Store, orgId: string, libraryId: string): Promise<ImportJobRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'IMPORTJOB#', importJobRecord, 'import job');
}

type JobFields = Partial<Omit<ImportJobRecord, 'id' | 'organizationId' | 'libraryId'>> & { expiresAt?: number };

function setExpression(fields: JobFields) {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  return {
    UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
  };
}

/** An update of a job on condition that its status is one of `from` (a job never leaves SUCCEEDED or FAILED). */
function jobUpdate(job: Pick<ImportJobRecord, 'organizationId' | 'libraryId' | 'id'>, from: readonly ImportJobStatus[], fields: JobFields) {
  const set = setExpression(fields);
  const statuses = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]));
  return {
    Key: ref(job),
    UpdateExpression: set.UpdateExpression,
    ConditionExpression: `#status IN (${Object.keys(statuses).join(', ')})`,
    ExpressionAttributeNames: { ...set.ExpressionAttributeNames, '#status': 'status' },
    ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ...statuses },
  };
}

/** QUEUED -> VALIDATING; false when another delivery of the stream record claimed the job first (or it was failed meanwhile). */
export function claimImportJob(store: Store, job: ImportJobRecord, at: string): Promise<boolean> {
  return updateIf(store, jobUpdate(job, ['QUEUED'], { status: 'VALIDATING', startedAt: at, heartbeatAt: at }));
}

/** Progress and heartbeat of a running job; false when it is no longer running (failed by import-abort). */
export function updateImportJobProgress(store: Store, job: ImportJobRecord, fields: Pick<JobFields, 'status' | 'components' | 'itemsWritten' | 'itemsTotal' | 'heartbeatAt'>): Promise<boolean> {
  return updateIf(store, jobUpdate(job, ['VALIDATING', 'WRITING'], fields));
}

const finishedFields = (at: string) => ({ finishedAt: at, heartbeatAt: at, expiresAt: Math.ceil(Date.parse(at) / 1000) + finishedTtlSeconds });

/** A running job -> SUCCEEDED as a transaction item (its WRITING progress may not have landed yet): it lands in the import's commit transaction, with everything else. */
export function importJobSucceededItem(job: ImportJobRecord, at: string, result: { counts: z.infer<typeof counts>; itemsWritten: number; durationMs: number }): Record<string, unknown> {
  return {
    Update: jobUpdate(job, ['VALIDATING', 'WRITING'], {
      status: 'SUCCEEDED',
      ...finishedFields(at),
      counts: result.counts,
      components: result.counts.components,
      itemsWritten: result.itemsWritten,
      itemsTotal: result.itemsWritten,
      durationMs: result.durationMs,
    }),
  };
}

/** The problems kept on a job: at most `max`, and fewer if their JSON would make the item too large. */
function keptProblems(problems: ImportProblem[], max: number): ImportProblem[] {
  const kept = problems.slice(0, max);
  let bytes = Buffer.byteLength(JSON.stringify(kept));
  while (bytes > maxProblemBytes && kept.length > 0) bytes -= Buffer.byteLength(JSON.stringify(kept.pop()));
  return kept;
}

/** An unfinished job -> FAILED; false when it had finished already. */
export function failImportJob(
  store: Store,
  job: ImportJobRecord,
  at: string,
  failure: { code: string; message: string; problems: ImportProblem[]; problemCount: number; maxProblems: number },
  from: readonly ImportJobStatus[] = unfinishedImportJobStatuses,
): Promise<boolean> {
  return updateIf(
    store,
    jobUpdate(job, from, {
      status: 'FAILED',
      ...finishedFields(at),
      error: { code: failure.code, message: failure.message },
      problems: keptProblems(failure.problems, failure.maxProblems),
      problemCount: failure.problemCount,
    }),
  );
}

/** Removes the library's pointer to a job (finished, or abandoned); nothing when another job holds it. */
export async function releaseLibraryImportJob(store: Store, orgId: string, libraryId: string, jobId: string): Promise<void> {
  await updateIf(store, {
    Key: libraryKey(orgId, libraryId),
    UpdateExpression: 'REMOVE importJob',
    ConditionExpression: 'importJob.jobId = :id',
    ExpressionAttributeValues: { ':id': jobId },
  });
}
