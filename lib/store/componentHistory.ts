import * as z from 'zod';
import type { Store } from './client.js';
import type { ComponentRecord } from './component.js';
import { listKeysWithPrefix, queryAll, queryNewestFirst, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';
import { committedOnly, pendingMark } from './pendingWrite.js';

/** A component's history: one record per write (`H#<componentId>#<version>`), newest first. */

export const componentHistoryKey = (orgId: string, libraryId: string, componentId: string, version: number) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `H#${componentId}#${String(version).padStart(10, '0')}`,
});

export const historyChange = z.object({ field: z.string(), from: z.unknown(), to: z.unknown() });
export type HistoryChange = z.infer<typeof historyChange>;

export const componentHistoryRecord = z.object({
  componentId: z.string().uuid(),
  version: z.number().int().positive(),
  action: z.enum(['CREATE', 'UPDATE', 'RELEASE']),
  at: z.string(),
  by: z.string(),
  actingIntegrationId: z.string().nullable(),
  changes: z.array(historyChange),
  /** A RELEASE record's moment of effect (its change order's effectivity): the release time, or a later date. */
  effectiveAt: z.string().nullish(),
  /** Present while the large write (item write or release) that wrote the record may not have committed. */
  writeId: z.string().nullish(),
});
export type ComponentHistoryRecord = z.infer<typeof componentHistoryRecord>;

export function historyItem(orgId: string, libraryId: string, record: ComponentHistoryRecord) {
  return { ...componentHistoryKey(orgId, libraryId, record.componentId, record.version), entity: 'ComponentHistory', ...record };
}

/**
 * Puts a history record. `once`: fails if the record exists (a concurrent writer of the same version);
 * the first record of a new component is put without condition.
 */
export function componentHistoryPut(orgId: string, libraryId: string, record: ComponentHistoryRecord, options: { once: boolean; writeId?: string }): WriteItem {
  return {
    Put: {
      Item: { ...historyItem(orgId, libraryId, record), ...pendingMark(options.writeId) },
      ...(options.once ? { ConditionExpression: 'attribute_not_exists(PK)' } : {}),
    },
  };
}

/**
 * History of one component, newest first. A record of a large release that has not committed (the
 * component is still at the version before it) is left out; it costs a read only while one is there.
 */
export async function listComponentHistory(store: Store, orgId: string, libraryId: string, componentId: string, limit: number): Promise<ComponentHistoryRecord[]> {
  const records = await queryNewestFirst(store, libraryPartition(orgId, libraryId), `H#${componentId}#`, limit, componentHistoryRecord, 'component history');
  return committedOnly(store, orgId, libraryId, records);
}

/** The history records of a component from `version` to its current one, newest first (one Query). */
export function listComponentHistorySince(store: Store, current: ComponentRecord, version: number): Promise<ComponentHistoryRecord[]> {
  return queryAll(
    store,
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': libraryPartition(current.organizationId, current.libraryId),
        ':from': componentHistoryKey(current.organizationId, current.libraryId, current.id, version).SK,
        ':to': componentHistoryKey(current.organizationId, current.libraryId, current.id, current.version).SK,
      },
      ScanIndexForward: false,
    },
    componentHistoryRecord,
    'component history',
  );
}

/** Keys of all history items of a component, for permanent deletion. */
export function listComponentHistoryKeys(store: Store, orgId: string, libraryId: string, componentId: string): Promise<{ PK: string; SK: string }[]> {
  return listKeysWithPrefix(store, libraryPartition(orgId, libraryId), `H#${componentId}#`);
}
