import { auditExportColumns } from '../audit/export.js';
import { maxCommentLength, maxMentions } from '../comments/model.js';
import type { ImportProblem } from '../errors.js';
import type { LibraryRef } from '../model/scope.js';
import { timeOrderedId } from '../model/timeId.js';
import { usersOfOrganization } from '../people/users.js';
import { listAuditEntries } from '../store/audit.js';
import type { Store } from '../store/client.js';
import { importedCommentItems, listLibraryComments, type CommentRecord } from '../store/comment.js';
import type { ComponentRecord } from '../store/component.js';
import { getMemberships, membersOrFormerMembers } from '../store/membership.js';
import { findUserIdByEmail } from '../store/user.js';
import { importedWatchItem, listLibraryWatches } from '../store/watch.js';
import type { ExportedAuditEntry, ExportedComment, ExportedComponent, ExportedWatch, Manifest } from './format.js';
import type { Locations } from './validate.js';

/**
 * Comments, watches and audit entries in a library export (format.ts).
 *
 * Export: the comments on the library's components (threads in order, tombstones, resolved and locked state,
 * mentions) and their watches (unwatched ones too, so that an automatic watch does not come back), the names
 * and emails of the people they name (`manifest.people`), and, when asked, the organization's audit entries
 * about the library. Comments and watches of change orders stay, as change orders do (the export does not
 * carry them).
 *
 * Import: every comment gets a new time-ordered id (threads keep their order) and its component's new id.
 * People are matched in the TARGET organization: a user id that is (or was) a member there is kept; else the
 * exported email, when it belongs to a current member, gives that member. A comment whose author matches
 * nobody keeps its text with `createdBy` null and the author's exported name in `authorName` (counted in
 * `commentAuthorsUnmatched`): a comment is someone's words, and is never attributed to the importing user.
 * editedBy, deletedBy and resolvedBy that match nobody become null; mentions that match nobody are dropped
 * from the list (the body stays as written). A watch whose watcher matches nobody is dropped
 * (`watchesDropped`). Audit entries are read only: an import validates their shape, counts them
 * (`auditEntriesSkipped`) and writes none, so the target's chain holds only its own entries (among them the
 * import's); the export file is the archive of the source's log.
 */

export interface ExportedDiscussion {
  commentsOf: Map<string, ExportedComment[]>;
  watchesOf: Map<string, ExportedWatch[]>;
  people: NonNullable<Manifest['people']>;
}

const namedBy = (comment: Pick<CommentRecord, 'createdBy' | 'editedBy' | 'deletedBy' | 'resolvedBy' | 'mentions'>) =>
  [comment.createdBy, comment.editedBy, comment.deletedBy, comment.resolvedBy, ...comment.mentions].filter((id): id is string => typeof id === 'string');

/** The comments and watches of the given components (two Queries), and the people they name (one BatchGetItem per 100). */
export async function exportDiscussion(store: Store, ref: LibraryRef, componentIds: ReadonlySet<string>): Promise<ExportedDiscussion> {
  const [comments, watches] = await Promise.all([listLibraryComments(store, ref.organizationId, ref.libraryId), listLibraryWatches(store, ref.organizationId, ref.libraryId)]);
  const commentsOf = new Map<string, ExportedComment[]>();
  const watchesOf = new Map<string, ExportedWatch[]>();
  const named = new Set<string>();
  for (const { organizationId: _o, libraryId: _l, targetType, targetId, ...comment } of comments) {
    if (targetType !== 'COMPONENT' || !componentIds.has(targetId)) continue;
    (commentsOf.get(targetId) ?? commentsOf.set(targetId, []).get(targetId)!).push(comment);
    for (const id of namedBy(comment)) named.add(id);
  }
  for (const watch of watches) {
    if (watch.targetType === 'CHANGE_ORDER' || !componentIds.has(watch.targetId)) continue;
    (watchesOf.get(watch.targetId) ?? watchesOf.set(watch.targetId, []).get(watch.targetId)!).push({
      userId: watch.userId,
      withChildren: watch.withChildren,
      active: watch.active,
      automatic: watch.automatic,
      createdAt: watch.createdAt,
    });
    named.add(watch.userId);
  }
  const users = await usersOfOrganization(store, ref.organizationId, [...named]);
  const people: ExportedDiscussion['people'] = {};
  for (const id of [...named].sort()) {
    const user = users.get(id);
    if (user) people[id] = { name: user.name, email: user.primaryEmail };
  }
  return { commentsOf, watchesOf, people };
}

