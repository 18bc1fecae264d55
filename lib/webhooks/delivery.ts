import { createHash } from 'node:crypto';
import { DomainError } from '../errors.js';
import type { Store } from '../store/client.js';
import { claimDeliveryRetry, deliveryRecord, dueDeliveries, getWebhook, insertDelivery, listWebhooks, recordAttempt, unattempted, type DeliveryRecord, type WebhookRecord } from '../store/webhook.js';
import type { ChangedItem } from '../store/stream.js';
import { eventNames, eventOf, type WebhookEvent } from './events.js';
import type { WebhookSettings } from './settings.js';
import { deriveWebhookSecret, signatureHeader } from './signing.js';
import { postToReceiver } from './transport.js';
import { resolveReceiver, type HostLookup } from './urls.js';
import { retryWaitMs } from '../model/retrySchedule.js';
import { webhookAccessReader, withholdBody, withholdEventData, type WebhookAccess } from './withheld.js';

export interface DeliveryDeps {
  store: Store;
  settings: WebhookSettings;
  now?: () => Date;
  /** The resolver of receiver hosts (the system's; tests pass their own). */
  lookup?: HostLookup;
}

const deliveryIdOf = (webhookId: string, eventId: string) => createHash('sha256').update(`${webhookId}:${eventId}`).digest('hex').slice(0, 32);

function bodyOf(event: WebhookEvent, webhook: WebhookRecord): string {
  return JSON.stringify({ id: event.id, type: event.name, occurredAt: event.occurredAt, organizationId: event.organizationId, libraryId: event.libraryId, webhookId: webhook.id, data: event.data });
}

/** How the webhooks of one batch deliver (webhookAccessReader: the policy read once per library and batch). */
type AccessOf = (webhook: WebhookRecord) => Promise<WebhookAccess>;

/**
 * What one stream batch sends: the deliveries of its events (deliverChanges) and the resends it shows
 * inserted (attemptInsertedResends), with the webhooks' access read once for both. Returns the count of both.
 */
export async function deliverStreamBatch(deps: DeliveryDeps, changes: ChangedItem[]): Promise<number> {
  const accessOf = webhookAccessReader(deps.store);
  const [delivered, resent] = await Promise.all([deliverChanges(deps, changes, accessOf), attemptInsertedResends(deps, changes, accessOf)]);
  return delivered + resent;
}

/**
 * Turns changed items into deliveries: for each event, one delivery per enabled webhook of its library
 * subscribed to its type (the webhooks of a library are read once per batch), each attempted at once.
 * A delivery's id derives from the webhook and the event, so a stream record processed twice delivers once.
 * An event is shaped by what the access policy withholds from the webhook's principal (withheld.ts); an
 * event it withholds whole, or any event of a webhook whose integration is disabled, makes no delivery.
 */
async function deliverChanges(deps: DeliveryDeps, changes: ChangedItem[], accessOf: AccessOf): Promise<number> {
  const events = changes.map(eventOf).filter((event): event is WebhookEvent => event !== undefined);
  const webhooksOf = new Map<string, Promise<WebhookRecord[]>>();
  let delivered = 0;
  for (const event of events) {
    const library = `${event.organizationId}/${event.libraryId}`;
    if (!webhooksOf.has(library)) webhooksOf.set(library, listWebhooks(deps.store, event.organizationId, event.libraryId));
    const subscribed = (await webhooksOf.get(library)!).filter((w) => w.enabled && w.events.includes(event.type));
    await Promise.all(
      subscribed.map(async (webhook) => {
        const access = await accessOf(webhook);
        if (access.stopped !== undefined) return;
        const data = withholdEventData(event.type, event.data, access.withheld);
        if (data === undefined) return;
        const at = (deps.now?.() ?? new Date()).toISOString();
        const delivery: DeliveryRecord = {
          id: deliveryIdOf(webhook.id, event.id),
          webhookId: webhook.id,
          organizationId: webhook.organizationId,
          libraryId: webhook.libraryId,
          eventId: event.id,
          eventType: event.type,
          body: bodyOf({ ...event, data }, webhook),
          ...unattempted(at, null),
        };
        if (!(await insertDelivery(deps.store, delivery))) return;
        await attempt(deps, webhook, delivery, accessOf);
        delivered += 1;
      }),
    );
  }
  return delivered;
}

/** How long past the receiver's timeout a claimed retry waits before another sweep may take it over. */
const retryLeaseMarginMs = 30_000;

/** Attempts the deliveries whose retry is due (at most `limit` per run); a deleted or disabled webhook ends them FAILED. */
export async function retryDueDeliveries(deps: DeliveryDeps, limit = 25): Promise<number> {
  const now = deps.now?.() ?? new Date();
  const due = await dueDeliveries(deps.store, now.toISOString(), limit);
  const accessOf = webhookAccessReader(deps.store);
  await Promise.all(due.map((delivery) => attemptDue(deps, delivery, now, accessOf)));
  return due.length;
}

