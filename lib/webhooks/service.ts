import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { LibraryScope } from '../model/scope.js';
import { ConcurrentWriteError, InvalidInputError, NotFoundError } from '../errors.js';
import { parseInput } from '../input.js';
import type { Store } from '../store/client.js';
import { nowIso } from '../store/items.js';
import { deleteWebhook, getWebhook, listDeliveries, listWebhooks, putWebhook, webhookEventTypes, type WebhookRecord } from '../store/webhook.js';
import type { WebhookSettings } from './settings.js';
import { deriveWebhookSecret } from './signing.js';
import { checkReceiverUrl } from './urls.js';

/** Webhooks per library. */
export const maxWebhooksPerLibrary = 20;

const events = z.array(z.enum(webhookEventTypes)).min(1, 'subscribe to at least one event').max(webhookEventTypes.length);
const createInput = z.object({ url: z.string().min(1), events, enabled: z.boolean().nullish() });
/** An update: omitted fields stay; null is refused (a webhook always has a URL, events and an enabled flag), never ignored. */
const updateInput = z.object({ id: z.string().min(1).max(128), url: z.string().min(1).optional(), events: events.optional(), enabled: z.boolean().optional() });

export interface IssuedWebhook {
  webhook: WebhookRecord;
  /** Shown once, at creation and rotation; derived, never stored. */
  secret: string;
}

function secretOf(settings: WebhookSettings, webhookId: string, version: number): string {
  if (!settings.stackKey) throw new InvalidInputError('Webhooks are not configured on this stack (WEBHOOK_SIGNING_KEY is missing)');
  return deriveWebhookSecret(settings.stackKey, webhookId, version);
}

/**
 * `principalId`: the principal the request acts as (context.access.principal(): the integration of an API
 * key, or `native` for a person). The webhook is bound to it: its deliveries are shaped by what the access
 * policy withholds from that principal (lib/webhooks/withheld.ts).
 */
export async function createWebhook(store: Store, scope: LibraryScope, settings: WebhookSettings, input: unknown, principalId: string): Promise<IssuedWebhook> {
  const parsed = parseInput(createInput, input, 'input');
  const url = await checkReceiverUrl(parsed.url, settings.urlPolicy);
  if ((await listWebhooks(store, scope.organizationId, scope.libraryId)).length >= maxWebhooksPerLibrary) {
    throw new InvalidInputError(`A library has at most ${maxWebhooksPerLibrary} webhooks`, { limit: maxWebhooksPerLibrary });
  }
  const at = nowIso();
  const id = randomUUID();
  const secret = secretOf(settings, id, 1);
  const webhook: WebhookRecord = {
    id,
    organizationId: scope.organizationId,
    libraryId: scope.libraryId,
    url: url.href,
    events: [...new Set(parsed.events)],
    enabled: parsed.enabled ?? true,
    secretVersion: 1,
    secretPrefix: secret.slice(0, 12),
    createdAt: at,
    updatedAt: at,
    createdBy: scope.userId,
    principalId,
  };
  await putWebhook(store, webhook);
  return { webhook, secret };
}

async function existing(store: Store, scope: LibraryScope, id: string): Promise<WebhookRecord> {
  const webhook = z.string().uuid().safeParse(id).success ? await getWebhook(store, scope.organizationId, scope.libraryId, id) : undefined;
  if (!webhook) throw new NotFoundError('Webhook', id);
  return webhook;
}

async function replace(store: Store, before: WebhookRecord, after: WebhookRecord): Promise<WebhookRecord> {
  if (!(await putWebhook(store, after, before.updatedAt))) throw new ConcurrentWriteError(`Webhook ${before.id}`);
  return after;
}

/**
 * A new url binds the webhook to the principal that sets it (`principalId`, as createWebhook): whoever chooses
 * where the events go receives them as it may read them, so an integration cannot point another principal's
 * webhook at itself to receive what is withheld from it.
 */
export async function updateWebhook(store: Store, scope: LibraryScope, settings: WebhookSettings, input: unknown, principalId: string): Promise<WebhookRecord> {
  const parsed = parseInput(updateInput, input, 'input');
  const before = await existing(store, scope, parsed.id);
  const url = parsed.url ? (await checkReceiverUrl(parsed.url, settings.urlPolicy)).href : before.url;
  const bound = url !== before.url ? { principalId } : {};
  return replace(store, before, { ...before, url, ...bound, events: parsed.events ? [...new Set(parsed.events)] : before.events, enabled: parsed.enabled ?? before.enabled, updatedAt: nowIso() });
}

/** A new secret: the old one stops verifying with the next attempt (deliveries are signed when sent). */
export async function rotateWebhookSecret(store: Store, scope: LibraryScope, settings: WebhookSettings, id: string): Promise<IssuedWebhook> {
  const before = await existing(store, scope, id);
  const secret = secretOf(settings, before.id, before.secretVersion + 1);
  const webhook = await replace(store, before, { ...before, secretVersion: before.secretVersion + 1, secretPrefix: secret.slice(0, 12), updatedAt: nowIso() });
  return { webhook, secret };
}

export async function removeWebhook(store: Store, scope: LibraryScope, id: string): Promise<boolean> {
  await existing(store, scope, id);
  return deleteWebhook(store, scope.organizationId, scope.libraryId, id);
}

export async function webhooksOf(store: Store, scope: LibraryScope): Promise<WebhookRecord[]> {
  return (await listWebhooks(store, scope.organizationId, scope.libraryId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Deliveries a page of the log holds at most. */
export const maxDeliveriesPage = 100;

/** The newest `first` deliveries (1 to 100; outside it BAD_USER_INPUT, never a page of another size). */
export function deliveriesOf(store: Store, webhook: WebhookRecord, first: number) {
  if (!Number.isInteger(first) || first < 1 || first > maxDeliveriesPage) throw new InvalidInputError(`deliveries first must be 1 to ${maxDeliveriesPage}`, { field: 'first' });
  return listDeliveries(store, webhook.organizationId, webhook.libraryId, webhook.id, first);
}
