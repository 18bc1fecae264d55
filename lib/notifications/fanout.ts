import { loadEffectiveAccesses, type EffectiveAccess } from '../access/effective.js';
import type { PermissionName } from '../access/permissions.js';
import type { Mailer } from '../mail/mailer.js';
import { timeOrderedId } from '../model/timeId.js';
import { getBoms } from '../store/bom.js';
import { getComponent } from '../store/component.js';
import { getMemberships } from '../store/membership.js';
import type { Store } from '../store/client.js';
import { getNotificationSettingsOf, markDigestDue, putNotifications, type NotificationKind, type NotificationRecord, type NotificationSettingsRecord } from '../store/notification.js';
import { getUsers, type UserRecord } from '../store/user.js';
import { mailAddressOf } from '../people/users.js';
import type { ChangedItem } from '../store/stream.js';
import { getUsages, type UsageRecord } from '../store/usage.js';
import { listLibraryWatchersUpTo, listWatchers, putAutomaticWatch, type WatchRecord } from '../store/watch.js';
import { eventOf } from '../webhooks/events.js';
import { notificationMail } from './digest.js';
import { ofDeletedComments } from './service.js';
import { mentionsAddedOf, type FanoutEvent } from './mentionEdits.js';

/**
 * Notifications, made from the table's stream beside webhook deliveries (functions/webhooks/handler.ts),
 * never in the request path. Each event that touches something watched becomes one notification per
 * watcher (the actor excepted): a component's or assembly's watchers, the watchers "with children" of
 * every assembly above it (where-used, at every level), a change order's watchers, a comment target's
 * watchers; mentioned users get a MENTION instead, and so do users an edit of a comment adds to its mentions
 * (mentionEdits.ts: those mentioned before the edit are not told again; the target's watchers are not told of edits). A notification's key derives from the event id and the
 * user, so a record processed twice notifies once, and a mail goes out only with the put that created it.
 * The same pass puts the automatic watches: a comment's author and mentioned users, a change order's reviewers.
 *
 * A stream batch is fanned out as a whole (`notifyChanges`): the recipients of its events are found in
 * event order, concurrently between the events that put automatic watches (an event sees the watches of
 * those before it and not of those after it, as one at a time); memberships, access, settings and users
 * are read in BatchGetItem rounds once per batch; the notifications of all its events are put together
 * (lib/store/notification.ts `putNotifications`: conditional puts in transactions of 100) while the
 * recipients' settings and users are read; then mails go out for the notifications created, a few at a time.
 */
export interface NotificationDeps {
  store: Store;
  mailer: Mailer;
  appUrl: string;
}

/** BatchGetItem rounds (100 keys each) and mails in flight at once; events whose recipients are found at once. */
const readRoundsInFlight = 4;
/**
 * A library's watches are read whole for a batch about several of its targets when it holds at most this
 * many watch items per target: a watch item is about a tenth of the 4 KB a read unit covers, so the read
 * costs no more than a Query per target would, in far fewer requests.
 */
const watchItemsPerTarget = 10;
const mailsInFlight = 16;
const eventsInFlight = 8;

