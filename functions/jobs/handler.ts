import type { DynamoDBStreamEvent } from 'aws-lambda';
import { changeOrderMailStreamFilter } from '../../lib/changeOrders/mailStream.js';
import { sendChangeOrderMails, sendDueChangeOrderMails, type MailSweepResult } from '../../lib/changeOrders/notifications.js';
import { blobStorageFromEnv } from '../../lib/files/blobStorage.js';
import type { BlobStorage } from '../../lib/files/port.js';
import { settleCommittedWriteById } from '../../lib/items/settle.js';
import { committedWriteStreamFilter } from '../../lib/items/settleStream.js';
import { createStore } from '../../lib/store/client.js';
import { importJobRecord } from '../../lib/store/importJob.js';
import { newMeter, withMeter } from '../../lib/store/meter.js';
import { changeOrderMailOfItem } from '../../lib/store/changeOrderMail.js';
import { pendingWriteOfItem } from '../../lib/store/pendingWrite.js';
import { changedItemOf, type StreamRecord } from '../../lib/store/stream.js';
import { importJobStreamFilter, matchesStreamFilter } from '../../lib/transfer/jobStream.js';
import type { Mailer } from '../../lib/mail/mailer.js';
import { mailerFromEnv } from '../../lib/mail/ses.js';

const store = createStore();
let blobs: BlobStorage | undefined;
let mailer: Mailer | undefined;
const mailDeps = () => ({ store, mailer: (mailer ??= mailerFromEnv()), appUrl: process.env.APP_URL || 'http://localhost:3000' });

/** The schedule's input (every minute, infra/stack/streamFunctions.ts): send the change order mails that are due. */
export interface ChangeOrderMailSweepEvent {
  changeOrderMailSweep: true;
}

/**
 * The fifth function: the table's stream hands it the INSERT of each import job, the commit of each large
 * write settled from the stream and the INSERT of each change order mail outbox item (event filtering keeps
 * everything else away; the same filters are applied here, as the local stack applies them). It runs the job to SUCCEEDED or FAILED: a claimed job records its
 * own failures; the event source mapping retries a failure before the claim (a retry of a claimed job does
 * nothing). It settles the committed write (lib/items/settle.ts, repeatable: a retry or a redelivery settles
 * nothing twice); a settling that fails is retried by the mapping, and cleanupAbandonedWrites is the backstop.
 * It sends a change order action's mails (lib/changeOrders/notifications.ts: recipients resolved, redline and
 * impact counts read, each address recorded once sent, so a redelivery sends no address twice); a failed send
 * throws, and the mapping retries what did not go. Run by its schedule (every minute) it sends the change
 * order mails the stream did not (`sendDueChangeOrderMails`: due after a failed send, or never handed over),
 * with backoff, until an item fails for good (an ERROR log line names the change order and library).
 */
export async function handler(event: DynamoDBStreamEvent | ChangeOrderMailSweepEvent): Promise<{
  jobs: { id: string; status: string }[];
  settled: { writeId: string; settled: boolean }[];
  mails: { changeOrderId: string; rev: number; sent: number }[];
  sweep?: MailSweepResult;
}> {
  if ('changeOrderMailSweep' in event) {
    const started = Date.now();
    const meter = newMeter();
    const sweep = await withMeter(meter, () => sendDueChangeOrderMails(mailDeps()));
    if (sweep.attempted > 0) {
      console.log(JSON.stringify({ level: 'INFO', message: 'change order mail sweep', ...sweep, durationMs: Date.now() - started, dynamodb: { requests: meter.requests } }));
    }
    return { jobs: [], settled: [], mails: [], sweep };
  }
  const jobs = [];
  const settled = [];
  const mails = [];
  for (const record of event.Records) {
    if (matchesStreamFilter(changeOrderMailStreamFilter, record)) {
      const outbox = changeOrderMailOfItem(changedItemOf(record as StreamRecord)?.newImage);
      if (!outbox) continue;
      const started = Date.now();
      const meter = newMeter();
      const sent = await withMeter(meter, () => sendChangeOrderMails(mailDeps(), outbox));
      console.log(
        JSON.stringify({
          level: 'INFO',
          message: 'change order mails sent',
          changeOrderId: outbox.changeOrderId,
          rev: outbox.rev,
          libraryId: outbox.order.libraryId,
          sent,
          durationMs: Date.now() - started,
          dynamodb: { requests: meter.requests },
        }),
      );
      mails.push({ changeOrderId: outbox.changeOrderId, rev: outbox.rev, sent });
      continue;
    }
    if (matchesStreamFilter(committedWriteStreamFilter, record)) {
      const write = pendingWriteOfItem(changedItemOf(record as StreamRecord)?.newImage);
      if (!write) continue;
      const started = Date.now();
      // Metered as a request is: the log line says what the settling cost (and the bench reads it).
      const meter = newMeter();
      const done = await withMeter(meter, () => settleCommittedWriteById(store, write.orgId, write.libraryId, write.writeId, new Date().toISOString()));
      console.log(
        JSON.stringify({
          level: 'INFO',
          message: 'committed write settled',
          writeId: write.writeId,
          libraryId: write.libraryId,
          settled: done,
          durationMs: Date.now() - started,
          dynamodb: { requests: meter.requests, readCapacityUnits: Math.round(meter.readCapacityUnits * 10) / 10, writeCapacityUnits: Math.round(meter.writeCapacityUnits * 10) / 10 },
        }),
      );
      settled.push({ writeId: write.writeId, settled: done });
      continue;
    }
    if (!matchesStreamFilter(importJobStreamFilter, record)) continue;
    // The import (with its CSV and JSON readers) loads with the first job, not with the function.
    const { runImportJob } = await import('../../lib/transfer/jobs.js');
    const job = importJobRecord.parse(changedItemOf(record as StreamRecord)?.newImage);
    const started = Date.now();
    const status = await runImportJob(store, (blobs ??= blobStorageFromEnv()), job);
    console.log(JSON.stringify({ level: 'INFO', message: 'import job finished', jobId: job.id, libraryId: job.libraryId, status, durationMs: Date.now() - started }));
    jobs.push({ id: job.id, status });
  }
  return { jobs, settled, mails };
}
