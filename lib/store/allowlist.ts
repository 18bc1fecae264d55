import * as z from 'zod';
import { AlreadyExistsError, NotFoundError } from '../errors.js';
import type { Store } from './client.js';
import { queryAll, type WriteItem } from './items.js';

/**
 * Organization allowlist entries: an address ("ada@acme.test") or a domain ("@acme.test") that joins the
 * organization once verified. Keyed by entry, so a verified address finds every organization that admits it
 * with two Queries (its address, its domain); the ByUser index lists an organization's entries.
 */
export const allowlistKey = (entry: string, orgId: string) => ({ PK: `ALLOWENTRY#${entry}`, SK: `ORG#${orgId}` });
const byOrganization = (orgId: string, entry: string) => ({ GSI1PK: `ORGALLOW#${orgId}`, GSI1SK: entry });

export const allowlistRecord = z.object({
  organizationId: z.string().uuid(),
  entry: z.string(),
  roleId: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type AllowlistRecord = z.infer<typeof allowlistRecord>;

export function allowlistPut(record: AllowlistRecord): WriteItem {
  return {
    Put: {
      Item: { ...allowlistKey(record.entry, record.organizationId), ...byOrganization(record.organizationId, record.entry), entity: 'AllowlistEntry', ...record },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
    onConditionFailed: () => new AlreadyExistsError(`${record.entry} is on the allowlist already`, { field: 'input.entry' }),
  };
}

export function allowlistDelete(record: AllowlistRecord): WriteItem {
  return {
    Delete: { Key: allowlistKey(record.entry, record.organizationId), ConditionExpression: 'attribute_exists(PK)' },
    onConditionFailed: () => new NotFoundError('Allowlist entry', record.entry),
  };
}

export function listAllowlistOfOrganization(store: Store, orgId: string): Promise<AllowlistRecord[]> {
  return queryAll(store, { IndexName: 'ByUser', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': `ORGALLOW#${orgId}` } }, allowlistRecord, 'allowlist entry');
}

export function listAllowlistForEntry(store: Store, entry: string): Promise<AllowlistRecord[]> {
  return queryAll(store, { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ALLOWENTRY#${entry}` } }, allowlistRecord, 'allowlist entry');
}