/** Runs `fn` over the items, at most `limit` at a time; results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await fn(items[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A by-id batch read in rounds of 100 ids, a few rounds in flight at once. */
async function inRounds<V>(ids: readonly string[], read: (ids: string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
  const unique = [...new Set(ids)];
  const rounds: string[][] = [];
  for (let start = 0; start < unique.length; start += 100) rounds.push(unique.slice(start, start + 100));
  return new Map((await mapLimited(rounds, readRoundsInFlight, read)).flatMap((found) => [...found]));
}

/**
 * Values by id, each read once into `cache` (under `keyOf` of its id): the ids not read yet in one `read` of
 * them all, which callers asking meanwhile share; an id it does not find is absent from the answer.
 */
async function readOnce<V>(
  cache: Map<string, Promise<V | undefined>>,
  ids: readonly string[],
  keyOf: (id: string) => string,
  read: (missing: string[]) => Promise<Map<string, V>>,
): Promise<Map<string, V>> {
  const missing = [...new Set(ids)].filter((id) => !cache.has(keyOf(id)));
  if (missing.length > 0) {
    const loading = read(missing);
    for (const id of missing)
      cache.set(
        keyOf(id),
        loading.then((found) => found.get(id)),
      );
  }
  const values = await Promise.all(ids.map((id) => cache.get(keyOf(id))));
  const answer = new Map<string, V>();
  ids.forEach((id, index) => {
    if (values[index] !== undefined) answer.set(id, values[index] as V);
  });
  return answer;
}

/**
 * What one stream batch reads once: members' access per organization (memberships, then their teams and
 * custom roles, in rounds), permissions per library and set of roles, the where-used entries and the
 * assemblies above a component, and the watchers of a target (forgotten whenever an event puts automatic
 * watches). A group of events is read ahead (`readAhead`): the where-used entries of all the components it
 * is about in rounds of 100, and the watches of a library it is about several times whole, where that
 * costs no more (a release of 1,000 components reads ten rounds and one Query, not 1,000 of each).
 */
class BatchReads {
  private readonly access = new Map<string, Promise<EffectiveAccess | undefined>>();
  private readonly permissions = new Map<string, ReadonlySet<PermissionName>>();
  private readonly ancestors = new Map<string, Promise<Set<string>>>();
  private watchers = new Map<string, Promise<WatchRecord[]>>();
  private readonly usages = new Map<string, Promise<UsageRecord | undefined>>();
  /** Watches read whole, by target, per library (undefined: it holds too many, read per target). */
  private libraryWatches = new Map<string, Promise<Map<string, WatchRecord[]> | undefined>>();

  constructor(readonly store: Store) {}

  /** Reads ahead what a group of events will ask for: see the class. */
  async readAhead(events: readonly { event: FanoutEvent; touch: Touch }[]): Promise<void> {
    const libraries = new Map<string, { orgId: string; libraryId: string; targets: Set<string>; upward: Set<string> }>();
    for (const { event, touch } of events) {
      const key = `${event.organizationId}|${event.libraryId}`;
      let library = libraries.get(key);
      if (!library) libraries.set(key, (library = { orgId: event.organizationId, libraryId: event.libraryId, targets: new Set(), upward: new Set() }));
      if (!touch.mentionsOnly) library.targets.add(touch.subjectId);
      if (touch.upward) library.upward.add(touch.subjectId);
    }
    await Promise.all(
      [...libraries].map(async ([key, { orgId, libraryId, targets, upward }]) => {
        if (targets.size >= 2 && !this.libraryWatches.has(key)) this.libraryWatches.set(key, listLibraryWatchersUpTo(this.store, orgId, libraryId, targets.size * watchItemsPerTarget));
        await Promise.all([this.libraryWatches.get(key), this.usagesOf(orgId, libraryId, [...upward])]);
      }),
    );
  }

  /** The where-used entries of components (absent: used nowhere), each read once per batch, in rounds of 100. */
  usagesOf(orgId: string, libraryId: string, ids: readonly string[]): Promise<Map<string, UsageRecord>> {
    return readOnce(
      this.usages,
      ids,
      (id) => `${orgId}|${libraryId}|${id}`,
      (missing) => inRounds(missing, (round) => getUsages(this.store, orgId, libraryId, round)),
    );
  }

  /** The effective access of each user who is a member of the organization (absent: not a member). */
  accessOf(orgId: string, userIds: readonly string[]): Promise<Map<string, EffectiveAccess>> {
    return readOnce(
      this.access,
      userIds,
      (userId) => `${orgId}|${userId}`,
      (missing) => inRounds(missing, (ids) => getMemberships(this.store, orgId, ids)).then((memberships) => loadEffectiveAccesses(this.store, orgId, [...memberships.values()])),
    );
  }

  /** A member's permissions in a library, computed once per library and set of roles that applies there. */
  libraryPermissions(access: EffectiveAccess, libraryId: string): ReadonlySet<PermissionName> {
    const key = `${libraryId}|${access.grants.map((grant) => grant.libraryRoles[libraryId] ?? grant.orgRoleId ?? '-').join(',')}`;
    let permissions = this.permissions.get(key);
    if (!permissions) this.permissions.set(key, (permissions = access.libraryPermissions(libraryId)));
    return permissions;
  }

  ancestorsOf(orgId: string, libraryId: string, componentId: string): Promise<Set<string>> {
    const key = `${orgId}|${libraryId}|${componentId}`;
    let found = this.ancestors.get(key);
    if (!found) this.ancestors.set(key, (found = ancestorsOf(this.store, orgId, libraryId, componentId, (ids) => this.usagesOf(orgId, libraryId, ids))));
    return found;
  }

  watchersOf(orgId: string, libraryId: string, targetId: string): Promise<WatchRecord[]> {
    const key = `${orgId}|${libraryId}|${targetId}`;
    let found = this.watchers.get(key);
    if (!found) {
      const library = this.libraryWatches.get(`${orgId}|${libraryId}`);
      const perTarget = () => listWatchers(this.store, orgId, libraryId, targetId);
      found = library ? library.then((byTarget) => (byTarget ? (byTarget.get(targetId) ?? []) : perTarget())) : perTarget();
      this.watchers.set(key, found);
    }
    return found;
  }

  /** Automatic watches were put: the watchers read so far are out of date. */
  forgetWatchers(): void {
    this.watchers = new Map();
    this.libraryWatches = new Map();
  }
}

/** How far up where-used is followed (BOMs deeper than this are not expected; it also bounds a cycle). */
const maxAncestorDepth = 25;

/** The assemblies above a component at every level (where-used entries read by `usagesOf`), each confirmed against its current BOM. */
async function ancestorsOf(store: Store, orgId: string, libraryId: string, componentId: string, usagesOf: (ids: string[]) => Promise<Map<string, UsageRecord>>): Promise<Set<string>> {
  const found = new Set<string>();
  let level = [componentId];
  for (let depth = 0; depth < maxAncestorDepth && level.length > 0; depth += 1) {
    const usages = await usagesOf(level);
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
  /** Only the mentioned users are told (an edit that added mentions), not the watchers. */
  mentionsOnly?: boolean;
  /** A comment's text, which a mention's summary quotes, and the comment's id (its deletion withdraws the text: service.ts). */
  quote?: string;
  commentId?: string;
}

const str = (value: unknown) => (typeof value === 'string' ? value : null);

/** What an event means for watchers (undefined: nothing to tell). */
export function touchOf(event: FanoutEvent, change?: ChangedItem): Touch | undefined {
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
    case 'COMMENT_CREATED':
    case 'COMMENT_MENTIONS_ADDED': {
      const comment = data.comment as Record<string, unknown>;
      const quote = String(comment.body ?? '').slice(0, 200);
      const created = event.type === 'COMMENT_CREATED';
      return {
        kind: 'COMMENT',
        subjectId: str(comment.targetId)!,
        actorId: created ? str(comment.createdBy) : str(comment.editedBy),
        summary: created ? `New comment: ${quote}` : `Comment edited: ${quote}`,
        upward: false,
        mentions: (comment.mentions as string[]) ?? [],
        mentionsOnly: !created,
        quote,
        ...(str(comment.id) ? { commentId: str(comment.id)! } : {}),
      };
    }
    default:
      return undefined;
  }
}

async function recipientsOf(reads: BatchReads, event: FanoutEvent, touch: Touch): Promise<Recipient[]> {
  const { organizationId: org, libraryId: lib } = event;
  const direct = touch.mentionsOnly ? [] : await reads.watchersOf(org, lib, touch.subjectId);
  const ancestors = touch.upward ? [...(await reads.ancestorsOf(org, lib, touch.subjectId))] : [];
  const above = (await Promise.all(ancestors.map((id) => reads.watchersOf(org, lib, id)))).flat().filter((watch) => watch.withChildren);
  const byUser = new Map<string, Recipient>();
  for (const mentioned of touch.mentions) byUser.set(mentioned, { userId: mentioned, kind: 'MENTION', targetId: touch.subjectId });
  for (const watch of [...direct, ...above]) if (!byUser.has(watch.userId)) byUser.set(watch.userId, { userId: watch.userId, kind: touch.kind, targetId: watch.targetId });
  if (touch.actorId) byUser.delete(touch.actorId);
  return readersOnly(reads, event, touch, [...byUser.values()]);
}

/**
 * Only people who may still read what they are told about: members of the organization holding
 * components.read in the library (and change_orders.read for a change order). A watch outlives a removed
 * membership or a narrowed role; what it would tell is withheld then.
 */
async function readersOnly(reads: BatchReads, event: FanoutEvent, touch: Touch, recipients: Recipient[]): Promise<Recipient[]> {
  if (recipients.length === 0) return recipients;
  const access = await reads.accessOf(
    event.organizationId,
    recipients.map((r) => r.userId),
  );
  const needsChangeOrders = touch.kind === 'CHANGE_ORDER_TRANSITIONED' || (event.data.comment !== undefined && (event.data.comment as Record<string, unknown>).targetType === 'CHANGE_ORDER');
  return recipients.filter((recipient) => {
    const held = access.get(recipient.userId);
    if (!held) return false;
    const permissions = reads.libraryPermissions(held, event.libraryId);
    return permissions.has('components.read') && (!needsChangeOrders || permissions.has('change_orders.read'));
  });
}

/** Automatic watches an event brings: comment authors and mentioned users, change order reviewers. */
async function automaticWatchesOf(store: Store, event: FanoutEvent, change: ChangedItem): Promise<WatchRecord[]> {
  const base = { organizationId: event.organizationId, libraryId: event.libraryId, withChildren: false, active: true, automatic: true, createdAt: event.occurredAt };
  const watches: WatchRecord[] = [];
  if (event.type === 'COMMENT_CREATED' || event.type === 'COMMENT_MENTIONS_ADDED') {
    const comment = (event.data.comment ?? {}) as Record<string, unknown>;
    const component = comment.targetType === 'COMPONENT' ? await getComponent(store, event.organizationId, event.libraryId, String(comment.targetId)) : undefined;
    const targetType = comment.targetType === 'CHANGE_ORDER' ? 'CHANGE_ORDER' : component?.category.type === 'ASSEMBLY' ? 'ASSEMBLY' : 'COMPONENT';
    // A new comment's author and mentioned users; the users an edit added to the mentions.
    const authors = event.type === 'COMMENT_CREATED' ? [comment.createdBy] : [];
    for (const userId of [...authors, ...((comment.mentions as unknown[]) ?? [])]) {
      if (typeof userId === 'string') watches.push({ ...base, userId, targetType, targetId: String(comment.targetId) });
    }
  }
  if (event.type === 'CHANGE_ORDER_TRANSITIONED' && change.newImage) {
    const stages = (change.newImage.stages as { reviewers?: { userId?: string }[] }[] | undefined) ?? [];
    const reviewers = new Set(stages.flatMap((stage) => (stage.reviewers ?? []).map((r) => r.userId)).filter((id): id is string => typeof id === 'string'));
    for (const userId of reviewers) watches.push({ ...base, userId, targetType: 'CHANGE_ORDER', targetId: String(change.newImage.id) });
  }
  return watches;
}

/** The notification of one recipient of an event: its id derives from the event and the user (once per both). */
function notificationOf(event: FanoutEvent, touch: Touch, recipient: Recipient): NotificationRecord {
  return {
    id: timeOrderedId(new Date(event.occurredAt), `${event.id}:${recipient.userId}`),
    userId: recipient.userId,
    organizationId: event.organizationId,
    libraryId: event.libraryId,
    kind: recipient.kind,
    targetId: recipient.targetId,
    subjectId: touch.subjectId === recipient.targetId ? null : touch.subjectId,
    actorId: touch.actorId,
    summary: recipient.kind === 'MENTION' ? `You were mentioned: ${touch.quote ?? touch.summary}` : touch.summary,
    ...(touch.commentId ? { commentId: touch.commentId } : {}),
    eventId: event.id,
    createdAt: event.occurredAt,
    read: false,
  };
}

/** The settings and users of the recipients, read in BatchGetItem rounds (beside the notifications' writes). */
interface Addressees {
  settings: Map<string, NotificationSettingsRecord>;
  users: Map<string, UserRecord>;
}

async function addresseesOf(store: Store, notifications: readonly NotificationRecord[]): Promise<Addressees> {
  const [settings, users] = await Promise.all([
    inRounds(
      notifications.filter((record) => record.kind !== 'MENTION').map((record) => record.userId),
      (ids) => getNotificationSettingsOf(store, ids),
    ),
    inRounds(
      notifications.map((record) => record.userId),
      (ids) => getUsers(store, ids),
    ),
  ]);
  return { settings, users };
}

/**
 * Tells the recipients of the notifications just created: a mail each, or (a digest user, but for a
 * mention, which always mails) a place in the next digest, marked once per user with the earliest time.
 * Mails go out a few at a time, every one tried before the first failure is thrown (the stream retries
 * the batch; the notifications exist by then).
 */
async function deliver(deps: NotificationDeps, created: readonly NotificationRecord[], { settings, users }: Addressees): Promise<void> {
  const digestSince = new Map<string, string>();
  const mailed: NotificationRecord[] = [];
  // A comment deleted before its notification was made is not mailed (the notification shows no text either).
  const deleted = await ofDeletedComments(deps.store, created);
  for (const record of created) {
    if (deleted.has(record)) continue;
    if (record.kind !== 'MENTION' && settings.get(record.userId)?.email === 'DIGEST') {
      const since = digestSince.get(record.userId);
      if (since === undefined || record.createdAt < since) digestSince.set(record.userId, record.createdAt);
    } else mailed.push(record);
  }
  const failures: unknown[] = [];
  await mapLimited([...digestSince], mailsInFlight, ([userId, since]) => markDigestDue(deps.store, userId, since).catch((error: unknown) => void failures.push(error)));
  await mapLimited(mailed, mailsInFlight, async (record) => {
    const address = mailAddressOf(users.get(record.userId));
    if (address) await deps.mailer.send(notificationMail(address, record, deps.appUrl)).catch((error: unknown) => void failures.push(error));
  });
  if (failures.length > 0) throw failures[0];
}

/** Fans a batch of changed items out to watchers; returns how many notifications it created. */
export async function notifyChanges(deps: NotificationDeps, changes: ChangedItem[]): Promise<number> {
  const reads = new BatchReads(deps.store);
  const notifications: NotificationRecord[] = [];
  let waiting: { event: FanoutEvent; touch: Touch }[] = [];
  const findRecipients = async () => {
    await reads.readAhead(waiting);
    const found = await mapLimited(waiting, eventsInFlight, async ({ event, touch }) => (await recipientsOf(reads, event, touch)).map((recipient) => notificationOf(event, touch, recipient)));
    notifications.push(...found.flat());
    waiting = [];
  };
  for (const change of changes) {
    // What a library import inserts (its comments, BOMs: tagged with its id) is old news: nobody is told, and
    // the authors and mentioned users of imported comments watch only as the export says (lib/transfer/discussion.ts).
    if (change.kind === 'INSERT' && change.newImage?.importId !== undefined) continue;
    const event: FanoutEvent | undefined = eventOf(change) ?? mentionsAddedOf(change);
    if (!event) continue;
    const watches = await automaticWatchesOf(deps.store, event, change);
    if (watches.length > 0) {
      // The events before this one are told before its watches exist; this one and those after, after.
      await findRecipients();
      await Promise.all(watches.map((watch) => putAutomaticWatch(deps.store, watch)));
      reads.forgetWatchers();
    }
    const touch = touchOf(event, change);
    if (touch?.subjectId) waiting.push({ event, touch });
  }
  await findRecipients();
  // Who is told how is read while the notifications are written (a redelivered batch reads it in vain).
  const [addressees, created] = await Promise.all([addresseesOf(deps.store, notifications), putNotifications(deps.store, notifications)]);
  await deliver(deps, created, addressees);
  return created.length;
}
