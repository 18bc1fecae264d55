import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { DomainError, InvalidInputError, NotFoundError } from '../errors.js';
import { parseInput } from '../input.js';
import type { LibraryScope } from '../model/scope.js';
import type { Store } from '../store/client.js';
import { deliveriesBetween, findDelivery, getWebhook, insertDeliveries, unattempted, type DeliveryRecord, type WebhookRecord } from '../store/webhook.js';

/** Deliveries one replay resends at most; a larger window is refused (REPLAY_WINDOW_TOO_LARGE): split it. */
export const maxReplayDeliveries = 1000;

export class ReplayWindowTooLargeError extends DomainError {
  constructor(limit: number) {
    super('REPLAY_WINDOW_TOO_LARGE', `The window holds more than ${limit} deliveries: replay a shorter one`, 400, { limit });
  }
}

const window = z
  .object({ webhookId: z.string().uuid(), from: z.string().datetime({ offset: true }), to: z.string().datetime({ offset: true }) })
  .transform((value) => ({ ...value, from: new Date(value.from).toISOString(), to: new Date(value.to).toISOString() }))
  .refine((value) => value.from <= value.to, { message: 'from must not be after to', path: ['from'] });

/**
 * A resend of a recorded delivery: a new delivery id, the same event id and body, due at once (the
 * stream handler attempts it when it sees it inserted; the retry sweep takes it otherwise), with the
 * retries of any delivery. The receiver deduplicates on x-plm-event-id.
 */
function resendOf(original: DeliveryRecord, at: string): DeliveryRecord {
  return {
    ...original,
    id: randomUUID().replaceAll('-', ''),
    ...unattempted(at, at),
    replayOf: original.replayOf ?? original.id,
  };
}

async function enabledWebhook(store: Store, scope: LibraryScope, webhookId: string): Promise<WebhookRecord> {
  const webhook = z.string().uuid().safeParse(webhookId).success ? await getWebhook(store, scope.organizationId, scope.libraryId, webhookId) : undefined;
  if (!webhook) throw new NotFoundError('Webhook', webhookId);
  if (!webhook.enabled) throw new InvalidInputError('The webhook is disabled: enable it before resending deliveries', { webhookId });
  return webhook;
}

/** Resends one delivery of the library (any status) to its webhook. */
export async function redeliver(store: Store, scope: LibraryScope, deliveryId: string): Promise<DeliveryRecord> {
  const original = deliveryId.length <= 64 ? await findDelivery(store, scope.organizationId, scope.libraryId, deliveryId) : undefined;
  if (!original) throw new NotFoundError('WebhookDelivery', deliveryId);
  await enabledWebhook(store, scope, original.webhookId);
  const resend = resendOf(original, new Date().toISOString());
  await insertDeliveries(store, [resend]);
  return resend;
}

/**
 * Resends every delivery of a webhook created in [from, to] (originals only: earlier resends are not
 * resent again), oldest first, at most 1,000. The resends are written in batches, not one transaction: a
 * replay that fails part way may have queued part of the window; running it again only repeats events the
 * receiver deduplicates.
 */
export async function replay(store: Store, scope: LibraryScope, input: { webhookId: string; from: string; to: string }): Promise<DeliveryRecord[]> {
  const parsed = parseInput(window, input, 'arguments');
  const webhook = await enabledWebhook(store, scope, parsed.webhookId);
  const originals = await deliveriesBetween(store, webhook, parsed.from, parsed.to, maxReplayDeliveries + 1);
  if (originals.length > maxReplayDeliveries) throw new ReplayWindowTooLargeError(maxReplayDeliveries);
  const at = new Date().toISOString();
  const resends = originals.map((original) => resendOf(original, at));
  await insertDeliveries(store, resends);
  return resends;
}
