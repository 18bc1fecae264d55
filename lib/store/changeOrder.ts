import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetRecords, getItem, queryAll, queryPrefix, updateIf, type WriteItem } from './items.js';
import { counterKey } from './counter.js';
import { libraryPartition } from './library.js';

/** A change order: one item holding its stages, decisions, components, values and history. */
export const changeOrderKey = (orgId: string, libraryId: string, id: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `CO#${id}` });

const reviewer = z.object({ userId: z.string(), isRequired: z.boolean(), isRequiredToApprove: z.boolean() });
const decision = z.object({ userId: z.string(), decision: z.enum(['APPROVE', 'REJECT']), comment: z.string().nullable(), at: z.string() });
const stage = z.object({
  name: z.string(),
  approvalType: z.enum(['Unanimous', 'Majority', 'Minimum']),
  minReviewers: z.number().int(),
  reviewers: z.array(reviewer),
  decisions: z.array(decision),
  openedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
  outcome: z.enum(['PASSED', 'REJECTED']).nullable(),
  notifyUserIds: z.array(z.string()),
  notifyEmails: z.array(z.string()),
});
const closeActions = z.array(z.enum(['AUTO_CLOSE', 'MANUAL_CLOSE']));

export const changeOrderRecord = z.object({
  id: z.string().uuid(),
  number: z.string(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  name: z.string(),
  description: z.string().nullable(),
  templateId: z.string(),
  templateName: z.string(),
  status: z.enum(['DRAFT', 'OPEN', 'ON_HOLD', 'RESOLVED', 'CLOSED']),
  resolution: z.enum(['APPROVED', 'REJECTED', 'WITHDRAWN']).nullable(),
  currentStage: z.number().int().nullable(),
  stages: z.array(stage),
  components: z.array(z.object({ componentId: z.string(), fromRevision: z.string(), toRevision: z.string().nullable() })),
  values: z.record(z.string(), z.unknown()),
  resolutions: z.object({ onapproval: closeActions.optional(), onrejection: closeActions.optional(), onwithdrawal: closeActions.optional() }),
  history: z.array(z.object({ action: z.string(), by: z.string(), at: z.string(), comment: z.string().nullable(), status: z.string() })),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Optimistic concurrency: every change checks and bumps it. */
  rev: z.number().int(),
  /** The validation warnings (lib/changeOrders/validation.ts) the last submit accepted. */
  warnings: z.array(z.object({ severity: z.enum(['ERROR', 'WARNING']), code: z.string(), componentId: z.string().nullable(), message: z.string() })).default([]),
  /** The change requests promoted into it (changeRequests.promote); closed when it releases. */
  changeRequestIds: z.array(z.string()).default([]),
  /** When the released revisions take effect: at the release (IMMEDIATE) or on `effectiveAt` (ON_DATE). */
  effectivity: z.enum(['IMMEDIATE', 'ON_DATE']).default('IMMEDIATE'),
  effectiveAt: z.string().nullable().default(null),
});
export type ChangeOrderRecord = z.infer<typeof changeOrderRecord>;

export function changeOrderPut(record: ChangeOrderRecord, previousRev: number | null) {
  return {
    Put: {
      Item: { ...changeOrderKey(record.organizationId, record.libraryId, record.id), entity: 'ChangeOrder', ...record },
      ...(previousRev === null ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': previousRev } }),
    },
  };
}

/**
 * Goes with the unlock of components an order no longer holds (lib/items/settle.ts `unlockComponentsOf`): holds
 * only while the order is as read (not holding its locks: DRAFT, RESOLVED, CLOSED; or absent), and moves
 * its `rev`, so a submit that locked them meanwhile fails its commit and locks again.
 */
export function changeOrderLockGuard(orgId: string, libraryId: string, id: string, read: ChangeOrderRecord | undefined): WriteItem {
  const Key = changeOrderKey(orgId, libraryId, id);
  if (!read) return { ConditionCheck: { Key, ConditionExpression: 'attribute_not_exists(PK)' } };
  return { Update: { Key, UpdateExpression: 'SET rev = rev + :one', ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': read.rev, ':one': 1 } } };
}

export function changeOrderDelete(record: ChangeOrderRecord) {
  return { Delete: { Key: changeOrderKey(record.organizationId, record.libraryId, record.id), ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': record.rev } } };
}

export function getChangeOrder(store: Store, orgId: string, libraryId: string, id: string, consistent = false): Promise<ChangeOrderRecord | undefined> {
  return consistent
    ? queryAll(
        store,
        { KeyConditionExpression: 'PK = :pk AND SK = :sk', ExpressionAttributeValues: { ':pk': libraryPartition(orgId, libraryId), ':sk': `CO#${id}` }, ConsistentRead: true },
        changeOrderRecord,
        'change order',
      ).then((found) => found[0])
    : getItem(store, changeOrderKey(orgId, libraryId, id), changeOrderRecord, 'change order');
}

export function listChangeOrders(store: Store, orgId: string, libraryId: string): Promise<ChangeOrderRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'CO#', changeOrderRecord, 'change order');
}

/** The library's next change order number (CO-000001, CO-000002...): one atomic counter. */
export async function nextChangeOrderNumber(store: Store, orgId: string, libraryId: string): Promise<string> {
  const result = await store.ddb.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: counterKey(orgId, libraryId, 'CHANGE_ORDER', 'number'),
      UpdateExpression: 'SET #value = if_not_exists(#value, :zero) + :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return `CO-${String(result.Attributes?.value ?? 1).padStart(6, '0')}`;
}

export type ChangeOrderStageRecord = ChangeOrderRecord['stages'][number];
export type ChangeOrderReviewerRecord = ChangeOrderStageRecord['reviewers'][number];
export type ChangeOrderDecisionRecord = ChangeOrderStageRecord['decisions'][number];
export type ChangeOrderComponentRecord = ChangeOrderRecord['components'][number];
export type ChangeOrderHistoryRecord = ChangeOrderRecord['history'][number];

/**
 * The change orders index of a component: one item per component that is (or was) in a change order, naming
 * those orders. An order adds its entries in the transaction that creates it or adds the component; entries
 * of components it let go are removed after that write (like the where-used entries of `usage.ts`: a stale
 * entry only makes a reader look at one order more, and readers confirm every entry against the order).
 * Orders of every status stay named (readers filter by status), so finding the orders that hold a component
 * is one read of this item, never a scan of the library's orders. Orders created before the index are not named.
 */
export const changeOrderUseKey = (orgId: string, libraryId: string, componentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `COUSE#${componentId}` });

export const changeOrderUseRecord = z.object({ componentId: z.string(), changeOrders: z.set(z.string()).optional() });
export type ChangeOrderUseRecord = z.infer<typeof changeOrderUseRecord>;

/** The transaction item naming `changeOrderId` in the component's entry. */
export function changeOrderUseAdd(orgId: string, libraryId: string, componentId: string, changeOrderId: string): WriteItem {
  return {
    Update: {
      Key: changeOrderUseKey(orgId, libraryId, componentId),
      UpdateExpression: 'SET entity = :entity, componentId = :component ADD changeOrders :orders',
      ExpressionAttributeValues: { ':entity': 'ChangeOrderUse', ':component': componentId, ':orders': new Set([changeOrderId]) },
    },
  };
}

/** Removes a change order from a component's entry (after the write that let the component go). */
export async function removeChangeOrderUse(store: Store, orgId: string, libraryId: string, componentId: string, changeOrderId: string): Promise<void> {
  await updateIf(store, {
    Key: changeOrderUseKey(orgId, libraryId, componentId),
    UpdateExpression: 'DELETE changeOrders :orders',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':orders': new Set([changeOrderId]) },
  });
}

export function getChangeOrderUses(store: Store, orgId: string, libraryId: string, componentIds: string[]): Promise<Map<string, ChangeOrderUseRecord>> {
  return batchGetRecords(store, componentIds, (id) => changeOrderUseKey(orgId, libraryId, id), changeOrderUseRecord, 'change order use');
}

/** Change orders by id (one BatchGetItem per 100). */
export function getChangeOrders(store: Store, orgId: string, libraryId: string, ids: string[]): Promise<Map<string, ChangeOrderRecord>> {
  return batchGetRecords(store, ids, (id) => changeOrderKey(orgId, libraryId, id), changeOrderRecord, 'change order');
}
