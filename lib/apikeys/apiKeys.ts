import { randomUUID } from 'node:crypto';

import * as z from 'zod';

import { ApiKeyRevokedError, DomainError, InvalidInputError, NotFoundError } from '../errors.js';

import type { Store } from '../store/client.js';
import { getApiKey, insertApiKey, listApiKeys, replaceApiKeySecret, revokeApiKey, updateApiKeyName, type ApiKeyRecord } from '../store/apiKey.js';

import { nowIso } from '../store/items.js';

import { generateApiKeySecret } from '../access/apiKeySecrets.js';

/** The library and owner an API key operation acts in: taken from the request context, never from input. */
import type { LibraryScope as ApiKeyScope } from '../model/scope.js';
export type { ApiKeyScope };

export interface IssuedApiKey {
  apiKey: ApiKeyRecord;
  /** The secret, returned once at creation or rotation and never stored. */
  secret: string;
}

const createInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(100, 'name must be at most 100 characters'),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
});

function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new InvalidInputError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; '));
  return parsed.data;
}

export function newApiKey(
  scope: ApiKeyScope,
  input: { name: string; expiresAt?: string | null | undefined },
  at = nowIso(),
  integrationId: string | null = null,
  roleId: string | null = null,
): IssuedApiKey {
  const { name, expiresAt } = parse(createInput, input);
  if (expiresAt && Date.parse(expiresAt) <= Date.parse(at)) throw new InvalidInputError('expiresAt must be in the future', { field: 'expiresAt' });
  const { secret, hash, displayPrefix } = generateApiKeySecret(scope);
  return {
    secret,
    apiKey: {
      id: randomUUID(),
      organizationId: scope.organizationId,
      libraryId: scope.libraryId,
      ownerUserId: scope.userId,
      name,
      prefix: displayPrefix,
      secretHash: hash,
      status: 'ACTIVE',
      createdAt: at,
      rotatedAt: null,
      revokedAt: null,
      expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null,
      integrationId,
      roleId,
    },
  };
}

/**
 * integrationId: the key acts as that integration principal; roleId: the key acts with that role (both
 * checked by the caller: the integration exists and is enabled, the role exists and the creator holds it).
 */
export async function createApiKey(
  store: Store,
  scope: ApiKeyScope,
  input: { name: string; expiresAt?: string | null },
  integrationId: string | null = null,
  roleId: string | null = null,
): Promise<IssuedApiKey> {
  const issued = newApiKey(scope, input, nowIso(), integrationId, roleId);
  await insertApiKey(store, issued.apiKey);
  return issued;
}

/**
 * The API key a request is made with, when it acts with a role (every integration's key): it sees and
 * manages only the keys no stronger than itself, those of the same integration with the same role (itself
 * included), never its owner's other keys. null: a person, or a person's key without a role.
 */
export type CallingKey = { integrationId: string | null; roleId: string | null } | null;

const visibleTo = (scope: ApiKeyScope, calling: CallingKey) => (key: ApiKeyRecord) =>
  key.ownerUserId === scope.userId && (!calling || (key.integrationId === calling.integrationId && key.roleId === calling.roleId));

/** The caller's own keys in the library, newest first. */
export async function listApiKeysForUser(store: Store, scope: ApiKeyScope, calling: CallingKey = null): Promise<ApiKeyRecord[]> {
  const keys = await listApiKeys(store, scope.organizationId, scope.libraryId);
  return keys.filter(visibleTo(scope, calling)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** One of the caller's own keys; someone else's key (or one stronger than the calling key) is reported as not found. */
export async function findApiKeyForUser(store: Store, scope: ApiKeyScope, keyId: string, calling: CallingKey = null): Promise<ApiKeyRecord> {
  const key = await getApiKey(store, scope.organizationId, scope.libraryId, keyId);
  if (!key || !visibleTo(scope, calling)(key)) throw new NotFoundError('API key', keyId);
  return key;
}

export async function rotateApiKey(store: Store, scope: ApiKeyScope, keyId: string, calling: CallingKey = null): Promise<IssuedApiKey> {
  const key = await findApiKeyForUser(store, scope, keyId, calling);
  if (key.status !== 'ACTIVE') throw new ApiKeyRevokedError(keyId);
  const { secret, hash, displayPrefix } = generateApiKeySecret({ organizationId: key.organizationId, libraryId: key.libraryId, userId: key.ownerUserId });
  return { secret, apiKey: await replaceApiKeySecret(store, key, hash, displayPrefix, nowIso()) };
}

/** Revokes the key: requests with its secret are refused with 401 from now on. Idempotent. */
export async function deactivateApiKey(store: Store, scope: ApiKeyScope, keyId: string, calling: CallingKey = null): Promise<ApiKeyRecord> {
  const key = await findApiKeyForUser(store, scope, keyId, calling);
  if (key.status === 'REVOKED') return key;
  return await revokeApiKey(store, key, nowIso());
}

export async function renameApiKey(store: Store, scope: ApiKeyScope, keyId: string, name: string, calling: CallingKey = null): Promise<ApiKeyRecord> {
  const key = await findApiKeyForUser(store, scope, keyId, calling);
  return updateApiKeyName(store, key, parse(createInput.shape.name, name));
}
