import { randomUUID } from 'node:crypto';

import type { ComponentRecord } from '../store/component.js';
import type { HistoryChange } from '../store/componentHistory.js';
import type { BomLine, BomRecord } from '../store/bom.js';
import { BomError } from '../errors.js';

import { storableNumberProblem } from '../numbers.js';

import type { ChildCommand } from './commands.js';

const text = (value: string | null | undefined, field: string, max: number, at: string): string | null => {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  if (trimmed.length > max) throw new BomError('INVALID_BOM_LINE', `${at}: ${field} must be at most ${max} characters`, { field });
  return trimmed.length ? trimmed : null;
};

export function parseChildHistoryId(value: string): { childId: string; version: number } | null {
  const match = /^([0-9a-f-]{36}):([1-9][0-9]*)$/i.exec(value);
  return match ? { childId: match[1]!.toLowerCase(), version: Number(match[2]) } : null;
}

/**
 * The desired BOM lines of an assembly, validated against the children as stored. Lines keep their
 * identity (lineId, createdAt/createdBy) when a line for the same child is kept, in order.
 */
export function desiredLines(
  assembly: ComponentRecord,
  children: ChildCommand[],
  current: BomRecord | undefined,
  stored: Map<string, ComponentRecord>,
  inputIndex: number,
  at: string,
  userId: string,
  actingIntegrationId: string | null = null,
): BomLine[] {
  if (assembly.category.type !== 'ASSEMBLY' && children.length > 0) {
    throw new BomError('NOT_AN_ASSEMBLY', `inputs[${inputIndex}]: only assemblies have children; ${assembly.name} is a ${assembly.category.type}`, { inputIndex });
  }
  const reusable = new Map<string, BomLine[]>();
  for (const line of current?.lines ?? []) reusable.set(line.childId, [...(reusable.get(line.childId) ?? []), line]);
  return children.map((child, lineIndex) => {
    const where = `inputs[${inputIndex}].children[${lineIndex}]`;
    const component = stored.get(child.childId);
    if (!component) throw new BomError('CHILD_NOT_FOUND', `${where}: component ${child.childId} does not exist in this library`, { inputIndex, lineIndex, childId: child.childId });
    const quantityProblem =
      child.quantity === undefined || child.quantity === null ? null : child.quantity <= 0 ? `must be a positive number (got ${child.quantity})` : storableNumberProblem(child.quantity);
    if (quantityProblem) {
      throw new BomError('INVALID_BOM_LINE', `${where}: quantity ${quantityProblem}`, { inputIndex, lineIndex, field: 'quantity' });
    }
    let childHistoryId: string | null = null;
    if (child.childHistoryId !== undefined && child.childHistoryId !== null) {
      const pinned = parseChildHistoryId(child.childHistoryId);
      if (!pinned || pinned.childId !== component.id || pinned.version > component.version) {
        throw new BomError('INVALID_BOM_LINE', `${where}: childHistoryId ${child.childHistoryId} is not a version of ${component.name} (versions 1 to ${component.version})`, {
          inputIndex,
          lineIndex,
        });
      }
      childHistoryId = `${component.id}:${pinned.version}`;
    }
    const substitutes = (child.substitutes ?? []).map((substituteId, rank) => {
      const substitute = stored.get(substituteId);
      if (!substitute) {
        throw new BomError('CHILD_NOT_FOUND', `${where}.substitutes[${rank}]: component ${substituteId} does not exist in this library`, {
          inputIndex,
          lineIndex,
          childId: substituteId,
          field: 'substitutes',
        });
      }
      if (substitute.id === component.id) throw new BomError('INVALID_BOM_LINE', `${where}.substitutes[${rank}]: a child is not its own substitute`, { inputIndex, lineIndex, field: 'substitutes' });
      return substitute.id;
    });
    if (new Set(substitutes).size !== substitutes.length) throw new BomError('INVALID_BOM_LINE', `${where}: substitutes names a component twice`, { inputIndex, lineIndex, field: 'substitutes' });
    const kept = reusable.get(child.childId)?.shift();
    return {
      lineId: kept?.lineId ?? randomUUID(),
      childId: component.id,
      quantity: child.quantity ?? null,
      refDes: text(child.refDes, 'refDes', 2000, where),
      itemNumber: text(child.itemNumber, 'itemNumber', 50, where),
      notes: text(child.notes, 'notes', 2000, where),
      childHistoryId,
      substitutes,
      // A kept line keeps who created it; a new line records the integration the write acts for.
      createdByIntegrationId: kept ? kept.createdByIntegrationId : actingIntegrationId,
      createdAt: kept?.createdAt ?? at,
      createdBy: kept?.createdBy ?? userId,
    };
  });
}

const lineSummary = (line: BomLine) => ({
  childId: line.childId,
  quantity: line.quantity,
  refDes: line.refDes,
  itemNumber: line.itemNumber,
  notes: line.notes,
  childHistoryId: line.childHistoryId,
  // Only when there are some: the history of BOMs without substitutes reads as before.
  ...(line.substitutes.length > 0 ? { substitutes: line.substitutes } : {}),
});

/** The BOM change as a history change, or null when the lines are the same. */
export function bomChange(before: BomLine[], after: BomLine[]): HistoryChange | null {
  const from = before.map(lineSummary);
  const to = after.map(lineSummary);
  return JSON.stringify(from) === JSON.stringify(to) ? null : { field: 'children', from, to };
}

/**
 * Finds a cycle the new BOMs would make: a path from an assembly back to itself through children,
 * following the new BOMs of this call and the stored BOMs of everything else. Loads stored BOMs level by
 * level (one batch read per level).
 */
export async function findBomCycle(changed: Map<string, string[]>, loadChildren: (ids: string[]) => Promise<Map<string, string[]>>): Promise<string[] | null> {
  const known = new Map(changed);
  const edgesOf = (id: string) => known.get(id) ?? [];
  for (const root of changed.keys()) {
    // Breadth-first from the root's children, remembering how each node was reached.
    const parent = new Map<string, string>();
    let frontier = [...new Set(edgesOf(root))];
    for (const child of frontier) parent.set(child, root);
    while (frontier.length > 0) {
      if (frontier.includes(root)) {
        const path = [root];
        for (let node = parent.get(root)!; node !== root; node = parent.get(node)!) path.unshift(node);
        path.unshift(root);
        return path;
      }
      const unknown = frontier.filter((id) => !known.has(id));
      if (unknown.length > 0) {
        const loaded = await loadChildren(unknown);
        for (const id of unknown) known.set(id, loaded.get(id) ?? []);
      }
      const next: string[] = [];
      for (const node of frontier) {
        for (const child of edgesOf(node)) {
          if (parent.has(child)) continue;
          parent.set(child, node);
          next.push(child);
        }
      }
      frontier = next;
    }
  }
  return null;
}
