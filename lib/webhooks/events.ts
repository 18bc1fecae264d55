import type { WebhookEventType } from '../store/webhook.js';
import type { ChangedItem } from '../store/stream.js';

/**
 * The events webhooks deliver, read from the table's change stream (NEW_AND_OLD_IMAGES): a pure mapping
 * from one changed item to at most one event. Items of a large write that has not committed (they carry a
 * writeId) are nobody's business yet: a component becomes "created" when its write id is removed after
 * the commit, and the items of an aborted write vanish without an event.
 */

export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  /** The payload's `type`: component.created, bom.changed, change_order.transitioned, ... */
  name: string;
  organizationId: string;
  libraryId: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** The payload's (and x-plm-event-type's) name of each event type. */
export const eventNames: Record<WebhookEventType, string> = {
  COMPONENT_CREATED: 'component.created',
  COMPONENT_UPDATED: 'component.updated',
  COMPONENT_DELETED: 'component.deleted',
  COMPONENT_RELEASED: 'component.released',
  BOM_CHANGED: 'bom.changed',
  CHANGE_ORDER_TRANSITIONED: 'change_order.transitioned',
  COMMENT_CREATED: 'comment.created',
  COMMENT_DELETED: 'comment.deleted',
  SOURCING_CHANGED: 'sourcing.changed',
  CHANGE_REQUEST_CREATED: 'change_request.created',
  CHANGE_REQUEST_UPDATED: 'change_request.updated',
  CHANGE_REQUEST_TRANSITIONED: 'change_request.transitioned',
  CHANGE_REQUEST_PROMOTED: 'change_request.promoted',
};

/** The organization and library of an item's partition (`ORG#<org>#LIB#<lib>`), or undefined for another partition. */
export function libraryOf(pk: unknown): { organizationId: string; libraryId: string } | undefined {
  const match = typeof pk === 'string' ? /^ORG#([0-9a-f-]{36})#LIB#([0-9a-f-]{36})$/.exec(pk) : null;
  return match ? { organizationId: match[1]!, libraryId: match[2]! } : undefined;
}

/** What a receiver gets of a component: enough to decide whether to fetch it (component.findOne). */
function componentSummary(item: Record<string, unknown>) {
  const pick = (key: string) => item[key] ?? null;
  return {
    id: pick('id'),
    cpn: pick('cpn'),
    name: pick('name'),
    version: pick('version'),
    state: pick('state'),
    revisionValue: pick('revisionValue'),
    statusId: pick('statusId'),
    categoryId: pick('categoryId'),
    updatedAt: pick('updatedAt'),
    updatedBy: pick('updatedBy'),
  };
}

const pending = (image: Record<string, unknown> | undefined) => typeof image?.writeId === 'string';

