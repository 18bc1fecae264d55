import { loadEffectiveAccess } from '../access/effective.js';
import type { Mailer } from '../mail/mailer.js';
import { timeOrderedId } from '../model/timeId.js';
import { findUser } from '../people/users.js';
import { getBoms } from '../store/bom.js';
import { getComponent } from '../store/component.js';
import { getMemberships } from '../store/membership.js';
import type { Store } from '../store/client.js';
import { getNotificationSettings, markDigestDue, putNotification, type NotificationKind, type NotificationRecord } from '../store/notification.js';
import type { ChangedItem } from '../store/stream.js';
import { getUsages } from '../store/usage.js';
import { listWatchers, putAutomaticWatch, type WatchRecord } from '../store/watch.js';
import { eventOf, type WebhookEvent } from '../webhooks/events.js';
import { notificationMail } from './digest.js';

/**
 * Notifications, made from the table's stream beside webhook deliveries (functions/webhooks/handler.ts),
 * never in the request path. Each event that touches something watched becomes one notification per
 * watcher (the actor excepted): a component's or assembly's watchers, the watchers "with children" of
 * every assembly above it (where-used, at every level), a change order's watchers, a comment target's
 * watchers; mentioned users get a MENTION instead. A notification's key derives from the event id and the
 * user, so a record processed twice notifies once, and a mail goes out only with the put that created it.
 * The same pass puts the automatic watches: a comment's author and mentioned users, a change order's reviewers.
 */
export interface NotificationDeps {
  store: Store;
  mailer: Mailer;
  appUrl: string;
}

/** How far up where-used is followed (BOMs deeper than this are not expected; it also bounds a cycle). */
const maxAncestorDepth = 25;

/** The assemblies above a component at every level, each confirmed against its current BOM. */
export async function ancestorsOf(store: Store, orgId: string, libraryId: string, componentId: string): Promise<Set<string>> {
  const found = new Set<string>();
  let level = [componentId];
  for (let depth = 0; depth < maxAncestorDepth && level.length > 0; depth += 1) {
    const usages = await getUsages(store, orgId, libraryId, level);
    const candidates = new Map<string, Set<string>>();
    for (const [childId, usage] of usages) for (const parent of usage.assemblies ?? []) if (!found.has(parent)) (candidates.get(parent) ?? candidates.set(parent, new Set()).get(parent)!).add(childId);
    if (candidates.size === 0) break;
    const boms = await getBoms(store, orgId, libraryId, [...candidates.keys()]);
    level = [];
    for (const [parent, children] of candidates) {
      const bom = boms.get(parent);
      if (bom && bom.writeId === null && [...children].some((child) => bom.childIds.includes(child))) {
        found.add(parent);
        level.push(parent);
      }
    }
  }
  found.delete(componentId);
  return found;
}

interface Recipient {
  userId: string;
  kind: NotificationKind;
  targetId: string;
}

interface Touch {
  kind: NotificationKind;
  /** The component, assembly, change order or comment target the event is about. */
  subjectId: string;
  actorId: string | null;
  summary: string;
  /** Follow where-used: watchers with children of the assemblies above are told too. */
  upward: boolean;
  mentions: string[];
}

const str = (value: unknown) => (typeof value === 'string' ? value : null);

