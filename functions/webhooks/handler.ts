import type { DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import type { Mailer } from '../../lib/mail/mailer.js';
import { mailerFromEnv } from '../../lib/mail/ses.js';
import { sendDueDigests } from '../../lib/notifications/digest.js';
import { notifyChanges } from '../../lib/notifications/fanout.js';
import { createStore } from '../../lib/store/client.js';
import { deliverStreamBatch, retryDueDeliveries } from '../../lib/webhooks/delivery.js';
import { loadWebhookSettings } from '../../lib/webhooks/settings.js';
import { changedItemOf, type StreamRecord } from '../../lib/store/stream.js';
import { auditChainsOf, sealAuditChain } from '../../lib/store/audit.js';

const store = createStore();
let mailer: Mailer | undefined;
const notificationDeps = () => ({ store, mailer: (mailer ??= mailerFromEnv()), appUrl: process.env.APP_URL || 'http://localhost:3000' });

/** The daily schedule's input (infra/stack/streamFunctions.ts): mail the notification digests. */
interface DigestEvent {
  digest: true;
}

/** The daily audit schedule's input (infra/stack/buckets.ts): keep each organization's chain head apart. */
interface AuditDigestEvent {
  auditDigest: true;
}

/**
 * The fourth function: fed by the table's stream (a batch of changed items) it turns them into webhook
 * deliveries and into notifications of watchers (lib/notifications/fanout.ts); run by the schedule (every
 * minute) it attempts the deliveries whose retry is due; run by the daily schedules it mails the digests
 * and keeps each organization's audit chain digest apart (lib/audit/digest.ts).
 */
export async function handler(
  event: DynamoDBStreamEvent | ScheduledEvent | DigestEvent | AuditDigestEvent,
): Promise<{ delivered?: number; retried?: number; notified?: number; digests?: number; auditDigests?: number }> {
  if ('digest' in event) return { digests: await sendDueDigests(notificationDeps()) };
  if ('auditDigest' in event) {
    const { auditDigestSinkFromEnv, keepAllAuditDigests } = await import('../../lib/audit/digest.js');
    return { auditDigests: (await keepAllAuditDigests(store, auditDigestSinkFromEnv())).length };
  }
  const settings = await loadWebhookSettings();
  if ('Records' in event) {
    const changes = event.Records.map((record) => changedItemOf(record as StreamRecord)).filter((change) => change !== undefined);
    // Both are idempotent per stream record: a batch that fails in either is retried whole.
    // New audit entries are linked into their organization's hash chain (lib/store/audit.ts, sealAuditChain).
    const chains = auditChainsOf(changes.filter((change) => change.kind === 'INSERT').map((change) => change.newImage));
    const [delivered, notified] = await Promise.all([
      deliverStreamBatch({ store, settings }, changes),
      notifyChanges(notificationDeps(), changes),
      ...chains.map((chain) => sealAuditChain(store, chain)),
    ]);
    return { delivered, notified };
  }
  return { retried: await retryDueDeliveries({ store, settings }) };
}