export function eventOf(change: ChangedItem): WebhookEvent | undefined {
  const image = change.newImage ?? change.oldImage;
  const library = libraryOf(image?.PK);
  if (!image || !library) return undefined;
  const event = (type: WebhookEventType, data: Record<string, unknown>): WebhookEvent => ({ id: change.eventId, type, name: eventNames[type], ...library, occurredAt: change.at, data });
  const { oldImage: before, newImage: after } = change;

  if (image.entity === 'Component') {
    if (change.kind === 'REMOVE') return pending(before) ? undefined : event('COMPONENT_DELETED', { component: componentSummary(before!) });
    if (pending(after)) return undefined;
    // Inserted, or its large write committed (the write id removed): it exists now.
    if (change.kind === 'INSERT' || pending(before)) return event('COMPONENT_CREATED', { component: componentSummary(after!) });
    if (before!.version === after!.version) return undefined; // a change order's hold or release of its hold
    if (after!.state === 'RELEASED' && before!.state !== 'RELEASED') {
      return event('COMPONENT_RELEASED', { component: componentSummary(after!), fromRevision: before!.revisionValue ?? null, toRevision: after!.revisionValue ?? null });
    }
    return event('COMPONENT_UPDATED', { component: componentSummary(after!), previousVersion: before!.version });
  }

  if (image.entity === 'Bom') {
    // A BOM removed goes with its assembly (component.deleted says so).
    if (change.kind === 'REMOVE' || pending(after)) return undefined;
    if (change.kind === 'MODIFY' && !pending(before) && before!.bomVersion === after!.bomVersion) return undefined;
    const lines = Array.isArray(after!.lines) ? after!.lines : [];
    return event('BOM_CHANGED', { assemblyId: after!.assemblyId, bomVersion: after!.bomVersion, lineCount: lines.length, childIds: after!.childIds ?? [] });
  }

  if (image.entity === 'ChangeOrder') {
    const from = before ? { status: before.status, resolution: before.resolution ?? null } : null;
    const to = after ? { status: after.status, resolution: after.resolution ?? null } : { status: 'DELETED', resolution: null };
    if (from && from.status === to.status && from.resolution === to.resolution) return undefined;
    const record = (after ?? before)!;
    const history = Array.isArray(after?.history) ? (after!.history as { action?: string; by?: string }[]) : [];
    return event('CHANGE_ORDER_TRANSITIONED', {
      changeOrder: { id: record.id, number: record.number, name: record.name, status: to.status, resolution: to.resolution, currentStage: after?.currentStage ?? null },
      from,
      to,
      action: change.kind === 'REMOVE' ? 'delete' : (history.at(-1)?.action ?? 'CREATE').toLowerCase(),
      by: history.at(-1)?.by ?? null,
    });
  }

  if (image.entity === 'Comment') {
    const summary = (item: Record<string, unknown>) => ({
      id: item.id,
      targetType: item.targetType,
      targetId: item.targetId,
      parentId: item.parentId ?? null,
      createdBy: item.createdBy,
      createdAt: item.createdAt,
    });
    if (change.kind === 'INSERT') return event('COMMENT_CREATED', { comment: { ...summary(after!), body: after!.body ?? null, mentions: after!.mentions ?? [] } });
    // A deletion leaves a tombstone: the comment's item turns deleted.
    if (change.kind === 'MODIFY' && before!.deleted !== true && after!.deleted === true) {
      return event('COMMENT_DELETED', { comment: { ...summary(after!), deletedBy: after!.deletedBy ?? null, deletedAt: after!.deletedAt ?? null } });
    }
  }

  if (image.entity === 'ChangeRequest') {
    // A request is never deleted by a user (only with its library): no event for a removal.
    if (change.kind === 'REMOVE' || !after) return undefined;
    return changeRequestEvent(before, after, event);
  }

  if (image.entity === 'Sourcing') {
    // A sourcing item is removed only with its library's import (never by a user's write): no event.
    if (change.kind === 'REMOVE' || !after) return undefined;
    return sourcingEvent(before, after, (data) => event('SOURCING_CHANGED', data));
  }
  return undefined;
}

type Row = Record<string, unknown> & { id: string };
const rows = (value: unknown): Row[] => (Array.isArray(value) ? (value as Row[]).filter((r) => typeof r?.id === 'string') : []);
const quotesOf = (parts: Row[]) => parts.flatMap((p) => rows(p.quotes).map((q) => ({ ...q, partId: p.id })));
const withoutQuotes = ({ quotes: _quotes, ...rest }: Row) => rest;

/** Ids added, changed and removed between two lists of rows (by id; a row is changed when any field differs). */
function diff(before: Row[], after: Row[], comparable: (row: Row) => unknown = (row) => row) {
  const old = new Map(before.map((r) => [r.id, JSON.stringify(comparable(r))]));
  const now = new Set(after.map((r) => r.id));
  return {
    added: after.filter((r) => !old.has(r.id)).map((r) => r.id),
    updated: after.filter((r) => old.has(r.id) && old.get(r.id) !== JSON.stringify(comparable(r))).map((r) => r.id),
    removed: before.filter((r) => !now.has(r.id)).map((r) => r.id),
  };
}

