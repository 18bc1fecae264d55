import type { LibraryRef } from '../model/scope.js';
import { getBoms } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { listComponents } from '../store/component.js';
import { listSourcings, type SourcingRecord } from '../store/sourcing.js';
import { getUsages } from '../store/usage.js';

/**
 * Sourcing risks of a library: PART components (not archived) with no APPROVED manufacturer part, or whose
 * every approved part is NRND, LAST_TIME_BUY or OBSOLETE; each with the assemblies that use it at any level,
 * found upwards through the where-used entries (one BatchGetItem of entries and one of BOMs per level,
 * every entry confirmed against its assembly's BOM). Reads the library's components and sourcing items
 * whole (two Queries): an on-demand report, not a per-page read.
 */

export type RiskReason = 'NO_APPROVED_PART' | 'END_OF_LIFE';
const endOfLife = new Set(['NRND', 'LAST_TIME_BUY', 'OBSOLETE']);

export interface RiskAssembly {
  assemblyId: string;
  /** Used by no other assembly. */
  isTop: boolean;
  /** Levels between the assembly and the component (1: its BOM lists the component). */
  distance: number;
}

export interface SourcingRiskView {
  componentId: string;
  reason: RiskReason;
  /** The manufacturer parts the reason concerns (the approved ones, for END_OF_LIFE). */
  partIds: string[];
  /** Top assemblies first, then farther before nearer. */
  usedIn: RiskAssembly[];
}

export function riskOf(sourcing: SourcingRecord | undefined): { reason: RiskReason; partIds: string[] } | null {
  const approved = (sourcing?.parts ?? []).filter((p) => p.approval === 'APPROVED');
  if (approved.length === 0) return { reason: 'NO_APPROVED_PART', partIds: [] };
  if (approved.every((p) => endOfLife.has(p.lifecycle))) return { reason: 'END_OF_LIFE', partIds: approved.map((p) => p.id) };
  return null;
}

/** Confirmed parents of each component reachable upwards from `ids`. */
async function parentsUpwards(store: Store, ref: LibraryRef, ids: string[]): Promise<Map<string, string[]>> {
  const parents = new Map<string, string[]>();
  let frontier = [...new Set(ids)];
  for (let level = 0; frontier.length > 0 && level < 50; level += 1) {
    const usages = await getUsages(store, ref.organizationId, ref.libraryId, frontier);
    const named = [...new Set([...usages.values()].flatMap((u) => [...(u.assemblies ?? [])]))];
    const boms = named.length ? await getBoms(store, ref.organizationId, ref.libraryId, named) : new Map();
    for (const id of frontier) {
      const confirmed = [...(usages.get(id)?.assemblies ?? [])].filter((a) => boms.get(a)?.childIds.includes(id)).sort();
      parents.set(id, confirmed);
    }
    frontier = [...new Set(frontier.flatMap((id) => parents.get(id)!))].filter((id) => !parents.has(id));
  }
  return parents;
}

export async function sourcingRisks(store: Store, ref: LibraryRef): Promise<SourcingRiskView[]> {
  const [components, sourcings] = await Promise.all([listComponents(store, ref.organizationId, ref.libraryId), listSourcings(store, ref.organizationId, ref.libraryId)]);
  const byComponent = new Map(sourcings.map((s) => [s.componentId, s]));
  const risky = components
    .filter((c) => c.category.type === 'PART' && !c.isArchived)
    .sort((a, b) => a.cpn.localeCompare(b.cpn))
    .flatMap((c) => {
      const risk = riskOf(byComponent.get(c.id));
      return risk ? [{ componentId: c.id, ...risk }] : [];
    });
  if (risky.length === 0) return [];
  const parents = await parentsUpwards(
    store,
    ref,
    risky.map((r) => r.componentId),
  );
  return risky.map((risk) => {
    const distance = new Map<string, number>();
    let level = [risk.componentId];
    for (let d = 1; level.length > 0 && d <= 50; d += 1) {
      const next: string[] = [];
      for (const id of level) {
        for (const parent of parents.get(id) ?? []) {
          if (parent === risk.componentId || distance.has(parent)) continue;
          distance.set(parent, d);
          next.push(parent);
        }
      }
      level = next;
    }
    const usedIn = [...distance].map(([assemblyId, d]) => ({ assemblyId, distance: d, isTop: (parents.get(assemblyId) ?? []).length === 0 }));
    usedIn.sort((a, b) => Number(b.isTop) - Number(a.isTop) || b.distance - a.distance || a.assemblyId.localeCompare(b.assemblyId));
    return { ...risk, usedIn };
  });
}