/** What an event means for watchers (undefined: nothing to tell). */
export function touchOf(event: WebhookEvent, change?: ChangedItem): Touch | undefined {
  const data = event.data as Record<string, Record<string, unknown> | unknown>;
  const component = data.component as Record<string, unknown> | undefined;
  const label = (c: Record<string, unknown> | undefined) => `${str(c?.cpn) ?? ''} ${str(c?.name) ?? ''}`.trim();
  switch (event.type) {
    case 'COMPONENT_UPDATED':
    case 'COMPONENT_RELEASED':
    case 'COMPONENT_DELETED': {
      const verb = { COMPONENT_UPDATED: 'has a new version', COMPONENT_RELEASED: `was released (revision ${str(data.toRevision) ?? '?'})`, COMPONENT_DELETED: 'was deleted' }[event.type];
      return { kind: event.type, subjectId: str(component?.id)!, actorId: str(component?.updatedBy), summary: `${label(component)} ${verb}`, upward: true, mentions: [] };
    }
    case 'BOM_CHANGED':
      return {
        kind: 'BOM_CHANGED',
        subjectId: str(data.assemblyId)!,
        actorId: str(change?.newImage?.updatedBy),
        summary: `The BOM of an assembly changed (version ${String(data.bomVersion)})`,
        upward: true,
        mentions: [],
      };
    case 'CHANGE_ORDER_TRANSITIONED': {
      const co = data.changeOrder as Record<string, unknown>;
      const to = data.to as Record<string, unknown>;
      return {
        kind: 'CHANGE_ORDER_TRANSITIONED',
        subjectId: str(co.id)!,
        actorId: str(data.by),
        summary: `Change order ${str(co.number) ?? ''} ${str(co.name) ?? ''}: ${String(data.action)} (now ${String(to.status)})`,
        upward: false,
        mentions: [],
      };
    }
    case 'COMMENT_CREATED': {
      const comment = data.comment as Record<string, unknown>;
      return {
        kind: 'COMMENT',
        subjectId: str(comment.targetId)!,
        actorId: str(comment.createdBy),
        summary: `New comment: ${String(comment.body ?? '').slice(0, 200)}`,
        upward: false,
        mentions: (comment.mentions as string[]) ?? [],
      };
    }
    default:
      return undefined;
  }
}

async function recipientsOf(deps: NotificationDeps, event: WebhookEvent, touch: Touch): Promise<Recipient[]> {
  const { organizationId: org, libraryId: lib } = event;
  const direct = await listWatchers(deps.store, org, lib, touch.subjectId);
  const ancestors = touch.upward ? [...(await ancestorsOf(deps.store, org, lib, touch.subjectId))] : [];
  const above = (await Promise.all(ancestors.map((id) => listWatchers(deps.store, org, lib, id)))).flat().filter((watch) => watch.withChildren);
  const byUser = new Map<string, Recipient>();
  for (const mentioned of touch.mentions) byUser.set(mentioned, { userId: mentioned, kind: 'MENTION', targetId: touch.subjectId });
  for (const watch of [...direct, ...above]) if (!byUser.has(watch.userId)) byUser.set(watch.userId, { userId: watch.userId, kind: touch.kind, targetId: watch.targetId });
  if (touch.actorId) byUser.delete(touch.actorId);
  return readersOnly(deps.store, event, touch, [...byUser.values()]);
}

/**
 * Only people who may still read what they are told about: members of the organization holding
 * components.read in the library (and change_orders.read for a change order). A watch outlives a removed
 * membership or a narrowed role; what it would tell is withheld then.
 */
async function readersOnly(store: Store, event: WebhookEvent, touch: Touch, recipients: Recipient[]): Promise<Recipient[]> {
  if (recipients.length === 0) return recipients;
  const memberships = await getMemberships(
    store,
    event.organizationId,
    recipients.map((r) => r.userId),
  );
  const needsChangeOrders = touch.kind === 'CHANGE_ORDER_TRANSITIONED' || (event.data.comment !== undefined && (event.data.comment as Record<string, unknown>).targetType === 'CHANGE_ORDER');
  const allowed = await Promise.all(
    recipients.map(async (recipient) => {
      const membership = memberships.get(recipient.userId);
      if (!membership) return false;
      const permissions = (await loadEffectiveAccess(store, membership)).libraryPermissions(event.libraryId);
      return permissions.has('components.read') && (!needsChangeOrders || permissions.has('change_orders.read'));
    }),
  );
  return recipients.filter((_, i) => allowed[i]);
}

