import { nativePrincipalId, withheldAttributes } from '../model/attributeAccess.js';
import { getAccessPolicy } from '../store/accessPolicy.js';
import type { Store } from '../store/client.js';
import { getIntegration } from '../store/integration.js';
import type { WebhookEventType, WebhookRecord } from '../store/webhook.js';

/**
 * A webhook delivers as the principal it is bound to reads (WebhookRecord.principalId: the integration whose
 * API key created it, or the native principal for a person). An integration's webhook gets each event shaped
 * by what the library's access policy withholds from it when the event is sent (first attempt, retry and
 * resend alike), as its own reads are (lib/model/attributeAccess.ts withheldAttributes, withholdChanges).
 */

/** How a webhook delivers now: with these attributes withheld, or not at all (`stopped` says why). */
export type WebhookAccess = { withheld: ReadonlySet<string>; stopped?: undefined } | { stopped: string; withheld?: undefined };

const nothingWithheld: WebhookAccess = { withheld: new Set() };

/** The principal a webhook delivers as: absent on webhooks stored before it was recorded, which deliver as a person's. */
export const webhookPrincipal = (webhook: Pick<WebhookRecord, 'principalId'>): string => webhook.principalId ?? nativePrincipalId;

/**
 * The access of webhooks, read once per batch (a stream batch, a retry sweep): per library its policy (one
 * GetItem), per integration its record (one GetItem), only for webhooks bound to an integration. A person's
 * webhook costs nothing. An integration that is disabled or no longer exists stops its webhooks: its keys are
 * refused, and its webhooks deliver nothing while it is so (the most restrictive reading).
 */
export function webhookAccessReader(store: Store): (webhook: WebhookRecord) => Promise<WebhookAccess> {
  const policies = new Map<string, ReturnType<typeof getAccessPolicy>>();
  const integrations = new Map<string, ReturnType<typeof getIntegration>>();
  return async (webhook) => {
    const principal = webhookPrincipal(webhook);
    if (principal === nativePrincipalId) return nothingWithheld;
    const integrationKey = `${webhook.organizationId}/${principal}`;
    const libraryKey = `${webhook.organizationId}/${webhook.libraryId}`;
    if (!integrations.has(integrationKey)) integrations.set(integrationKey, getIntegration(store, webhook.organizationId, principal));
    if (!policies.has(libraryKey)) policies.set(libraryKey, getAccessPolicy(store, webhook.organizationId, webhook.libraryId));
    const [integration, policy] = await Promise.all([integrations.get(integrationKey)!, policies.get(libraryKey)!]);
    if (!integration) return { stopped: `the integration the webhook is bound to (${principal}) no longer exists` };
    if (integration.disabled) return { stopped: `the integration the webhook is bound to (${principal}) is disabled` };
    return { withheld: withheldAttributes(policy, principal) };
  };
}

type Ids = { added: string[]; updated: string[]; removed: string[] };
type Primary = { partId: string | null; quoteId: string | null };
const noIds = (): Ids => ({ added: [], updated: [], removed: [] });
const none = (ids: unknown) => {
  const d = ids as Partial<Ids> | undefined;
  return (d?.added?.length ?? 0) + (d?.updated?.length ?? 0) + (d?.removed?.length ?? 0) === 0;
};
const partOf = (primary: unknown): string | null => ((primary as Primary | null | undefined)?.partId ?? null) as string | null;

/**
 * An event's data as a principal with this withheld set may receive it, or undefined when it is not sent to
 * it at all. Only sourcing.changed carries anything the policy can withhold (the other payloads carry no
 * attribute values: component summaries, BOM counts and ids, change order and change request summaries,
 * comments; change_request.updated names changed fields of the request, never an attribute):
 * - without sourcing.parts: not sent. The principal reads no parts, no quotes and no primary source
 *   (componentSourcing is empty to it), and Component.history shows it the sourcing write's record without
 *   its changes; the write's component.updated (a sourcing write makes a component version) says as much.
 * - without sourcing.quotes: the quote ids empty, primary.quoteId and previousPrimary.quoteId null,
 *   primaryChanged only when the primary part changed; not sent when nothing else is left (a change of quotes
 *   or of the primary quote only), as withholdChanges leaves such changes out of history.
 */
/** Whether an event of this type can carry anything `withheld` takes away (only sourcing.changed, and only its designations). */
const shapes = (type: WebhookEventType, withheld: ReadonlySet<string>) => type === 'SOURCING_CHANGED' && (withheld.has('sourcing.parts') || withheld.has('sourcing.quotes'));

export function withholdEventData(type: WebhookEventType, data: Record<string, unknown>, withheld: ReadonlySet<string>): Record<string, unknown> | undefined {
  if (!shapes(type, withheld)) return data;
  if (withheld.has('sourcing.parts')) return undefined;
  if (!withheld.has('sourcing.quotes')) return data;
  const primary = { partId: partOf(data.primary), quoteId: null };
  // A body without previousPrimary (written before it was added) cannot tell a part's change from a quote's: taken as the quote's.
  const previous = 'previousPrimary' in data ? { partId: partOf(data.previousPrimary), quoteId: null } : undefined;
  const primaryChanged = previous !== undefined && previous.partId !== primary.partId;
  if (none(data.parts) && !primaryChanged) return undefined;
  return { ...data, quotes: noIds(), primary, ...(previous ? { previousPrimary: previous } : {}), primaryChanged };
}

/**
 * A recorded delivery's body as the access now lets it be sent: the same string when nothing changes, a new
 * one with the data withheld, or undefined when the event is not to be sent.
 */
export function withholdBody(type: WebhookEventType, body: string, withheld: ReadonlySet<string>): string | undefined {
  if (!shapes(type, withheld)) return body;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const data = parsed.data && typeof parsed.data === 'object' ? (parsed.data as Record<string, unknown>) : {};
  const shaped = withholdEventData(type, data, withheld);
  if (shaped === undefined) return undefined;
  return shaped === data ? body : JSON.stringify({ ...parsed, data: shaped });
}
