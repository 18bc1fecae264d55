import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { counterKey } from './counter.js';
import { batchGetRecords, getItem, queryPrefix, updateIf, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';

/**
 * A change request (problem report): one item with its fields, affected components, values, history and
 * the change order it was promoted into; `rev` conditions every write.
 */
export const changeRequestKey = (orgId: string, libraryId: string, id: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `CR#${id}` });

export const changeRequestStatuses = ['DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED', 'DEFERRED', 'CLOSED'] as const;
export const changeRequestPriorities = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

export const changeRequestRecord = z.object({
  id: z.string().uuid(),
  number: z.string(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  title: z.string(),
  description: z.string().nullable(),
  priority: z.enum(changeRequestPriorities),
  componentIds: z.array(z.string()),
  values: z.record(z.string(), z.unknown()),
  status: z.enum(changeRequestStatuses),
  /** The change order it was promoted into (null until promoted). */
  changeOrderId: z.string().nullable(),
  history: z.array(z.object({ action: z.string(), by: z.string(), at: z.string(), comment: z.string().nullable(), status: z.string() })),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  rev: z.number().int(),
});
export type ChangeRequestRecord = z.infer<typeof changeRequestRecord>;

/** A put conditioned on the revision read (null: the item must not exist). */
export function changeRequestPut(record: ChangeRequestRecord, previousRev: number | null): WriteItem {
  return {
    Put: {
      Item: { ...changeRequestKey(record.organizationId, record.libraryId, record.id), entity: 'ChangeRequest', ...record },
      ...(previousRev === null ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': previousRev } }),
    },
  };
}

export function getChangeRequest(store: Store, orgId: string, libraryId: string, id: string): Promise<ChangeRequestRecord | undefined> {
  return getItem(store, changeRequestKey(orgId, libraryId, id), changeRequestRecord, 'change request');
}

export function getChangeRequests(store: Store, orgId: string, libraryId: string, ids: string[]): Promise<Map<string, ChangeRequestRecord>> {
  return batchGetRecords(store, ids, (id) => changeRequestKey(orgId, libraryId, id), changeRequestRecord, 'change request');
}

export function listChangeRequests(store: Store, orgId: string, libraryId: string): Promise<ChangeRequestRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'CR#', changeRequestRecord, 'change request');
}

/**
 * Closes a request promoted into `changeOrderId` once that order released: applies only while the request
 * is still open and linked to that order, so a second call (or a close by hand) changes nothing.
 */
export function closeReleasedChangeRequest(store: Store, orgId: string, libraryId: string, id: string, changeOrderId: string, entry: ChangeRequestRecord['history'][number]): Promise<boolean> {
  return updateIf(store, {
    Key: changeRequestKey(orgId, libraryId, id),
    UpdateExpression: 'SET #status = :closed, updatedAt = :at, #history = list_append(#history, :entry), rev = rev + :one',
    ConditionExpression: 'changeOrderId = :order AND #status <> :closed',
    ExpressionAttributeNames: { '#status': 'status', '#history': 'history' },
    ExpressionAttributeValues: { ':closed': 'CLOSED', ':at': entry.at, ':entry': [entry], ':one': 1, ':order': changeOrderId },
  });
}

/** The library's next change request number (CR-000001, ...): one atomic counter. */
export async function nextChangeRequestNumber(store: Store, orgId: string, libraryId: string): Promise<string> {
  const result = await store.ddb.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: counterKey(orgId, libraryId, 'CHANGE_REQUEST', 'number'),
      UpdateExpression: 'SET #value = if_not_exists(#value, :zero) + :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return `CR-${String(result.Attributes?.value ?? 1).padStart(6, '0')}`;
}
export type ChangeRequestHistoryRecord = ChangeRequestRecord['history'][number];