/**
 * The organization's audit entries about the library, oldest first: those whose targets name the library or
 * one of `ids` (its components, comments, files, templates). Entries of library-scoped operations that name
 * none of them among their arguments (a configuration document's update, say) are not among them.
 */
export async function exportAuditEntries(store: Store, ref: LibraryRef, ids: ReadonlySet<string>): Promise<ExportedAuditEntry[]> {
  const entries = await listAuditEntries(store, `ORG#${ref.organizationId}#AUDIT`);
  return entries
    .filter((entry) => entry.targets.some((target) => target === ref.libraryId || ids.has(target)))
    .map((entry) => Object.fromEntries(auditExportColumns.map((column) => [column, entry[column] ?? null])) as ExportedAuditEntry);
}

/** Problems of the exported comments and watches: thread structure, ids, times, limits; paths `<component>.comments[j]...`. */
export function discussionProblems(components: readonly ExportedComponent[], locations: Locations, isAssembly: (component: ExportedComponent) => boolean): ImportProblem[] {
  const problems: ImportProblem[] = [];
  const ids = new Set<string>();
  for (const [i, c] of components.entries()) {
    const at = `${locations.component(i)}.comments`;
    const roots = new Set<string>();
    for (const [j, comment] of (c.comments ?? []).entries()) {
      const where = `${at}[${j}]`;
      if (ids.has(comment.id)) problems.push({ path: `${where}.id`, code: 'DUPLICATE_ID', message: `comment id ${comment.id} appears twice` });
      ids.add(comment.id);
      if (comment.parentId === null) {
        if (comment.rootId !== comment.id) problems.push({ path: `${where}.rootId`, code: 'COMMENT_THREAD_INVALID', message: "a thread's first comment is its own root" });
        roots.add(comment.id);
      } else if (!roots.has(comment.parentId) || comment.rootId !== comment.parentId) {
        problems.push({
          path: `${where}.parentId`,
          code: 'COMMENT_THREAD_INVALID',
          message: `a reply names a thread's first comment of the same component, before it (rootId = parentId): ${comment.parentId} is not one`,
        });
      }
      if (comment.body !== null && [...comment.body].length > maxCommentLength) problems.push({ path: `${where}.body`, code: 'BAD_USER_INPUT', message: `at most ${maxCommentLength} characters` });
      if (comment.body === null && !comment.deleted) problems.push({ path: `${where}.body`, code: 'BAD_USER_INPUT', message: 'only a deleted comment has no body' });
      if (comment.mentions.length > maxMentions) problems.push({ path: `${where}.mentions`, code: 'BAD_USER_INPUT', message: `at most ${maxMentions} mentions` });
      if (Number.isNaN(Date.parse(comment.createdAt))) problems.push({ path: `${where}.createdAt`, code: 'BAD_USER_INPUT', message: `not a time: ${comment.createdAt}` });
    }
    const watchers = new Set<string>();
    for (const [j, watch] of (c.watches ?? []).entries()) {
      const where = `${locations.component(i)}.watches[${j}]`;
      if (watchers.has(watch.userId)) problems.push({ path: `${where}.userId`, code: 'DUPLICATE_ID', message: `${watch.userId} watches the component twice` });
      watchers.add(watch.userId);
      if (watch.withChildren && !isAssembly(c)) problems.push({ path: `${where}.withChildren`, code: 'BAD_USER_INPUT', message: 'only an assembly is watched with its children' });
    }
  }
  return problems;
}

