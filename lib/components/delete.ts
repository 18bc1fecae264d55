import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeCpn } from '../config/cpnScheme.js';
import type { Store } from '../store/client.js';
import { componentKey, cpnKey, getComponents, listComponentHistoryKeys } from '../store/component.js';
import { failedConditionIndexes } from '../store/items.js';
import { bomKey, documentLinksKey, listBomSnapshotKeys } from '../store/bom.js';
import { searchEntryTombstone } from '../search/entries.js';
import { TooManyInputsError, VersionConflictError } from './errors.js';
import type { WriteContext } from './rules.js';

/** component, CPN claim, search entry, BOM, document links: 20 deletions fill one transaction. */
const itemsPerDelete = 5;
export const maxDeletesPerCall = 20;

export interface DeleteResult {
  deletedIds: string[];
  notFoundIds: string[];
}

/**
 * Deletes components permanently: the component and its history go; its CPN stays claimed (marked
 * deleted) so that it is never reused. The component and CPN changes are one transaction; history items
 * are removed after it, and are unreachable once their component is gone.
 */
export async function deleteComponents(store: Store, ctx: WriteContext, ids: string[]): Promise<DeleteResult> {
  if (ids.length > maxDeletesPerCall) throw new TooManyInputsError('component.delete', maxDeletesPerCall, ids.length);
  const unique = [...new Set(ids)];
  const current = await getComponents(store, ctx.organizationId, ctx.libraryId, unique, true);
  const found = unique.filter((id) => current.has(id));
  if (found.length > 0) {
    await store.ddb.send(
      new TransactWriteCommand({
        TransactItems: found.flatMap((id) => {
          const record = current.get(id)!;
          return [
            {
              Delete: {
                TableName: store.tableName,
                Key: componentKey(ctx.organizationId, ctx.libraryId, id),
                ConditionExpression: 'version = :version',
                ExpressionAttributeValues: { ':version': record.version },
              },
            },
            {
              Update: {
                TableName: store.tableName,
                Key: cpnKey(ctx.organizationId, ctx.libraryId, normalizeCpn(ctx.config.cpnScheme, record.cpn)),
                UpdateExpression: 'SET deleted = :true, deletedAt = :at',
                // The claim was written with the component; never create a stray one.
                ConditionExpression: 'componentId = :id',
                ExpressionAttributeValues: { ':true': true, ':at': ctx.at, ':id': id },
              },
            },
            searchEntryTombstone(store.tableName, ctx.organizationId, ctx.libraryId, id, ctx.at),
            // Its BOM and document links go with it, so where-used never names a deleted assembly.
            { Delete: { TableName: store.tableName, Key: bomKey(ctx.organizationId, ctx.libraryId, id) } },
            { Delete: { TableName: store.tableName, Key: documentLinksKey(ctx.organizationId, ctx.libraryId, id) } },
          ];
        }),
      }),
    ).catch((error) => {
      const failed = failedConditionIndexes(error);
      if (failed?.length) {
        const id = found[Math.floor(failed[0]! / itemsPerDelete)]!;
        throw new VersionConflictError(id, current.get(id)!.version, undefined, ids.indexOf(id));
      }
      throw error;
    });
    for (const id of found) {
      const keys = [
        ...(await listComponentHistoryKeys(store, ctx.organizationId, ctx.libraryId, id)),
        ...(await listBomSnapshotKeys(store, ctx.organizationId, ctx.libraryId, id)),
      ];
      for (let start = 0; start < keys.length; start += 25) {
        let pending = keys.slice(start, start + 25).map((Key) => ({ DeleteRequest: { Key } }));
        while (pending.length > 0) {
          const result = await store.ddb.send(new BatchWriteCommand({ RequestItems: { [store.tableName]: pending } }));
          pending = (result.UnprocessedItems?.[store.tableName] as typeof pending | undefined) ?? [];
        }
      }
    }
  }
  return { deletedIds: found, notFoundIds: unique.filter((id) => !current.has(id)) };
}
