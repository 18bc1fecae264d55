import * as z from 'zod';
import type { Store } from './client.js';
import { getItem, queryAll } from './items.js';

const orgPartition = (orgId: string) => `ORG#${orgId}`;
/** An integration principal of an organization (the native principal lives in code, not in the table). */
export const integrationKey = (orgId: string, integrationId: string) => ({ PK: orgPartition(orgId), SK: `INTEGRATION#${integrationId}` });
/** Uniqueness of an integration's name in its organization (case-insensitive). */
export const integrationNameKey = (orgId: string, name: string) => ({ PK: orgPartition(orgId), SK: `INTEGRATIONNAME#${name.trim().toLowerCase()}` });

export const integrationRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  name: z.string(),
  /** A disabled integration's API keys are refused (INTEGRATION_DISABLED); its designations and links stay. */
  disabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: z.string(),
});
export type IntegrationRecord = z.infer<typeof integrationRecord>;

export function integrationPuts(record: IntegrationRecord) {
  return [
    { Put: { Item: { ...integrationKey(record.organizationId, record.id), entity: 'Integration', ...record }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...integrationNameKey(record.organizationId, record.name), entity: 'IntegrationName', integrationId: record.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
  ];
}

/** Renames or disables; conditioned on the version read (updatedAt); the name item moves with the name. */
export function integrationUpdateItems(before: IntegrationRecord, after: IntegrationRecord) {
  const items: Record<string, unknown>[] = [
    {
      Put: {
        Item: { ...integrationKey(after.organizationId, after.id), entity: 'Integration', ...after },
        ConditionExpression: 'updatedAt = :before',
        ExpressionAttributeValues: { ':before': before.updatedAt },
      },
    },
  ];
  if (before.name.trim().toLowerCase() !== after.name.trim().toLowerCase()) {
    items.push({ Delete: { Key: integrationNameKey(before.organizationId, before.name) } });
    items.push({ Put: { Item: { ...integrationNameKey(after.organizationId, after.name), entity: 'IntegrationName', integrationId: after.id }, ConditionExpression: 'attribute_not_exists(PK)' } });
  }
  return items;
}

export function getIntegration(store: Store, orgId: string, integrationId: string): Promise<IntegrationRecord | undefined> {
  return getItem(store, integrationKey(orgId, integrationId), integrationRecord, 'integration');
}

export function listIntegrations(store: Store, orgId: string): Promise<IntegrationRecord[]> {
  return queryAll(
    store,
    { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': orgPartition(orgId), ':prefix': 'INTEGRATION#' } },
    integrationRecord,
    'integration',
  );
}
