import { loadEffectiveAccess } from '../access/effective.js';
import type { PermissionName } from '../access/permissions.js';
import { BadRequestError, ConcurrentWriteError, InvalidInputError, NotFoundError, PermissionDeniedError } from '../errors.js';
import type { LibraryScope } from '../model/scope.js';
import { isUuid } from '../model/slugs.js';
import { timeOrderedId } from '../model/timeId.js';
import { getChangeOrder } from '../store/changeOrder.js';
import {
  commentCreateItems,
  commentReplace,
  commentRootOpenCheck,
  commentTargetCheck,
  commentTombstoneItems,
  getComment,
  getCommentCounts,
  listComments,
  type CommentRecord,
  type CommentTargetType,
} from '../store/comment.js';
import type { Store } from '../store/client.js';
import { getComponent } from '../store/component.js';
import { transactWrite } from '../store/items.js';
import { getMemberships } from '../store/membership.js';
import { checkedBody, CommentDeletedError, CommentThreadDepthError, CommentThreadLockedError, mentionsOf, MentionNotAllowedError } from './model.js';

/**
 * Comments on components and change orders: threads one level deep, Markdown bodies, mentions of members
 * who can read the library, tombstones for deleted comments, locking by moderators. Keys carry the
 * organization and library of the request's scope, so another tenant's comment cannot be named.
 */
export interface CommentDeps {
  store: Store;
  scope: LibraryScope;
  /** The caller's effective permissions in the library. */
  permissions: ReadonlySet<PermissionName>;
}

export type Comment = CommentRecord;

export interface CommentPage {
  edges: { cursor: string; node: Comment }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const notFound = (id: string) => () => new NotFoundError('Comment', id);

function require(deps: CommentDeps, permission: PermissionName): void {
  if (!deps.permissions.has(permission)) throw new PermissionDeniedError(permission);
}

/** The target's kind, after checking that it exists in the library and that the caller may read it. */
async function targetOf(deps: CommentDeps, targetId: string): Promise<{ type: CommentTargetType; stages: number }> {
  const { organizationId: org, libraryId: lib } = deps.scope;
  if (!isUuid(targetId)) throw new NotFoundError('Comment target', targetId);
  const [component, changeOrder] = await Promise.all([getComponent(deps.store, org, lib, targetId), getChangeOrder(deps.store, org, lib, targetId)]);
  if (component) return { type: 'COMPONENT', stages: 0 };
  if (changeOrder) {
    require(deps, 'change_orders.read');
    return { type: 'CHANGE_ORDER', stages: changeOrder.stages.length };
  }
  throw new NotFoundError('Comment target', targetId);
}

/**
 * Every mentioned user must be a member of the organization holding components.read in the library, and
 * change_orders.read on a change order's thread: the same readers the notification goes to (fanout.ts,
 * readersOnly). A mention of anyone else was kept and put them on the watch list, and told them nothing.
 */
async function checkMentions(deps: CommentDeps, targetType: CommentTargetType, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  const memberships = await getMemberships(deps.store, deps.scope.organizationId, userIds);
  const needed: PermissionName[] = targetType === 'CHANGE_ORDER' ? ['components.read', 'change_orders.read'] : ['components.read'];
  const refused: string[] = [];
  for (const id of userIds) {
    const membership = memberships.get(id);
    const permissions = membership && (await loadEffectiveAccess(deps.store, membership)).libraryPermissions(deps.scope.libraryId);
    const allowed = permissions !== undefined && needed.every((permission) => permissions.has(permission));
    if (!allowed) refused.push(id);
  }
  if (refused.length > 0) throw new MentionNotAllowedError(refused);
}

async function loadComment(deps: CommentDeps, id: string): Promise<Comment> {
  const comment = isUuid(id) ? await getComment(deps.store, deps.scope.organizationId, deps.scope.libraryId, id.toLowerCase(), true) : undefined;
  if (!comment) throw new NotFoundError('Comment', id);
  if (comment.targetType === 'CHANGE_ORDER') require(deps, 'change_orders.read');
  return comment;
}

/** A comment's position in its target's list; the target is in the cursor, so one of another list is refused rather than read as a position in this one. */
const encodeCursor = (comment: Comment) => Buffer.from(JSON.stringify([comment.targetId, comment.rootId, comment.id])).toString('base64url');

function decodeCursor(cursor: string, targetId: string): { rootId: string; commentId: string } {
  try {
    const [target, rootId, commentId, ...rest] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (rest.length === 0 && target === targetId && typeof rootId === 'string' && typeof commentId === 'string' && isUuid(rootId) && isUuid(commentId)) return { rootId, commentId };
  } catch {
    // falls through to the refusal
  }
  throw new BadRequestError('pagination.after: not a cursor of this list');
}

/** A target's comments in thread order (each thread's first comment, then its replies), deleted ones as tombstones. */
export async function listTargetComments(deps: CommentDeps, targetId: string, pagination: { first?: number | null; after?: string | null }): Promise<CommentPage> {
  await targetOf(deps, targetId);
  const first = pagination.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 200) throw new BadRequestError('pagination.first: 1 to 200');
  const after = pagination.after ? decodeCursor(pagination.after, targetId.toLowerCase()) : undefined;
  const { comments, hasMore } = await listComments(deps.store, deps.scope.organizationId, deps.scope.libraryId, targetId.toLowerCase(), first, after);
  const edges = comments.map((node) => ({ cursor: encodeCursor(node), node }));
  return { edges, pageInfo: { hasNextPage: hasMore, endCursor: edges.at(-1)?.cursor ?? null } };
}

