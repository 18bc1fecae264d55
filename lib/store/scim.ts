import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetItems, getItem, keyString, parseItem, queryPrefix } from './items.js';
import { organizationKey, organizationRecord, type OrganizationRecord } from './organization.js';

const orgPartition = (orgId: string) => `ORG#${orgId}`;

// ---- tokens -----------------------------------------------------------------------------------------

export const scimTokenKey = (orgId: string, tokenId: string) => ({ PK: orgPartition(orgId), SK: `SCIMTOKEN#${tokenId}` });
/** The hash of a token's secret: how a request finds its organization. Global, holds nothing but ids. */
export const scimTokenHashKey = (hash: string) => ({ PK: `SCIMTOKENHASH#${hash}`, SK: 'SCIMTOKENHASH' });

export const scimTokenRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  /** The first characters of the secret, to tell tokens apart in the identity provider's settings. */
  displayPrefix: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  /** ACTIVE: the organization's one active token. RETIRING: replaced, works until retiresAt. REVOKED. */
  status: z.enum(['ACTIVE', 'RETIRING', 'REVOKED']),
  retiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  hash: z.string(),
});
export type ScimTokenRecord = z.infer<typeof scimTokenRecord>;

const scimTokenHashRecord = z.object({ organizationId: z.string().uuid(), tokenId: z.string().uuid(), retiresAt: z.string().nullable().default(null) });

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export function scimTokenPuts(token: ScimTokenRecord) {
  return [
    { Put: { Item: { ...scimTokenKey(token.organizationId, token.id), entity: 'ScimToken', ...token }, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Put: {
        Item: { ...scimTokenHashKey(token.hash), entity: 'ScimTokenHash', organizationId: token.organizationId, tokenId: token.id, retiresAt: null },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

/** A token's status moves `from` → `to` (conditioned on `from`), stamping when in `field`. */
function tokenStatusChange(token: ScimTokenRecord, change: { from: string; to: string; field: 'retiresAt' | 'revokedAt'; at: string }) {
  return {
    Update: {
      Key: scimTokenKey(token.organizationId, token.id),
      UpdateExpression: `SET #status = :to, ${change.field} = :at`,
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':to': change.to, ':from': change.from, ':at': change.at },
    },
  };
}

/** Moves a token to RETIRING: it keeps working until `retiresAt` (checked by code; TTL removes the hash item later). */
export function scimTokenRetireItems(token: ScimTokenRecord, retiresAt: string) {
  return [
    tokenStatusChange(token, { from: 'ACTIVE', to: 'RETIRING', field: 'retiresAt', at: retiresAt }),
    {
      Update: {
        Key: scimTokenHashKey(token.hash),
        UpdateExpression: 'SET retiresAt = :at, expiresAt = :ttl',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': retiresAt, ':ttl': epochSeconds(retiresAt) },
      },
    },
  ];
}

/** Revokes a token: its hash item goes in the same transaction, so the secret is unknown at once. */
export function scimTokenRevokeItems(token: ScimTokenRecord, at: string) {
  return [tokenStatusChange(token, { from: token.status, to: 'REVOKED', field: 'revokedAt', at }), { Delete: { Key: scimTokenHashKey(token.hash) } }];
}

export function listScimTokens(store: Store, orgId: string): Promise<ScimTokenRecord[]> {
  return queryPrefix(store, orgPartition(orgId), 'SCIMTOKEN#', scimTokenRecord, 'SCIM token');
}

export function getScimToken(store: Store, orgId: string, tokenId: string): Promise<ScimTokenRecord | undefined> {
  return getItem(store, scimTokenKey(orgId, tokenId), scimTokenRecord, 'SCIM token');
}

/**
 * The token's hash item and its organization in one strongly consistent BatchGetItem: a revocation or a
 * change of the SCIM setting is seen by the very next request.
 */
export async function readScimCredential(store: Store, hash: string, orgId: string) {
  const keys = [scimTokenHashKey(hash), organizationKey(orgId)];
  const items = await batchGetItems(store, keys, true);
  const tokenItem = items.get(keyString(keys[0]!));
  const orgItem = items.get(keyString(keys[1]!));
  return {
    token: tokenItem ? parseItem(scimTokenHashRecord, tokenItem, 'SCIM token hash') : undefined,
    organization: orgItem ? (parseItem(organizationRecord, orgItem, 'organization') as OrganizationRecord) : undefined,
  };
}

// ---- users ------------------------------------------------------------------------------------------

export const scimUserKey = (orgId: string, userId: string) => ({ PK: orgPartition(orgId), SK: `SCIMUSER#${userId}` });
/** userName is unique in the organization, case-insensitively (RFC 7643: userName caseExact false). */
export const scimUserNameKey = (orgId: string, userName: string) => ({ PK: orgPartition(orgId), SK: `SCIMUSERNAME#${userName.toLowerCase()}` });

/** The grants a deactivated user (or one removed from every group) held, kept to give them back. */
export const suspendedGrants = z.object({
  role: z.string().nullable(),
  libraryRoles: z.record(z.string(), z.string()),
  teamIds: z.array(z.string()),
});
export type SuspendedGrants = z.infer<typeof suspendedGrants>;

export const scimUserRecord = z.object({
  organizationId: z.string().uuid(),
  /** The service user (account) this SCIM user provisions; also the SCIM id. */
  userId: z.string().uuid(),
  userName: z.string(),
  externalId: z.string().nullable(),
  active: z.boolean(),
  /** The other core attributes, canonical (name, displayName, emails, addresses...). */
  attributes: z.record(z.string(), z.unknown()),
  /** The enterprise extension, when the identity provider sends one. */
  enterprise: z.record(z.string(), z.unknown()).nullable(),
  suspended: suspendedGrants.nullable(),
  /** The account was created by this provisioning (not matched to an existing one): the IdP's name changes are copied to it. */
  accountProvisioned: z.boolean().default(false),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});
export type ScimUserRecord = z.infer<typeof scimUserRecord>;

/** Puts a SCIM user: new (`version` 1) or replacing the version read. */
export function scimUserPut(user: ScimUserRecord) {
  const item = { ...scimUserKey(user.organizationId, user.userId), entity: 'ScimUser', ...JSON.parse(JSON.stringify(user)) };
  return user.version === 1
    ? { Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }
    : { Put: { Item: item, ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': user.version - 1 } } };
}

export function scimUserDelete(user: ScimUserRecord) {
  return { Delete: { Key: scimUserKey(user.organizationId, user.userId), ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': user.version } } };
}

export function scimUserNamePut(orgId: string, userName: string, userId: string) {
  return { Put: { Item: { ...scimUserNameKey(orgId, userName), entity: 'ScimUserName', userId }, ConditionExpression: 'attribute_not_exists(PK)' } };
}

export function scimUserNameDelete(orgId: string, userName: string) {
  return { Delete: { Key: scimUserNameKey(orgId, userName) } };
}

export function getScimUser(store: Store, orgId: string, userId: string, consistent = false): Promise<ScimUserRecord | undefined> {
  return consistent
    ? batchGetItems(store, [scimUserKey(orgId, userId)], true).then((items) => {
        const item = items.get(keyString(scimUserKey(orgId, userId)));
        return item ? parseItem(scimUserRecord, item, 'SCIM user') : undefined;
      })
    : getItem(store, scimUserKey(orgId, userId), scimUserRecord, 'SCIM user');
}

export async function getScimUsers(store: Store, orgId: string, userIds: readonly string[]): Promise<Map<string, ScimUserRecord>> {
  const keys = userIds.map((id) => scimUserKey(orgId, id));
  const items = await batchGetItems(store, keys, true);
  const found = new Map<string, ScimUserRecord>();
  for (const [index, id] of userIds.entries()) {
    const item = items.get(keyString(keys[index]!));
    if (item) found.set(id, parseItem(scimUserRecord, item, 'SCIM user'));
  }
  return found;
}

/** Every SCIM user of an organization (filters and pages are applied in memory: see lib/scim/query.ts). */
export function listScimUsers(store: Store, orgId: string): Promise<ScimUserRecord[]> {
  return queryPrefix(store, orgPartition(orgId), 'SCIMUSER#', scimUserRecord, 'SCIM user');
}

/** The SCIM user with this userName (case-insensitively), through its uniqueness item. */
export async function findScimUserByUserName(store: Store, orgId: string, userName: string): Promise<ScimUserRecord | undefined> {
  const claim = await getItem(store, scimUserNameKey(orgId, userName), z.object({ userId: z.string() }), 'SCIM userName');
  return claim ? getScimUser(store, orgId, claim.userId, true) : undefined;
}
