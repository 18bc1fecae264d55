import { compareComponents, type ComponentComparison } from '../items/compare.js';
import type { LibraryScope } from '../model/scope.js';
import type { ChangeOrderComponentRecord, ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { getComponents } from '../store/component.js';
import { listComponentHistorySince } from '../store/componentHistory.js';

/** A component of a change order as read through the order (its redlines need the order's number and resolution). */
export type ChangeOrderComponentView = ChangeOrderComponentRecord & { order?: Pick<ChangeOrderRecord, 'number' | 'resolution'> };

export const componentsOf = (record: Pick<ChangeOrderRecord, 'components' | 'number' | 'resolution'>): ChangeOrderComponentView[] =>
  record.components.map((entry) => ({ ...entry, order: { number: record.number, resolution: record.resolution } }));

/**
 * The redlines of a change order's component: the compare (`lib/items/compare.ts`) of its last released
 * version with the version the order releases (the current one; once the order released it, the version it
 * released against the release before). Null for a first release. One Query of the component's history.
 */
export async function redlinesOf(store: Store, scope: LibraryScope, entry: ChangeOrderComponentView): Promise<ComponentComparison | null> {
  const current = (await getComponents(store, scope.organizationId, scope.libraryId, [entry.componentId])).get(entry.componentId);
  if (!current) return null;
  const releases = (await listComponentHistorySince(store, current, 1)).filter((h) => h.action === 'RELEASE').sort((a, b) => b.version - a.version);
  let right = current.version;
  let candidates = releases;
  if (entry.order?.resolution === 'APPROVED') {
    const own = releases.find((h) => h.changes.some((c) => c.field === 'changeOrder' && c.to === entry.order!.number));
    if (own) {
      right = own.version;
      candidates = releases.filter((h) => h.version < own.version);
    }
  }
  const left = candidates.find((h) => h.version <= right);
  if (!left) return null;
  return compareComponents(store, scope, { id: current.id, version: left.version }, { id: current.id, version: right });
}
