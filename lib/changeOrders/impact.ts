import { maxIndentedDepth } from '../items/reads.js';
import type { LibraryScope } from '../model/scope.js';
import { getBoms } from '../store/bom.js';
import { getChangeOrders, getChangeOrderUses, type ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { getUsages } from '../store/usage.js';

/**
 * A change order's impact: for each of its components, the assemblies that use it at every level (up the
 * where-used entries, each confirmed against the assembly's current BOM) and the other change orders that
 * hold it or one of those assemblies (the change orders index of `lib/store/changeOrder.ts`, each entry
 * confirmed against its order). One BatchGetItem of where-used entries and one of BOMs per level, one of
 * index entries and one of orders: the cost follows the where-used entries reached, never the library.
 */
export interface ImpactedAssembly {
  assemblyId: string;
  /** 1: uses the component directly; 2: uses an assembly of level 1; ... */
  level: number;
}

export interface OtherChangeOrder {
  changeOrder: ChangeOrderRecord;
  /** Which of the component and its assemblies that order holds. */
  componentIds: string[];
}

export interface ComponentImpact {
  componentId: string;
  usedBy: ImpactedAssembly[];
  levelCounts: { level: number; count: number }[];
  otherChangeOrders: OtherChangeOrder[];
}

/** The assemblies above a component, level by level (each once, at the lowest level it is reached). */
async function assembliesAbove(store: Store, scope: LibraryScope, componentId: string): Promise<ImpactedAssembly[]> {
  const { organizationId: org, libraryId: lib } = scope;
  const found: ImpactedAssembly[] = [];
  const seen = new Set([componentId]);
  let frontier = [componentId];
  for (let level = 1; level <= maxIndentedDepth && frontier.length > 0; level += 1) {
    const usages = await getUsages(store, org, lib, frontier);
    const pairs = frontier.flatMap((childId) => [...(usages.get(childId)?.assemblies ?? [])].map((assemblyId) => ({ childId, assemblyId })));
    const boms = await getBoms(store, org, lib, [...new Set(pairs.map((p) => p.assemblyId))]);
    const next: string[] = [];
    for (const { childId, assemblyId } of pairs) {
      if (seen.has(assemblyId) || !boms.get(assemblyId)?.childIds.includes(childId)) continue;
      seen.add(assemblyId);
      next.push(assemblyId);
      found.push({ assemblyId, level });
    }
    frontier = next.sort();
  }
  return found;
}

export async function changeOrderImpact(store: Store, scope: LibraryScope, record: Pick<ChangeOrderRecord, 'id' | 'components'>): Promise<ComponentImpact[]> {
  const { organizationId: org, libraryId: lib } = scope;
  const above = await Promise.all(record.components.map((c) => assembliesAbove(store, scope, c.componentId)));
  const involved = [...new Set(record.components.flatMap((c, i) => [c.componentId, ...above[i]!.map((a) => a.assemblyId)]))];
  const uses = await getChangeOrderUses(store, org, lib, involved);
  const orderIds = [...new Set([...uses.values()].flatMap((u) => [...(u.changeOrders ?? [])]))].filter((id) => id !== record.id);
  const orders = [...(await getChangeOrders(store, org, lib, orderIds)).values()].filter((o) => o.status !== 'CLOSED');
  return record.components.map((entry, i) => {
    const usedBy = above[i]!;
    const mine = new Set([entry.componentId, ...usedBy.map((a) => a.assemblyId)]);
    const counts = new Map<number, number>();
    for (const a of usedBy) counts.set(a.level, (counts.get(a.level) ?? 0) + 1);
    const otherChangeOrders = orders
      .map((changeOrder) => ({ changeOrder, componentIds: changeOrder.components.map((c) => c.componentId).filter((id) => mine.has(id)) }))
      .filter((o) => o.componentIds.length > 0)
      .sort((a, b) => a.changeOrder.number.localeCompare(b.changeOrder.number));
    return {
      componentId: entry.componentId,
      usedBy,
      levelCounts: [...counts].sort((a, b) => a[0] - b[0]).map(([level, count]) => ({ level, count })),
      otherChangeOrders,
    };
  });
}