/** Each source user id the comments and watches name, mapped to a user of the target organization, or null. */
export async function matchPeople(store: Store, organizationId: string, components: readonly ExportedComponent[], people: Manifest['people']): Promise<Map<string, string | null>> {
  const named = new Set<string>();
  for (const c of components) {
    for (const comment of c.comments ?? []) for (const id of namedBy(comment)) named.add(id);
    for (const watch of c.watches ?? []) named.add(watch.userId);
  }
  const kept = await membersOrFormerMembers(store, organizationId, [...named]);
  const byEmail = new Map<string, string>();
  await Promise.all(
    [...named]
      .filter((id) => !kept.has(id) && people?.[id]?.email)
      .map(async (id) => {
        const found = await findUserIdByEmail(store, people![id]!.email!);
        if (found) byEmail.set(id, found);
      }),
  );
  const members = await getMemberships(store, organizationId, [...new Set(byEmail.values())]);
  return new Map([...named].map((id) => [id, kept.has(id) ? id : members.has(byEmail.get(id) ?? '') ? byEmail.get(id)! : null]));
}

export interface DiscussionImport {
  items: Record<string, unknown>[];
  comments: number;
  watches: number;
  watchesDropped: number;
  commentAuthorsUnmatched: number;
}

/** The items of the imported comments and watches of `components`, whose new records are `records` (same order). */
export function discussionItems(
  components: readonly ExportedComponent[],
  records: readonly ComponentRecord[],
  person: ReadonlyMap<string, string | null>,
  people: Manifest['people'],
  importId: string,
): DiscussionImport {
  const map = (id: string | null) => (id === null ? null : (person.get(id) ?? null));
  const comments: CommentRecord[] = [];
  const items: Record<string, unknown>[] = [];
  let watches = 0;
  let watchesDropped = 0;
  let commentAuthorsUnmatched = 0;
  for (const [i, c] of components.entries()) {
    const record = records[i]!;
    const ids = new Map<string, string>();
    for (const comment of c.comments ?? []) {
      const id = timeOrderedId(new Date(comment.createdAt));
      ids.set(comment.id, id);
      const createdBy = map(comment.createdBy);
      if (createdBy === null) commentAuthorsUnmatched += 1;
      comments.push({
        ...comment,
        id,
        organizationId: record.organizationId,
        libraryId: record.libraryId,
        targetType: 'COMPONENT',
        targetId: record.id,
        rootId: ids.get(comment.rootId) ?? id,
        parentId: comment.parentId === null ? null : ids.get(comment.parentId)!,
        mentions: comment.mentions.map(map).filter((m): m is string => m !== null),
        createdBy,
        authorName: createdBy === null ? ((comment.createdBy ? people?.[comment.createdBy]?.name : undefined) ?? comment.authorName ?? null) : null,
        editedBy: map(comment.editedBy),
        deletedBy: map(comment.deletedBy),
        resolvedBy: map(comment.resolvedBy),
      });
    }
    const watchers = new Set<string>();
    for (const watch of c.watches ?? []) {
      const userId = map(watch.userId);
      // Two source people may be one member here (matched by id and by email): one watch each.
      if (userId === null || watchers.has(userId)) {
        watchesDropped += 1;
        continue;
      }
      watchers.add(userId);
      watches += 1;
      const targetType = record.category.type === 'ASSEMBLY' ? 'ASSEMBLY' : 'COMPONENT';
      items.push(importedWatchItem({ ...watch, userId, organizationId: record.organizationId, libraryId: record.libraryId, targetType, targetId: record.id }, importId));
    }
  }
  items.push(...importedCommentItems(comments, importId));
  return { items, comments: comments.length, watches, watchesDropped, commentAuthorsUnmatched };
}
