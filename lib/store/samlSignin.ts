import * as z from 'zod';
import type { Store } from './client.js';
import { deleteIf, getItem, putIf, queryAll } from './items.js';

/**
 * SAML sign-in's entities: the short-lived state of a sign-in in progress (by the SHA-256 of the `state`
 * parameter; single use) and the lease on the federated app client. Domains route through the verified
 * domain claims (`DOMAIN#`, domain.ts).
 */
export const samlStateKey = (hash: string) => ({ PK: `SAMLSTATE#${hash}`, SK: 'SAMLSTATE' });

export const samlStateRecord = z.object({
  organizationId: z.string().uuid(),
  providerName: z.string(),
  /** The PKCE code_verifier, sent with the code to the token endpoint. */
  codeVerifier: z.string(),
  /** SHA-256 of the browser-binding cookie set by the start route. */
  browserHash: z.string(),
  expiresAtIso: z.string(),
});
export type SamlStateRecord = z.infer<typeof samlStateRecord>;

export function samlStatePut(hash: string, record: SamlStateRecord) {
  return {
    Put: {
      Item: { ...samlStateKey(hash), entity: 'SamlState', ...record, expiresAt: Math.ceil(Date.parse(record.expiresAtIso) / 1000) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export function getSamlState(store: Store, hash: string): Promise<SamlStateRecord | undefined> {
  return getItem(store, samlStateKey(hash), samlStateRecord, 'SAML state');
}

/** Spends a state: only from the browser it was bound to, only before it expires, only once. */
export function spendSamlState(store: Store, hash: string, browserHash: string, now: string): Promise<boolean> {
  return deleteIf(store, {
    Key: samlStateKey(hash),
    ConditionExpression: 'attribute_exists(PK) AND browserHash = :browser AND expiresAtIso > :now',
    ExpressionAttributeValues: { ':browser': browserHash, ':now': now },
  });
}

/**
 * A lease on the federated app client: its SupportedIdentityProviders is read, then written whole, so two
 * registrations at once would each drop the other's provider. Held for at most `leaseMs` (a crashed holder's
 * lease runs out; TTL removes the item).
 */
export const federatedClientLeaseKey = { PK: 'LOCK#SAMLFEDERATEDCLIENT', SK: 'LOCK' };

export function takeFederatedClientLease(store: Store, owner: string, leaseMs: number): Promise<boolean> {
  const now = new Date();
  const until = new Date(now.getTime() + leaseMs);
  return putIf(store, {
    Item: { ...federatedClientLeaseKey, entity: 'Lock', holder: owner, untilIso: until.toISOString(), expiresAt: Math.ceil(until.getTime() / 1000) + 3600 },
    ConditionExpression: 'attribute_not_exists(PK) OR untilIso < :now',
    ExpressionAttributeValues: { ':now': now.toISOString() },
  });
}

export function releaseFederatedClientLease(store: Store, owner: string): Promise<boolean> {
  return deleteIf(store, { Key: federatedClientLeaseKey, ConditionExpression: 'holder = :owner', ExpressionAttributeValues: { ':owner': owner } });
}

/**
 * The IdP metadata XML an organization's SAML configuration was last registered with (up to 256 KB, an item
 * of its own so that the organization item stays small). One partition holds them all: the federation resync
 * (lib/saml/resync.ts) lists the configured organizations by it, and re-registers a provider the user
 * pool lost from its XML. Written in the transaction that saves the configuration; a stack serves one
 * tenant, so the partition holds a handful of items.
 */
export const samlMetadataKey = (organizationId: string) => ({ PK: 'SAMLMETADATA', SK: `ORG#${organizationId}` });

export const samlMetadataRecord = z.object({ organizationId: z.string().uuid(), providerName: z.string(), metadataXml: z.string(), updatedAt: z.string() });
export type SamlMetadataRecord = z.infer<typeof samlMetadataRecord>;

export function samlMetadataPut(record: SamlMetadataRecord) {
  return { Put: { Item: { ...samlMetadataKey(record.organizationId), entity: 'SamlMetadata', ...record } } };
}

export function getSamlMetadata(store: Store, organizationId: string): Promise<SamlMetadataRecord | undefined> {
  return getItem(store, samlMetadataKey(organizationId), samlMetadataRecord, 'SAML metadata');
}

/** Every stored SAML metadata item (the organizations that ever configured SAML). */
export function listSamlMetadata(store: Store): Promise<SamlMetadataRecord[]> {
  return queryAll(store, { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'SAMLMETADATA' } }, samlMetadataRecord, 'SAML metadata');
}
