import * as z from 'zod';
import type { Store } from './client.js';
import { getItem, queryPrefix, queryPrefixPage, type ConditionFailure, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';
import { pendingMark } from './pendingWrite.js';

/** A CPN is unique in its library and never reused: the item stays (marked deleted) when its component goes. */
export const cpnKey = (orgId: string, libraryId: string, normalizedCpn: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `CPN#${normalizedCpn}` });

/** Claims a CPN (normalized) for a new component: fails if any component, deleted ones included, ever had it. */
export function cpnClaimPut(
  orgId: string,
  libraryId: string,
  normalizedCpn: string,
  claim: { cpn: string; componentId: string; at: string },
  options: { writeId?: string; onConditionFailed?: ConditionFailure } = {},
): WriteItem {
  return {
    Put: {
      Item: { ...cpnKey(orgId, libraryId, normalizedCpn), entity: 'Cpn', cpn: claim.cpn, componentId: claim.componentId, deleted: false, createdAt: claim.at, ...pendingMark(options.writeId) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
    ...(options.onConditionFailed ? { onConditionFailed: options.onConditionFailed } : {}),
  };
}

/** Whether a CPN (normalized) is taken in the library, including by deleted components. */
export async function isCpnTaken(store: Store, orgId: string, libraryId: string, normalizedCpn: string): Promise<{ taken: boolean; componentId?: string }> {
  const item = await getItem(store, cpnKey(orgId, libraryId, normalizedCpn), z.object({ componentId: z.string() }).passthrough(), 'CPN');
  return item ? { taken: true, componentId: item.componentId } : { taken: false };
}

/** The CPNs of a library (for reusableGroupInstances). */
export function listCpns(store: Store, orgId: string, libraryId: string): Promise<{ cpn: string; componentId: string }[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'CPN#', z.object({ cpn: z.string(), componentId: z.string() }), 'CPN');
}

/** Whether the library has claimed any CPN yet (one Query of at most one key). */
export async function libraryHasCpns(store: Store, orgId: string, libraryId: string): Promise<boolean> {
  const page = await queryPrefixPage(store, libraryPartition(orgId, libraryId), 'CPN#', 1, z.object({ PK: z.string() }), 'CPN key', { ProjectionExpression: 'PK' });
  return page.length > 0;
}
