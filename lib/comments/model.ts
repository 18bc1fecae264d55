import { DomainError, InvalidInputError } from '../errors.js';
import { isUuid } from '../model/slugs.js';

/** The longest Markdown body a comment may have, in characters (stored as written). */
export const maxCommentLength = 10_000;
/** The most users one comment may mention. */
export const maxMentions = 50;

/** A reply to a reply: threads are one level deep. */
export class CommentThreadDepthError extends DomainError {
  constructor() {
    super('COMMENT_THREAD_TOO_DEEP', 'Replies are one level deep: reply to the thread (its first comment), not to a reply', undefined);
  }
}

export class CommentThreadLockedError extends DomainError {
  constructor(rootId: string) {
    super('COMMENT_THREAD_LOCKED', 'This thread is locked: only a moderator (comments.moderate) may change it', undefined, { threadId: rootId });
  }
}

export class CommentDeletedError extends DomainError {
  constructor(id: string) {
    super('COMMENT_DELETED', `Comment ${id} was deleted`, undefined, { id });
  }
}

/** A mention of someone who is not a member who may read the target (components.read in the library; change_orders.read for a change order). */
export class MentionNotAllowedError extends DomainError {
  constructor(userIds: string[]) {
    super('MENTION_NOT_ALLOWED', `Only members who can read what is commented on may be mentioned: ${userIds.join(', ')}`, undefined, { userIds });
  }
}

const mentionPattern = /@\[[^\]]*\]\(user:([0-9a-fA-F-]{36})\)/g;

/** The users a body mentions (`@[name](user:<uuid>)`) together with an explicit list, lower case, once each. */
export function mentionsOf(body: string, listed: readonly string[] = []): string[] {
  const found = [...body.matchAll(mentionPattern)].map((match) => match[1]!);
  const all = [...found, ...listed].map((id) => id.toLowerCase());
  const bad = all.filter((id) => !isUuid(id));
  if (bad.length > 0) throw new InvalidInputError(`mentions: not a user id: ${bad[0]}`, { field: 'mentions' });
  const unique = [...new Set(all)];
  if (unique.length > maxMentions) throw new InvalidInputError(`A comment may mention at most ${maxMentions} users`, { field: 'mentions' });
  return unique;
}

/** The body as written, checked: not blank, at most 10,000 characters. */
export function checkedBody(body: string): string {
  if (body.trim().length === 0) throw new InvalidInputError('body: a comment needs some text', { field: 'body' });
  if ([...body].length > maxCommentLength) throw new InvalidInputError(`body: at most ${maxCommentLength} characters`, { field: 'body' });
  return body;
}
