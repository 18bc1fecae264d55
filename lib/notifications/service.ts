import type { EffectiveAccess } from '../access/effective.js';
import type { PermissionName } from '../access/permissions.js';
import { memberAccess, type AccessKey } from '../access/keyRole.js';
import { BadRequestError, InvalidInputError, NotFoundError, PermissionDeniedError } from '../errors.js';
import type { LibraryScope } from '../model/scope.js';
import { isUuid } from '../model/slugs.js';
import { getChangeOrder } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { getCommentsById } from '../store/comment.js';
import { getComponent, getComponents } from '../store/component.js';
import { getMembership } from '../store/membership.js';
import { getOrganization } from '../store/organization.js';
import {
  getNotificationSettings,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  putNotificationSettings,
  type EmailMode,
  type NotificationRecord,
  type NotificationSettingsRecord,
} from '../store/notification.js';
import { getWatch, listWatchesOfUser, putWatch, type WatchRecord, type WatchTargetType } from '../store/watch.js';

/**
 * Watching (what the request path writes: a user's own watch or unwatch) and a user's notifications. The
 * notifications themselves are made from the table's stream (fanout.ts).
 */
export interface WatchDeps {
  store: Store;
  scope: LibraryScope;
  permissions: ReadonlySet<PermissionName>;
}

async function targetTypeOf(deps: WatchDeps, targetId: string): Promise<WatchTargetType> {
  const { organizationId: org, libraryId: lib } = deps.scope;
  if (!isUuid(targetId)) throw new NotFoundError('Watch target', targetId);
  const [component, changeOrder] = await Promise.all([getComponent(deps.store, org, lib, targetId), getChangeOrder(deps.store, org, lib, targetId)]);
  if (component) return component.category.type === 'ASSEMBLY' ? 'ASSEMBLY' : 'COMPONENT';
  if (changeOrder) {
    if (!deps.permissions.has('change_orders.read')) throw new PermissionDeniedError('change_orders.read');
    return 'CHANGE_ORDER';
  }
  throw new NotFoundError('Watch target', targetId);
}

/** Watches a component, an assembly (withChildren: also every component under it, at every level) or a change order. */
export async function watch(deps: WatchDeps, input: { targetId: string; withChildren?: boolean | null }): Promise<WatchRecord> {
  const targetId = input.targetId.toLowerCase();
  const targetType = await targetTypeOf(deps, targetId);
  if (input.withChildren && targetType !== 'ASSEMBLY') throw new InvalidInputError('withChildren: only an assembly has children', { field: 'withChildren' });
  const record: WatchRecord = {
    userId: deps.scope.userId,
    organizationId: deps.scope.organizationId,
    libraryId: deps.scope.libraryId,
    targetType,
    targetId,
    withChildren: Boolean(input.withChildren),
    active: true,
    automatic: false,
    createdAt: new Date().toISOString(),
  };
  await putWatch(deps.store, record);
  return record;
}

/** Stops watching; also keeps automatic watches (a later comment or review) from coming back. */
export async function unwatch(deps: WatchDeps, targetId: string): Promise<boolean> {
  const id = targetId.toLowerCase();
  const { organizationId, libraryId, userId } = deps.scope;
  // A target deleted since it was watched is gone, its watch is not: user.watching still lists it, so unwatch
  // ends it (it answered NOT_FOUND, and the watch stayed listed for good).
  const targetType = await targetTypeOf(deps, id).catch(async (error: unknown) => {
    const left = error instanceof NotFoundError && isUuid(id) ? await getWatch(deps.store, organizationId, libraryId, id, userId) : undefined;
    if (!left) throw error;
    return left.targetType;
  });
  await putWatch(deps.store, { userId, organizationId, libraryId, targetType, targetId: id, withChildren: false, active: false, automatic: false, createdAt: new Date().toISOString() });
  return true;
}

