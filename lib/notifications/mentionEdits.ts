import type { ChangedItem } from '../store/stream.js';
import { libraryOf, type WebhookEvent } from '../webhooks/events.js';

/**
 * What the fan-out reads of a changed item: a webhook event (lib/webhooks/events.ts) or an edit of a comment
 * that added mentions, which is no webhook event (no `comment.updated` is delivered) but tells the users it
 * added as a new comment's mentions are told.
 */
export type FanoutEvent = Omit<WebhookEvent, 'type'> & { type: WebhookEvent['type'] | 'COMMENT_MENTIONS_ADDED' };

const mentionsIn = (image: Record<string, unknown> | undefined) => (Array.isArray(image?.mentions) ? image.mentions.filter((id): id is string => typeof id === 'string') : []);

/**
 * An edit of a comment (not its deletion) whose mentions gained users: the event naming only the users the
 * edit added, so those mentioned before it are not told again. Its actor is the editor (`editedBy`).
 */
export function mentionsAddedOf(change: ChangedItem): FanoutEvent | undefined {
  const { oldImage: before, newImage: after } = change;
  if (change.kind !== 'MODIFY' || after?.entity !== 'Comment' || after.deleted === true || before?.deleted === true) return undefined;
  const library = libraryOf(after.PK);
  const earlier = new Set(mentionsIn(before));
  const added = mentionsIn(after).filter((id) => !earlier.has(id));
  if (!library || added.length === 0) return undefined;
  return {
    id: change.eventId,
    type: 'COMMENT_MENTIONS_ADDED',
    name: 'comment.mentions_added',
    ...library,
    occurredAt: change.at,
    data: {
      comment: {
        id: after.id,
        targetType: after.targetType,
        targetId: after.targetId,
        parentId: after.parentId ?? null,
        createdBy: after.createdBy,
        editedBy: after.editedBy ?? null,
        body: after.body ?? null,
        mentions: added,
      },
    },
  };
}
