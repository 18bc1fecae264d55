import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from './client.js';
import { libraryPartition } from './library.js';

/** A library's counters (`CTR#<element>#<scope key>`): CPN sequences here; change order and change request numbers use the same key. */

export const counterKey = (orgId: string, libraryId: string, element: string, scopeKey: string) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `CTR#${element}#${scopeKey}`,
});

/** Allocates the next value of a CPN counter sequence atomically. Values are never handed out twice. */
export async function allocateCounter(store: Store, orgId: string, libraryId: string, element: string, scopeKey: string, min: number): Promise<number> {
  const result = await store.ddb.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: counterKey(orgId, libraryId, element, scopeKey),
      // The first allocation starts at min; after that each call adds one.
      UpdateExpression: 'SET entity = :entity, #value = if_not_exists(#value, :start) + :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':entity': 'CpnCounter', ':start': min - 1, ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return result.Attributes!.value as number;
}