export interface CreateCommentInput {
  targetId: string;
  parentId?: string | null | undefined;
  /** A change order's stage (0-based) the thread is about: its decisions. Threads only. */
  stageIndex?: number | null | undefined;
  body: string;
  mentions?: readonly string[] | null | undefined;
}

export async function createComment(deps: CommentDeps, input: CreateCommentInput): Promise<Comment> {
  const body = checkedBody(input.body);
  const mentions = mentionsOf(body, input.mentions ?? []);
  const targetId = input.targetId.toLowerCase();
  const target = await targetOf(deps, targetId);
  const targetType = target.type;
  const stageIndex = input.stageIndex ?? null;
  if (stageIndex !== null && (input.parentId || targetType !== 'CHANGE_ORDER' || !Number.isInteger(stageIndex) || stageIndex < 0 || stageIndex >= target.stages)) {
    throw new InvalidInputError(`stageIndex: a stage of the change order (0 to ${Math.max(0, target.stages - 1)}), on a thread's first comment only`, { field: 'stageIndex' });
  }
  let root: Comment | undefined;
  // An empty parentId names no comment (NOT_FOUND), rather than being dropped for a thread of its own.
  if (input.parentId !== null && input.parentId !== undefined) {
    root = await loadComment(deps, input.parentId);
    if (root.targetId !== targetId) throw new BadRequestError('parentId: a comment of another target');
    if (root.parentId !== null) throw new CommentThreadDepthError();
    if (root.locked) throw new CommentThreadLockedError(root.id);
  }
  await checkMentions(deps, targetType, mentions);
  const now = new Date();
  const id = timeOrderedId(now);
  const at = now.toISOString();
  const record: Comment = {
    id,
    organizationId: deps.scope.organizationId,
    libraryId: deps.scope.libraryId,
    targetType,
    targetId,
    rootId: root?.id ?? id,
    parentId: root?.id ?? null,
    stageIndex: root ? root.stageIndex : stageIndex,
    body,
    mentions,
    createdBy: deps.scope.userId,
    createdAt: at,
    updatedAt: at,
    editedBy: null,
    deleted: false,
    deletedBy: null,
    deletedAt: null,
    locked: false,
    resolved: false,
    resolvedBy: null,
    version: 1,
  };
  await transactWrite(deps.store, [
    commentTargetCheck(record, () => new NotFoundError('Comment target', targetId)),
    ...(root ? [commentRootOpenCheck(root, () => new CommentThreadLockedError(root.id))] : []),
    ...commentCreateItems(record, () => new ConcurrentWriteError('Comment')),
  ]);
  return record;
}