/** Automatic watches an event brings: comment authors and mentioned users, change order reviewers. */
async function automaticWatches(store: Store, event: WebhookEvent, change: ChangedItem): Promise<void> {
  const base = { organizationId: event.organizationId, libraryId: event.libraryId, withChildren: false, active: true, automatic: true, createdAt: event.occurredAt };
  const watches: WatchRecord[] = [];
  if (event.type === 'COMMENT_CREATED') {
    const comment = (event.data.comment ?? {}) as Record<string, unknown>;
    const component = comment.targetType === 'COMPONENT' ? await getComponent(store, event.organizationId, event.libraryId, String(comment.targetId)) : undefined;
    const targetType = comment.targetType === 'CHANGE_ORDER' ? 'CHANGE_ORDER' : component?.category.type === 'ASSEMBLY' ? 'ASSEMBLY' : 'COMPONENT';
    for (const userId of [comment.createdBy, ...((comment.mentions as unknown[]) ?? [])]) {
      if (typeof userId === 'string') watches.push({ ...base, userId, targetType, targetId: String(comment.targetId) });
    }
  }
  if (event.type === 'CHANGE_ORDER_TRANSITIONED' && change.newImage) {
    const stages = (change.newImage.stages as { reviewers?: { userId?: string }[] }[] | undefined) ?? [];
    const reviewers = new Set(stages.flatMap((stage) => (stage.reviewers ?? []).map((r) => r.userId)).filter((id): id is string => typeof id === 'string'));
    for (const userId of reviewers) watches.push({ ...base, userId, targetType: 'CHANGE_ORDER', targetId: String(change.newImage.id) });
  }
  await Promise.all(watches.map((watch) => putAutomaticWatch(store, watch)));
}

/** Tells one recipient: the notification (once per event and user), then a mail or a place in the digest. */
async function tell(deps: NotificationDeps, event: WebhookEvent, touch: Touch, recipient: Recipient): Promise<boolean> {
  const record: NotificationRecord = {
    id: timeOrderedId(new Date(event.occurredAt), `${event.id}:${recipient.userId}`),
    userId: recipient.userId,
    organizationId: event.organizationId,
    libraryId: event.libraryId,
    kind: recipient.kind,
    targetId: recipient.targetId,
    subjectId: touch.subjectId === recipient.targetId ? null : touch.subjectId,
    actorId: touch.actorId,
    summary: recipient.kind === 'MENTION' ? `You were mentioned: ${touch.summary.replace(/^New comment: /, '')}` : touch.summary,
    eventId: event.id,
    createdAt: event.occurredAt,
    read: false,
  };
  if (!(await putNotification(deps.store, record))) return false;
  const settings = await getNotificationSettings(deps.store, recipient.userId);
  if (settings.email === 'DIGEST' && recipient.kind !== 'MENTION') {
    await markDigestDue(deps.store, recipient.userId, record.createdAt);
    return true;
  }
  const user = await findUser(deps.store, recipient.userId);
  if (user && !user.archived) await deps.mailer.send(notificationMail(user.primaryEmail, record, deps.appUrl));
  return true;
}

/** Fans a batch of changed items out to watchers; returns how many notifications it created. */
export async function notifyChanges(deps: NotificationDeps, changes: ChangedItem[]): Promise<number> {
  let created = 0;
  for (const change of changes) {
    // What a library import inserts (its comments, BOMs: tagged with its id) is old news: nobody is told, and
    // the authors and mentioned users of imported comments watch only as the export says (lib/transfer/discussion.ts).
    if (change.kind === 'INSERT' && change.newImage?.importId !== undefined) continue;
    const event = eventOf(change);
    if (!event) continue;
    await automaticWatches(deps.store, event, change);
    const touch = touchOf(event, change);
    if (!touch?.subjectId) continue;
    const recipients = await recipientsOf(deps, event, touch);
    const told = await Promise.all(recipients.map((recipient) => tell(deps, event, touch, recipient)));
    created += told.filter(Boolean).length;
  }
  return created;
}