/** A due delivery attempted by whoever claims it first (a sweep, or the stream for a resend). */
async function attemptDue(deps: DeliveryDeps, delivery: DeliveryRecord, now: Date, accessOf: AccessOf): Promise<void> {
  const webhook = await getWebhook(deps.store, delivery.organizationId, delivery.libraryId, delivery.webhookId);
  if (!webhook || !webhook.enabled) {
    await recordAttempt(deps.store, delivery, { ...delivery, status: 'FAILED', nextAttemptAt: null, lastError: webhook ? 'the webhook was disabled' : 'the webhook was deleted' });
    return;
  }
  // Sweeps overlap and the retry index lags: only the sweep that claims this version sends it.
  const leaseUntil = new Date(now.getTime() + deps.settings.timeoutMs + retryLeaseMarginMs).toISOString();
  if (!(await claimDeliveryRetry(deps.store, delivery, leaseUntil))) return;
  await attempt(deps, webhook, delivery, accessOf);
}

/**
 * Resends (webhooks.redeliver and replay) attempted as soon as the stream shows them inserted, rather than
 * at the next sweep: each is claimed first, so a sweep that found it too does not send it twice.
 */
async function attemptInsertedResends(deps: DeliveryDeps, changes: ChangedItem[], accessOf: AccessOf): Promise<number> {
  const resends = changes
    .filter((change) => change.kind === 'INSERT' && change.newImage?.entity === 'WebhookDelivery' && typeof change.newImage.replayOf === 'string')
    .map((change) => deliveryRecord.safeParse(change.newImage))
    .flatMap((parsed) => (parsed.success && parsed.data.attempts === 0 && parsed.data.status === 'PENDING' ? [parsed.data] : []));
  const now = deps.now?.() ?? new Date();
  // At most 25 at a time: a replay inserts up to 1,000.
  for (let start = 0; start < resends.length; start += 25) await Promise.all(resends.slice(start, start + 25).map((delivery) => attemptDue(deps, delivery, now, accessOf)));
  return resends.length;
}

/**
 * One POST of the delivery's body, signed now; the outcome is recorded (retry scheduled, delivered, or failed for good).
 * The body is first shaped by the access of the webhook's principal as it stands now (a retry or a resend of
 * an integration's webhook sends no more than its reads would give it now; the record keeps the body as sent);
 * an event now withheld whole, or a webhook whose integration is disabled, ends the delivery FAILED unsent.
 */
async function attempt(deps: DeliveryDeps, webhook: WebhookRecord, recorded: DeliveryRecord, accessOf: AccessOf): Promise<void> {
  const { settings } = deps;
  const access = await accessOf(webhook);
  const body = access.stopped === undefined ? withholdBody(recorded.eventType, recorded.body, access.withheld) : undefined;
  if (body === undefined) {
    const lastError = access.stopped ?? "withheld: the event concerns only what the access policy withholds from the webhook's integration";
    await recordAttempt(deps.store, recorded, { ...recorded, status: 'FAILED', nextAttemptAt: null, lastError });
    return;
  }
  const delivery = body === recorded.body ? recorded : { ...recorded, body };
  const started = deps.now?.() ?? new Date();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    if (!settings.stackKey) throw new Error('WEBHOOK_SIGNING_KEY is not configured');
    // Resolved and checked once; the POST connects to the checked address (no second resolution to rebind).
    const target = await resolveReceiver(webhook.url, settings.urlPolicy, deps.lookup);
    const secret = deriveWebhookSecret(settings.stackKey, webhook.id, webhook.secretVersion);
    // Never follows a redirect: it could lead to an address the URL check would refuse.
    statusCode = await postToReceiver(
      target,
      {
        'content-type': 'application/json',
        'user-agent': 'PLM-Webhooks/1',
        'x-plm-event-id': delivery.eventId,
        'x-plm-event-type': eventNames[delivery.eventType],
        'x-plm-delivery-id': delivery.id,
        'x-plm-signature': signatureHeader(secret, delivery.body, Math.floor(started.getTime() / 1000)),
      },
      delivery.body,
      settings.timeoutMs,
    );
    if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`;
  } catch (caught) {
    error = caught instanceof DomainError ? caught.message : caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
  }
  const attempts = delivery.attempts + 1;
  const finished = (deps.now?.() ?? new Date()).toISOString();
  const retry = error !== null && attempts < settings.maxAttempts;
  const wait = retryWaitMs(settings.retryBaseMs, attempts);
  await recordAttempt(deps.store, delivery, {
    ...delivery,
    attempts,
    lastAttemptAt: finished,
    lastStatusCode: statusCode,
    lastError: error,
    status: error === null ? 'DELIVERED' : retry ? 'PENDING' : 'FAILED',
    nextAttemptAt: retry ? new Date(started.getTime() + wait).toISOString() : null,
    deliveredAt: error === null ? finished : null,
  });
}