/**
 * The organization an API key's caller is held to, or null for a person's session (every organization). A
 * key is created for one library of one organization: through it, a person's notifications and watches of
 * their other organizations are neither read nor marked (they were: a key of one organization read and
 * marked read what another organization told the person).
 */
export type CallerOrganization = string | null;

export async function watchingOf(store: Store, userId: string, organizationId: CallerOrganization = null): Promise<WatchRecord[]> {
  const watches = await listWatchesOfUser(store, userId);
  return organizationId ? watches.filter((w) => w.organizationId === organizationId) : watches;
}

export interface NotificationPage {
  edges: { cursor: string; node: NotificationRecord }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/**
 * The caller's standing in an organization, for reading their notifications of it: their effective access
 * (an API key's capped by its role), or undefined when they are no longer a member.
 */
export type NotificationReaderAccess = (organizationId: string) => Promise<EffectiveAccess | undefined>;

/**
 * A reader's access from their membership (memberAccess: as their requests act), each organization read
 * once; `key`: the API key they read with, whose role caps it.
 */
export function memberAccessOf(store: Store, userId: string, key?: AccessKey): NotificationReaderAccess {
  const read = new Map<string, Promise<EffectiveAccess | undefined>>();
  return (organizationId) => {
    let access = read.get(organizationId);
    if (!access) {
      access = (async () => {
        const [membership, organization] = await Promise.all([getMembership(store, organizationId, userId), getOrganization(store, organizationId)]);
        if (!membership || !organization || organization.archived) return undefined;
        return memberAccess(store, membership, key);
      })();
      read.set(organizationId, access);
    }
    return access;
  };
}

/**
 * The notifications the reader may still read: what a notification says (names, comment text) is only for
 * those who may read its target now, as when it was made (fanout.ts, readersOnly): a member of the
 * organization holding components.read in the library, and change_orders.read for a change order (its
 * transitions, and comments on it). Access lost since hides them; regained, they show again. The daily
 * digest (digest.ts) mails only these too.
 */
export async function readableOnly(store: Store, items: NotificationRecord[], accessOf: NotificationReaderAccess): Promise<NotificationRecord[]> {
  const organizations = [...new Set(items.map((n) => n.organizationId))];
  const access = new Map(await Promise.all(organizations.map(async (id) => [id, await accessOf(id)] as const)));
  const verdicts = new Map<NotificationRecord, boolean>();
  // Comments seen by a reader without change_orders.read: shown when their target is a component.
  const commentTargets = new Map<string, { organizationId: string; libraryId: string; ids: Set<string> }>();
  for (const notification of items) {
    const permissions = access.get(notification.organizationId)?.libraryPermissions(notification.libraryId);
    if (!permissions?.has('components.read')) verdicts.set(notification, false);
    else if (permissions.has('change_orders.read')) verdicts.set(notification, true);
    else if (notification.kind === 'CHANGE_ORDER_TRANSITIONED') verdicts.set(notification, false);
    else if (notification.kind === 'COMMENT' || notification.kind === 'MENTION') {
      const key = `${notification.organizationId}/${notification.libraryId}`;
      const library = commentTargets.get(key) ?? { organizationId: notification.organizationId, libraryId: notification.libraryId, ids: new Set<string>() };
      library.ids.add(notification.targetId);
      commentTargets.set(key, library);
    } else verdicts.set(notification, true);
  }
  const components = new Set<string>();
  await Promise.all(
    [...commentTargets.values()].map(async (library) => {
      const found = await getComponents(store, library.organizationId, library.libraryId, [...library.ids]);
      for (const id of found.keys()) components.add(`${library.organizationId}/${library.libraryId}/${id}`);
    }),
  );
  return items.filter((n) => verdicts.get(n) ?? components.has(`${n.organizationId}/${n.libraryId}/${n.targetId}`));
}

/**
 * The notifications among these that quote a comment deleted since (its tombstone has no body): what they
 * quoted is no longer anyone's to read. (A comment gone with its library is not read here: its library's
 * notifications are withheld by readableOnly.) Notifications made before comments' ids were
 * kept on them (no `commentId`) cannot be told apart and keep their text.
 */
export async function ofDeletedComments(store: Store, items: readonly NotificationRecord[]): Promise<Set<NotificationRecord>> {
  const byLibrary = new Map<string, NotificationRecord[]>();
  for (const n of items)
    if (n.commentId) (byLibrary.get(`${n.organizationId}/${n.libraryId}`) ?? byLibrary.set(`${n.organizationId}/${n.libraryId}`, []).get(`${n.organizationId}/${n.libraryId}`)!).push(n);
  const deleted = new Set<NotificationRecord>();
  await Promise.all(
    [...byLibrary.values()].map(async (notes) => {
      const comments = await getCommentsById(store, notes[0]!.organizationId, notes[0]!.libraryId, [...new Set(notes.map((n) => n.commentId!))]);
      for (const n of notes) if (comments.get(n.commentId!)?.deleted === true) deleted.add(n);
    }),
  );
  return deleted;
}

/** What a notification of a deleted comment says instead of quoting it: that it was deleted, no text (as its tombstone). */
export const deletedCommentSummary = (kind: NotificationRecord['kind']): string => (kind === 'MENTION' ? 'You were mentioned in a comment, since deleted' : 'A comment, since deleted');

/**
 * A page of the caller's notifications, newest first, those they may no longer read left out (readableOnly):
 * a page can hold fewer than `first` while hasNextPage is true. A notification of a comment deleted since stays,
 * without the comment's text (deletedCommentSummary).
 */
export async function notificationsOf(
  store: Store,
  userId: string,
  unreadOnly: boolean,
  pagination: { first?: number | null; after?: string | null },
  organizationId: CallerOrganization = null,
  accessOf: NotificationReaderAccess = memberAccessOf(store, userId),
): Promise<NotificationPage> {
  const first = pagination.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 200) throw new BadRequestError('pagination.first: 1 to 200');
  if (pagination.after && !isUuid(pagination.after)) throw new BadRequestError('pagination.after: not a cursor of this list');
  const { items, hasMore } = await listNotifications(store, userId, unreadOnly, first, pagination.after ?? undefined, organizationId);
  const readable = await readableOnly(store, items, accessOf);
  const deleted = await ofDeletedComments(store, readable);
  const edges = readable.map((node) => ({ cursor: node.id, node: deleted.has(node) ? { ...node, summary: deletedCommentSummary(node.kind) } : node }));
  // The cursor is the last notification read, shown or not, so the next page goes on from there.
  return { edges, pageInfo: { hasNextPage: hasMore, endCursor: items.at(-1)?.id ?? null } };
}

/** Marks the caller's notifications read; ids that are not theirs are ignored. Returns how many it marked. */
export async function markRead(store: Store, userId: string, ids: readonly string[], organizationId: CallerOrganization = null): Promise<number> {
  if (ids.length > 100) throw new BadRequestError('ids: at most 100 at a time');
  const marked = await Promise.all([...new Set(ids.map((id) => id.toLowerCase()))].filter(isUuid).map((id) => markNotificationRead(store, userId, id, organizationId)));
  return marked.filter(Boolean).length;
}

export function markAllRead(store: Store, userId: string, organizationId: CallerOrganization = null): Promise<number> {
  return markAllNotificationsRead(store, userId, organizationId);
}

export function notificationSettingsOf(store: Store, userId: string): Promise<NotificationSettingsRecord> {
  return getNotificationSettings(store, userId);
}

export async function setNotificationSettings(store: Store, userId: string, input: { email: EmailMode }): Promise<NotificationSettingsRecord> {
  const settings = { email: input.email, updatedAt: new Date().toISOString() };
  await putNotificationSettings(store, userId, settings);
  return settings;
}