/** Whose comment it is decides the permission: one's own with `own`, anyone's with comments.moderate. */
function requireOwnOr(deps: CommentDeps, comment: Comment, own: PermissionName): boolean {
  const moderator = deps.permissions.has('comments.moderate');
  if (comment.createdBy === deps.scope.userId && deps.permissions.has(own)) return moderator;
  if (!moderator) throw new PermissionDeniedError('comments.moderate');
  return true;
}

async function rootOf(deps: CommentDeps, comment: Comment): Promise<Comment> {
  return comment.parentId === null ? comment : loadComment(deps, comment.rootId);
}

async function replaced(deps: CommentDeps, before: Comment, changes: Partial<Comment>): Promise<Comment> {
  const after: Comment = { ...before, ...changes, updatedAt: new Date().toISOString(), version: before.version + 1 };
  await transactWrite(deps.store, [commentReplace(after, before.version, () => new ConcurrentWriteError(`Comment ${before.id}`))]);
  return after;
}

export async function updateComment(deps: CommentDeps, input: { id: string; body: string; mentions?: readonly string[] | null | undefined }): Promise<Comment> {
  const comment = await loadComment(deps, input.id);
  if (comment.deleted) throw new CommentDeletedError(comment.id);
  const moderator = requireOwnOr(deps, comment, 'comments.update');
  if (!moderator && (await rootOf(deps, comment)).locked) throw new CommentThreadLockedError(comment.rootId);
  const body = checkedBody(input.body);
  const mentions = mentionsOf(body, input.mentions ?? []);
  await checkMentions(
    deps,
    comment.targetType,
    mentions.filter((id) => !comment.mentions.includes(id)),
  );
  return replaced(deps, comment, { body, mentions, editedBy: deps.scope.userId });
}

export async function deleteComment(deps: CommentDeps, id: string): Promise<Comment> {
  const comment = await loadComment(deps, id);
  if (comment.deleted) throw new CommentDeletedError(comment.id);
  const moderator = requireOwnOr(deps, comment, 'comments.delete');
  if (!moderator && (await rootOf(deps, comment)).locked) throw new CommentThreadLockedError(comment.rootId);
  const at = new Date().toISOString();
  const tombstone: Comment = { ...comment, body: null, mentions: [], deleted: true, deletedBy: deps.scope.userId, deletedAt: at, updatedAt: at, version: comment.version + 1 };
  await transactWrite(
    deps.store,
    commentTombstoneItems(tombstone, comment.version, () => new ConcurrentWriteError(`Comment ${comment.id}`)),
  );
  return tombstone;
}

async function threadRoot(deps: CommentDeps, id: string): Promise<Comment> {
  const comment = await loadComment(deps, id);
  if (comment.parentId !== null) throw new BadRequestError('Threads are resolved, reopened, locked and unlocked by their first comment');
  return comment;
}

/** resolve / reopen: anyone who may comment (comments.update); a locked thread only by a moderator. */
export async function setThreadResolved(deps: CommentDeps, id: string, resolved: boolean): Promise<Comment> {
  const root = await threadRoot(deps, id);
  if (root.locked && !deps.permissions.has('comments.moderate')) throw new CommentThreadLockedError(root.id);
  if (root.resolved === resolved) return root;
  return replaced(deps, root, { resolved, resolvedBy: resolved ? deps.scope.userId : null });
}

/** lock / unlock (comments.moderate, checked by the operation's rule). */
export async function setThreadLocked(deps: CommentDeps, id: string, locked: boolean): Promise<Comment> {
  const root = await threadRoot(deps, id);
  if (root.locked === locked) return root;
  return replaced(deps, root, { locked });
}

/** commentCount of components and change orders: the counter kept with every comment write. */
export async function commentCounts(store: Store, scope: { organizationId: string; libraryId: string }, targetIds: string[]): Promise<Map<string, number>> {
  return getCommentCounts(store, scope.organizationId, scope.libraryId, targetIds);
}

/** Whether the root of a comment's thread is locked (a reply's view). */
export async function threadOf(deps: CommentDeps, comment: Comment): Promise<Comment> {
  return rootOf(deps, comment);
}
