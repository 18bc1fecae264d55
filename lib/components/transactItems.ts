import { normalizeCpn, type CpnScheme } from '../config/cpnScheme.js';
import { searchEntryPut } from '../search/entries.js';
import { componentItem, cpnKey, historyItem, lockCondition, type ComponentHistoryRecord, type ComponentRecord, type HistoryChange } from '../store/component.js';
import type { ConditionFailure, WriteItem } from '../store/items.js';
import { diffComponents, type WriteContext } from './rules.js';

/** The transaction items of component writes, shared by component.* and item.* writes. */

export function historyRecord(ctx: WriteContext, before: ComponentRecord | null, after: ComponentRecord, relationChanges: HistoryChange[] = []): ComponentHistoryRecord {
  return {
    componentId: after.id,
    version: after.version,
    action: before ? 'UPDATE' : 'CREATE',
    at: ctx.at,
    by: ctx.userId,
    actingIntegrationId: ctx.actingIntegrationId,
    changes: [...diffComponents(before, after), ...relationChanges],
  };
}

/** `writeId` marks items of a large item write that are invisible until that write commits. */
const pending = (writeId: string | undefined) => (writeId ? { writeId } : {});

/** A new component: the component, its first history record, its search entry and its CPN claim (in this order). */
export function newComponentItems(
  tableName: string,
  ctx: WriteContext,
  scheme: CpnScheme,
  record: ComponentRecord,
  relationChanges: HistoryChange[] = [],
  writeId?: string,
  cpnTaken?: ConditionFailure,
): WriteItem[] {
  return [
    { Put: { TableName: tableName, Item: { ...componentItem(record), ...pending(writeId) }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { TableName: tableName, Item: { ...historyItem(ctx.organizationId, ctx.libraryId, historyRecord(ctx, null, record, relationChanges)), ...pending(writeId) } } },
    withPending(searchEntryPut(tableName, record), writeId),
    {
      Put: {
        TableName: tableName,
        Item: {
          ...cpnKey(ctx.organizationId, ctx.libraryId, normalizeCpn(scheme, record.cpn)),
          entity: 'Cpn',
          cpn: record.cpn,
          componentId: record.id,
          deleted: false,
          createdAt: ctx.at,
          ...pending(writeId),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
      ...(cpnTaken ? { onConditionFailed: cpnTaken } : {}),
    },
  ];
}

/** Index of the CPN claim within newComponentItems. */
export const cpnClaimOffset = 3;

/** A new version of a component: the component (conditional on the version read), its history record, its search entry. */
export function updatedComponentItems(tableName: string, ctx: WriteContext, before: ComponentRecord, after: ComponentRecord, relationChanges: HistoryChange[] = []): WriteItem[] {
  return [
    {
      Put: {
        TableName: tableName,
        Item: componentItem(after),
        ConditionExpression: `version = :version AND ${lockCondition(before.lockedBy).expression}`,
        ExpressionAttributeValues: { ':version': before.version, ...lockCondition(before.lockedBy).values },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: historyItem(ctx.organizationId, ctx.libraryId, historyRecord(ctx, before, after, relationChanges)),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    searchEntryPut(tableName, after),
  ];
}

function withPending<T extends { Put: { Item: Record<string, unknown> } }>(item: T, writeId: string | undefined): T {
  return writeId ? { ...item, Put: { ...item.Put, Item: { ...item.Put.Item, writeId } } } : item;
}

/** The next version of a component after a change (RELEASED becomes MODIFIED). */
export function nextVersion(ctx: WriteContext, before: ComponentRecord, applied: ComponentRecord): ComponentRecord {
  return { ...applied, version: before.version + 1, state: before.state === 'RELEASED' ? 'MODIFIED' : applied.state, updatedAt: ctx.at, updatedBy: ctx.userId };
}
