import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ConcurrentWriteError } from '../errors.js';
import { emptyPolicy, readAccesses, writeDesignations, type AccessPolicy } from '../model/attributeAccess.js';
import type { Store } from './client.js';
import { parseItem, putIf, samePut } from './items.js';
import { libraryPartition } from './library.js';

/**
 * A library's attribute access policy: ONE item, read in the same BatchGetItem as the configuration
 * documents (lib/store/libraryConfig.ts), so a write pays no extra read for it.
 */
export const accessPolicyKey = (orgId: string, libraryId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: 'ACCESSPOLICY' });

export const accessPolicyRecord = z.object({
  version: z.number().int().nonnegative(),
  entries: z.array(z.object({ attribute: z.string(), principal: z.string(), write: z.enum(writeDesignations), read: z.enum(readAccesses) })),
  updatedAt: z.string().nullable().default(null),
  updatedBy: z.string().nullable().default(null),
});

/** The policy alone (one strongly consistent GetItem): for writes that need no configuration (sourcing). */
export async function getAccessPolicy(store: Store, orgId: string, libraryId: string): Promise<AccessPolicy> {
  const { Item } = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: accessPolicyKey(orgId, libraryId), ConsistentRead: true }));
  if (!Item) return emptyPolicy;
  const { version, entries } = parseItem(accessPolicyRecord, Item, 'access policy');
  return { version, entries };
}

/** Writes the next version of the policy on condition that the version read is still current. */
export async function putAccessPolicy(store: Store, orgId: string, libraryId: string, previousVersion: number, policy: AccessPolicy, at: string, by: string): Promise<void> {
  const item = { ...accessPolicyKey(orgId, libraryId), entity: 'AccessPolicy', version: policy.version, entries: policy.entries, updatedAt: at, updatedBy: by };
  const written = await putIf(
    store,
    {
      Item: item,
      ConditionExpression: previousVersion === 0 ? 'attribute_not_exists(PK)' : 'version = :previous',
      ...(previousVersion === 0 ? {} : { ExpressionAttributeValues: { ':previous': previousVersion } }),
    },
    { ownWrite: samePut(item) },
  );
  if (!written) throw new ConcurrentWriteError('The attribute access policy');
}
