import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { isStorableKey, parseItem, updateIf, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';

/**
 * The outbox of change order mails: the mails one committed action sends, written in the transaction of the
 * action (so a mail goes if and only if the action committed), sent by the jobs function when the table's
 * stream hands it the INSERT (lib/changeOrders/mailStream.ts). One item per action and revision.
 */
export const changeOrderMailKey = (orgId: string, libraryId: string, changeOrderId: string, rev: number) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `MAILOUT#${changeOrderId}#${rev}`,
});

/** What the mails of one action say, and to whom (users by id are resolved to their address when sent). */
const mail = z.object({
  to: z.array(z.string()),
  userIds: z.array(z.string()),
  subject: z.string(),
  lines: z.array(z.string()),
  /** False: no redline and impact counts in this mail. */
  summary: z.boolean().optional(),
});

/** A string set as DynamoDB gives it (a Set) or as it was put (an array). */
const stringSet = z.preprocess((value) => (value instanceof Set ? [...(value as Set<string>)] : (value ?? [])), z.array(z.string()));

export const changeOrderMailRecord = z.object({
  changeOrderId: z.string(),
  rev: z.number().int(),
  /**
   * The change order as the action committed it, as much as the mails need: the link, and the redline and
   * impact counts (lib/changeOrders/summary.ts counts the first components only; `componentCount` is the total).
   */
  order: z.object({
    id: z.string(),
    number: z.string(),
    organizationId: z.string(),
    libraryId: z.string(),
    createdBy: z.string(),
    resolution: z.enum(['APPROVED', 'REJECTED', 'WITHDRAWN']).nullable(),
    components: z.array(z.object({ componentId: z.string(), fromRevision: z.string(), toRevision: z.string().nullable() })),
    componentCount: z.number().int(),
  }),
  mails: z.array(mail),
  createdAt: z.string(),
  /** Progress: `<mail index> <address>` of each mail sent, so a redelivery of the stream record sends no address twice. */
  sentTo: stringSet,
  /** Set once every mail went: a redelivery after it sends nothing. */
  sentAt: z.string().nullable().default(null),
});
export type ChangeOrderMailRecord = z.infer<typeof changeOrderMailRecord>;
export type ChangeOrderMailInput = Omit<z.input<typeof changeOrderMailRecord>, 'sentTo' | 'sentAt'>;

/** An unsent item stays a week (the stream keeps a record a day); a sent one a day, for operators to see. */
const unsentRetentionSeconds = 7 * 24 * 60 * 60;
const sentRetentionSeconds = 24 * 60 * 60;

/** The outbox item, as one item of the action's transaction (its key is new: the revision conditions the order). */
export function changeOrderMailPut(input: ChangeOrderMailInput): WriteItem {
  const record = changeOrderMailRecord.parse({ ...input, sentTo: [], sentAt: null });
  const { sentTo: _none, ...item } = record;
  return {
    Put: {
      Item: {
        ...changeOrderMailKey(record.order.organizationId, record.order.libraryId, record.changeOrderId, record.rev),
        entity: 'ChangeOrderMail',
        ...item,
        expiresAt: Math.ceil(Date.parse(record.createdAt) / 1000) + unsentRetentionSeconds,
      },
    },
  };
}

/** The outbox item as a stream record's new image carries it, or undefined for any other item. */
export function changeOrderMailOfItem(item: Record<string, unknown> | undefined): ChangeOrderMailRecord | undefined {
  if (!item || item.entity !== 'ChangeOrderMail') return undefined;
  return parseItem(changeOrderMailRecord, item, 'change order mail');
}

/** The outbox item as it is now (strongly consistent: progress a moment ago counts), undefined once gone. */
export async function getChangeOrderMail(store: Store, orgId: string, libraryId: string, changeOrderId: string, rev: number): Promise<ChangeOrderMailRecord | undefined> {
  const key = changeOrderMailKey(orgId, libraryId, changeOrderId, rev);
  if (!isStorableKey(key)) return undefined;
  const { Item } = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: key, ConsistentRead: true }));
  return Item ? parseItem(changeOrderMailRecord, Item, 'change order mail') : undefined;
}

/** Records one address of one mail as sent; false when the item is gone (nothing is recreated). */
export function recordChangeOrderMailSent(store: Store, record: ChangeOrderMailRecord, marker: string): Promise<boolean> {
  return updateIf(store, {
    Key: changeOrderMailKey(record.order.organizationId, record.order.libraryId, record.changeOrderId, record.rev),
    UpdateExpression: 'ADD sentTo :one',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':one': new Set([marker]) },
  });
}

/** Every mail of the item went: marked (a redelivery sends nothing), kept a day. */
export function markChangeOrderMailSent(store: Store, record: ChangeOrderMailRecord, at: string): Promise<boolean> {
  return updateIf(store, {
    Key: changeOrderMailKey(record.order.organizationId, record.order.libraryId, record.changeOrderId, record.rev),
    UpdateExpression: 'SET sentAt = :at, expiresAt = :ttl',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':at': at, ':ttl': Math.ceil(Date.parse(at) / 1000) + sentRetentionSeconds },
  });
}