/**
 * sourcing.changed: a component's manufacturer parts, their quotes or its primary source changed (one
 * event per sourcing write: the write is one item). The data names what changed, by id; receivers read the
 * rows with vendorSourcing.componentSourcing. previousPrimary is the primary source before the write: with it
 * a delivery to an integration that may not read quotes can tell a change of the primary part from one of
 * the primary quote only (lib/webhooks/withheld.ts).
 */
function sourcingEvent(before: Record<string, unknown> | undefined, after: Record<string, unknown>, event: (data: Record<string, unknown>) => WebhookEvent): WebhookEvent | undefined {
  if (before && before.rev === after.rev) return undefined;
  const partsBefore = rows(before?.parts);
  const partsAfter = rows(after.parts);
  const parts = diff(partsBefore, partsAfter, withoutQuotes);
  const quotes = diff(quotesOf(partsBefore), quotesOf(partsAfter));
  const primary = { partId: after.primaryPartId ?? null, quoteId: after.primaryQuoteId ?? null };
  const previousPrimary = { partId: before?.primaryPartId ?? null, quoteId: before?.primaryQuoteId ?? null };
  const primaryChanged = previousPrimary.partId !== primary.partId || previousPrimary.quoteId !== primary.quoteId;
  const none = (d: { added: string[]; updated: string[]; removed: string[] }) => d.added.length + d.updated.length + d.removed.length === 0;
  if (none(parts) && none(quotes) && !primaryChanged) return undefined;
  return event({ componentId: after.componentId, rev: after.rev, parts, quotes, primary, previousPrimary, primaryChanged, partCount: partsAfter.length });
}

/** What a receiver gets of a change request: enough to decide whether to fetch it (changeRequests.get). */
function changeRequestSummary(item: Record<string, unknown>) {
  const pick = (key: string) => item[key] ?? null;
  return {
    id: pick('id'),
    number: pick('number'),
    title: pick('title'),
    priority: pick('priority'),
    status: pick('status'),
    componentIds: Array.isArray(item.componentIds) ? item.componentIds : [],
    changeOrderId: pick('changeOrderId'),
    updatedAt: pick('updatedAt'),
  };
}

/** JSON with the keys of every object sorted: the stream's images need not keep a map's key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v,
  );

/** The fields of a change request an update may change (change_request.updated names those that did). */
const changeRequestFields = ['title', 'description', 'priority', 'componentIds', 'values'] as const;

/**
 * The change request events, one per write of the request's item (every write is that one item, in the
 * transaction of the action, so the stream carries each): created on insert; promoted when it is linked to
 * a (new) change order; transitioned when its status changes (by an action, or CLOSED by the release of the
 * order it was promoted into); updated when a DRAFT's fields change.
 */
function changeRequestEvent(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
  event: (type: WebhookEventType, data: Record<string, unknown>) => WebhookEvent,
): WebhookEvent | undefined {
  const history = Array.isArray(after.history) ? (after.history as { action?: string; by?: string; comment?: string | null }[]) : [];
  const last = history.at(-1);
  const by = last?.by ?? null;
  const changeRequest = changeRequestSummary(after);
  if (!before) return event('CHANGE_REQUEST_CREATED', { changeRequest, by: after.createdBy ?? by });
  if (before.rev === after.rev) return undefined;
  if (after.changeOrderId && before.changeOrderId !== after.changeOrderId) {
    return event('CHANGE_REQUEST_PROMOTED', { changeRequest, changeOrder: { id: after.changeOrderId, number: last?.action === 'PROMOTE' ? (last.comment ?? null) : null }, by });
  }
  if (before.status !== after.status) {
    return event('CHANGE_REQUEST_TRANSITIONED', {
      changeRequest,
      from: { status: before.status },
      to: { status: after.status },
      action: (last?.action ?? 'UPDATE').toLowerCase(),
      by,
      comment: last?.comment ?? null,
    });
  }
  const changedFields = changeRequestFields.filter((field) => canonical(before[field]) !== canonical(after[field]));
  if (changedFields.length === 0) return undefined;
  return event('CHANGE_REQUEST_UPDATED', { changeRequest, changedFields, by });
}
