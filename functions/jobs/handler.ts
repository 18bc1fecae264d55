import type { DynamoDBStreamEvent } from 'aws-lambda';
import { blobStorageFromEnv, type BlobStorage } from '../../lib/files/blobStorage.js';
import { createStore } from '../../lib/store/client.js';
import { importJobRecord } from '../../lib/store/importJob.js';
import { changedItemOf, type StreamRecord } from '../../lib/store/stream.js';
import { importJobStreamFilter, matchesStreamFilter } from '../../lib/transfer/jobStream.js';

const store = createStore();
let blobs: BlobStorage | undefined;

/**
 * The fifth function: the table's stream hands it the INSERT of each import job (event filtering keeps
 * everything else away; the same filter is applied here, as the local stack applies it), and it runs the
 * job to SUCCEEDED or FAILED. A claimed job records its own failures; the event source mapping retries a
 * failure before the claim (a retry of a claimed job does nothing).
 */
export async function handler(event: DynamoDBStreamEvent): Promise<{ jobs: { id: string; status: string }[] }> {
  const jobs = [];
  // The import (with its CSV and JSON readers) loads with the first job, not with the function.
  const { runImportJob } = await import('../../lib/transfer/jobs.js');
  for (const record of event.Records.filter((r) => matchesStreamFilter(importJobStreamFilter, r))) {
    const job = importJobRecord.parse(changedItemOf(record as StreamRecord)?.newImage);
    const started = Date.now();
    const status = await runImportJob(store, (blobs ??= blobStorageFromEnv()), job);
    console.log(JSON.stringify({ level: 'INFO', message: 'import job finished', jobId: job.id, libraryId: job.libraryId, status, durationMs: Date.now() - started }));
    jobs.push({ id: job.id, status });
  }
  return { jobs };
}
