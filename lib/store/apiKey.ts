import { ConflictError } from '../errors.js';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Store } from './client.js';
import { failedConditionIndexes, getItem, withTable, type TransactItemWithoutTable, queryPrefix } from './items.js';

/** Key metadata lives in the organization's partition, grouped by library. */
export const apiKeyKey = (orgId: string, libraryId: string, keyId: string) => ({ PK: `ORG#${orgId}`, SK: `APIKEY#${libraryId}#${keyId}` });
/** The only place a secret appears: its SHA-256, looked up on every request. */
export const apiKeySecretKey = (secretHash: string) => ({ PK: `APIKEYHASH#${secretHash}`, SK: 'APIKEYHASH' });

export const apiKeyRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  ownerUserId: z.string().uuid(),
  name: z.string(),
  /** First characters of the secret, shown in lists so a person can tell keys apart. */
  prefix: z.string(),
  secretHash: z.string(),
  status: z.enum(['ACTIVE', 'REVOKED']),
  createdAt: z.string(),
  rotatedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** The integration principal the key acts as; null for a person's key. */
  integrationId: z.string().nullable().default(null),
  /**
   * The role the key acts with, capped by its owner's permissions; null: its owner's permissions (a
   * person's key) or the default integration key permissions (an integration's key).
   */
  roleId: z.string().nullable().default(null),
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecord>;

export const apiKeySecretRecord = z.object({
  keyId: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  ownerUserId: z.string().uuid(),
  expiresAtIso: z.string().nullable(),
  integrationId: z.string().nullable().default(null),
  roleId: z.string().nullable().default(null),
});
export type ApiKeySecretRecord = z.infer<typeof apiKeySecretRecord>;

function secretPut(key: ApiKeyRecord) {
  const record: ApiKeySecretRecord = {
    keyId: key.id,
    organizationId: key.organizationId,
    libraryId: key.libraryId,
    ownerUserId: key.ownerUserId,
    expiresAtIso: key.expiresAt,
    integrationId: key.integrationId,
    roleId: key.roleId,
  };
  return {
    Put: {
      Item: {
        ...apiKeySecretKey(key.secretHash),
        entity: 'ApiKeySecret',
        ...record,
        // TTL removes expired secrets eventually; authentication also checks expiresAtIso itself.
        ...(key.expiresAt ? { expiresAt: Math.ceil(Date.parse(key.expiresAt) / 1000) } : {}),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export function apiKeyPuts(key: ApiKeyRecord) {
  return [{ Put: { Item: { ...apiKeyKey(key.organizationId, key.libraryId, key.id), entity: 'ApiKey', ...key }, ConditionExpression: 'attribute_not_exists(PK)' } }, secretPut(key)];
}

export function getApiKey(store: Store, orgId: string, libraryId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  return getItem(store, apiKeyKey(orgId, libraryId, keyId), apiKeyRecord, 'API key');
}

export function listApiKeys(store: Store, orgId: string, libraryId: string): Promise<ApiKeyRecord[]> {
  return queryPrefix(store, `ORG#${orgId}`, `APIKEY#${libraryId}#`, apiKeyRecord, 'API key');
}

export async function insertApiKey(store: Store, key: ApiKeyRecord): Promise<void> {
  await store.ddb.send(new TransactWriteCommand({ TransactItems: apiKeyPuts(key).map((item) => withTable(store, item)) }));
}

/**
 * Changes an active key whose secret is still the one read, and deletes that secret's lookup item in the
 * same transaction (plus any further items, e.g. the new secret's).
 */
async function changeActiveKey(store: Store, key: ApiKeyRecord, change: { set: string; values: Record<string, unknown> }, extra: TransactItemWithoutTable[] = []): Promise<void> {
  try {
    await store.ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: store.tableName,
              Key: apiKeyKey(key.organizationId, key.libraryId, key.id),
              UpdateExpression: `SET ${change.set}`,
              ConditionExpression: 'secretHash = :current AND #status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ...change.values, ':current': key.secretHash, ':active': 'ACTIVE' },
            },
          },
          { Delete: { TableName: store.tableName, Key: apiKeySecretKey(key.secretHash) } },
          ...extra.map((item) => withTable(store, item)),
        ],
      }),
    );
  } catch (error) {
    // Rotated or revoked by another request between this one's read and its write.
    if (failedConditionIndexes(error)?.includes(0)) throw new ConflictError('API key', key.id, { cause: error });
    throw error;
  }
}

/** Swaps the secret: the old one stops working in the same transaction that makes the new one work. */
export async function replaceApiKeySecret(store: Store, key: ApiKeyRecord, newSecretHash: string, newPrefix: string, at: string): Promise<ApiKeyRecord> {
  const updated: ApiKeyRecord = { ...key, secretHash: newSecretHash, prefix: newPrefix, rotatedAt: at };
  await changeActiveKey(store, key, { set: 'secretHash = :new, prefix = :prefix, rotatedAt = :at', values: { ':new': newSecretHash, ':prefix': newPrefix, ':at': at } }, [secretPut(updated)]);
  return updated;
}

/** Revokes: the secret item is deleted, so the next request with it is unknown (401). */
export async function revokeApiKey(store: Store, key: ApiKeyRecord, at: string): Promise<ApiKeyRecord> {
  await changeActiveKey(store, key, { set: '#status = :revoked, revokedAt = :at', values: { ':revoked': 'REVOKED', ':at': at } });
  return { ...key, status: 'REVOKED', revokedAt: at };
}

export async function updateApiKeyName(store: Store, key: ApiKeyRecord, name: string): Promise<ApiKeyRecord> {
  await store.ddb.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: apiKeyKey(key.organizationId, key.libraryId, key.id),
      UpdateExpression: 'SET #name = :name',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':name': name },
    }),
  );
  return { ...key, name };
}
