import * as z from 'zod';
import { normalizeEmail } from './user.js';
import type { Store } from './client.js';
import { AccessAdminError } from '../errors.js';
import { type WriteItem, queryPrefix } from './items.js';

/** Organization-creation grants of an address: one partition per (lower-cased) email. */
const grantPartition = (email: string) => `GRANT#${normalizeEmail(email)}`;
export const creationGrantKey = (email: string, grantId: string) => ({ PK: grantPartition(email), SK: `GRANT#${grantId}` });

export const creationGrantRecord = z.object({
  id: z.string().uuid(),
  email: z.string(),
  createdAt: z.string(),
  expiresAtIso: z.string().nullable(),
  usedAt: z.string().nullable(),
  usedForOrganizationId: z.string().nullable(),
});
export type CreationGrantRecord = z.infer<typeof creationGrantRecord>;

export function creationGrantPut(grant: CreationGrantRecord) {
  return { Put: { Item: { ...creationGrantKey(grant.email, grant.id), entity: 'CreationGrant', ...grant }, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** Spends a grant in the transaction that creates the organization: fails if it was spent meanwhile. */
export function creationGrantSpend(grant: CreationGrantRecord, organizationId: string, at: string): WriteItem {
  return {
    Update: {
      Key: creationGrantKey(grant.email, grant.id),
      UpdateExpression: 'SET usedAt = :at, usedForOrganizationId = :org',
      ConditionExpression: 'attribute_exists(PK) AND usedAt = :null',
      ExpressionAttributeValues: { ':at': at, ':org': organizationId, ':null': null },
    },
    onConditionFailed: () => new AccessAdminError('ORG_CREATION_NOT_ALLOWED', 'Your organization-creation grant was spent meanwhile'),
  };
}

export function listCreationGrants(store: Store, email: string): Promise<CreationGrantRecord[]> {
  return queryPrefix(store, grantPartition(email), 'GRANT#', creationGrantRecord, 'creation grant');
}
