import * as z from 'zod';
import { ConcurrentWriteError, IntegrationAccessError } from '../errors.js';
import type { Store } from './client.js';
import { getItem, type WriteItem, queryPrefix } from './items.js';

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

/** Claims an integration's name in its organization; taken: INTEGRATION_NAME_TAKEN. */
function integrationNamePut(record: IntegrationRecord): WriteItem {
  return {
    Put: { Item: { ...integrationNameKey(record.organizationId, record.name), entity: 'IntegrationName', integrationId: record.id }, ConditionExpression: 'attribute_not_exists(PK)' },
    onConditionFailed: () => new IntegrationAccessError('INTEGRATION_NAME_TAKEN', `An integration named "${record.name}" exists in this organization`, { name: record.name }),
  };
}

export function integrationPuts(record: IntegrationRecord): WriteItem[] {
  return [{ Put: { Item: { ...integrationKey(record.organizationId, record.id), entity: 'Integration', ...record }, ConditionExpression: 'attribute_not_exists(PK)' } }, integrationNamePut(record)];
}

/** Renames or disables; conditioned on the version read (updatedAt); the name item moves with the name. */
export function integrationUpdateItems(before: IntegrationRecord, after: IntegrationRecord): WriteItem[] {
  const items: WriteItem[] = [
    {
      Put: {
        Item: { ...integrationKey(after.organizationId, after.id), entity: 'Integration', ...after },
        ConditionExpression: 'updatedAt = :before',
        ExpressionAttributeValues: { ':before': before.updatedAt },
      },
      onConditionFailed: () => new ConcurrentWriteError(`Integration ${before.name}`),
    },
  ];
  if (before.name.trim().toLowerCase() !== after.name.trim().toLowerCase()) {
    items.push({ Delete: { Key: integrationNameKey(before.organizationId, before.name) } });
    items.push(integrationNamePut(after));
  }
  return items;
}

export function getIntegration(store: Store, orgId: string, integrationId: string): Promise<IntegrationRecord | undefined> {
  return getItem(store, integrationKey(orgId, integrationId), integrationRecord, 'integration');
}

export function listIntegrations(store: Store, orgId: string): Promise<IntegrationRecord[]> {
  return queryPrefix(store, orgPartition(orgId), 'INTEGRATION#', integrationRecord, 'integration');
}
