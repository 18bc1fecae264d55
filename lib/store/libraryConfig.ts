import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConfigVersionConflictError } from '../errors.js';
import * as z from 'zod';
import type { Store } from './client.js';
import { accessPolicyKey, accessPolicyRecord } from './accessPolicy.js';
import { emptyPolicy, type AccessPolicy } from '../model/attributeAccess.js';
import { appliedByEarlierAttempt, batchGetItems, isConditionalCheckFailure, parseItem, samePut, updateIf } from './items.js';
import { libraryPartition } from './library.js';

export const configTypes = ['REVISION_SCHEME', 'CPN_SCHEME', 'STATUSES', 'CATEGORIES'] as const;
export type ConfigType = (typeof configTypes)[number];

export const libraryConfigKey = (orgId: string, libraryId: string, type: ConfigType) => ({ PK: libraryPartition(orgId, libraryId), SK: `CONFIG#${type}` });

export const syncStatuses = ['SYNCED', 'PENDING', 'PROCESSING', 'FAILED'] as const;

export const libraryConfigRecord = z.object({
  type: z.enum(configTypes),
  version: z.number().int().positive(),
  document: z.record(z.string(), z.unknown()),
  updatedAt: z.string(),
  updatedBy: z.string(),
  /** Whether components carry this version's names (statuses and categories are copied onto components). */
  syncStatus: z.enum(syncStatuses),
  syncedVersion: z.number().int().nonnegative(),
  syncUpdatedAt: z.string(),
  syncComponentsUpdated: z.number().int().nonnegative(),
  syncError: z.string().nullable(),
});
export type LibraryConfigRecord = z.infer<typeof libraryConfigRecord>;

export function libraryConfigPut(orgId: string, libraryId: string, record: LibraryConfigRecord) {
  return { Put: { Item: { ...libraryConfigKey(orgId, libraryId, record.type), entity: 'LibraryConfig', ...record }, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** All configuration documents of a library in one BatchGetItem (4 small items). */
/**
 * The configuration documents of a library, and its attribute access policy, in ONE BatchGetItem
 * (strongly consistent): every component write is checked against both.
 */
export async function getLibraryConfigs(store: Store, orgId: string, libraryId: string): Promise<{ configs: Partial<Record<ConfigType, LibraryConfigRecord>>; accessPolicy: AccessPolicy }> {
  const policyKey = accessPolicyKey(orgId, libraryId);
  const items = await batchGetItems(store, [...configTypes.map((type) => libraryConfigKey(orgId, libraryId, type)), policyKey], true);
  const found: Partial<Record<ConfigType, LibraryConfigRecord>> = {};
  let accessPolicy: AccessPolicy = emptyPolicy;
  for (const item of items.values()) {
    if (item.SK === policyKey.SK) {
      const { version, entries } = parseItem(accessPolicyRecord, item, 'access policy');
      accessPolicy = { version, entries };
      continue;
    }
    const record = parseItem(libraryConfigRecord, item, 'library config');
    found[record.type] = record;
  }
  return { configs: found, accessPolicy };
}

/**
 * Writes a new version; the previous version must still be current (optimistic concurrency). A lost race
 * is ConfigVersionConflictError naming the version that won (read back with the failed condition).
 */
export async function putLibraryConfigVersion(store: Store, orgId: string, libraryId: string, record: LibraryConfigRecord, previousVersion: number | null): Promise<void> {
  const item = { ...libraryConfigKey(orgId, libraryId, record.type), entity: 'LibraryConfig', ...record };
  try {
    await store.ddb.send(
      new PutCommand({
        TableName: store.tableName,
        Item: item,
        ...(previousVersion === null
          ? { ConditionExpression: 'attribute_not_exists(PK)' }
          : { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': previousVersion } }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    // This version, put by an earlier attempt of the call (a timeout): not a conflict with itself.
    if (appliedByEarlierAttempt(error, samePut(item))) return;
    if (!isConditionalCheckFailure(error)) throw error;
    const winner = (error as ConditionalCheckFailedException).Item;
    const currentVersion = winner?.version?.N ? Number(winner.version.N) : (previousVersion ?? 0) + 1;
    throw new ConfigVersionConflictError(record.type, previousVersion ?? 0, currentVersion);
  }
}

/** Records sync progress; only for the version it processed, so a newer version's state is never overwritten. */
export async function updateConfigSync(
  store: Store,
  orgId: string,
  libraryId: string,
  type: ConfigType,
  version: number,
  sync: Pick<LibraryConfigRecord, 'syncStatus' | 'syncedVersion' | 'syncComponentsUpdated' | 'syncError'>,
): Promise<boolean> {
  return updateIf(store, {
    Key: libraryConfigKey(orgId, libraryId, type),
    UpdateExpression: 'SET syncStatus = :status, syncedVersion = :synced, syncComponentsUpdated = :count, syncError = :error, syncUpdatedAt = :at',
    ConditionExpression: 'version = :version',
    ExpressionAttributeValues: {
      ':status': sync.syncStatus,
      ':synced': sync.syncedVersion,
      ':count': sync.syncComponentsUpdated,
      ':error': sync.syncError,
      ':at': new Date().toISOString(),
      ':version': version,
    },
  });
}
