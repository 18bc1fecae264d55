import { loadLibraryConfiguration, type LibraryConfiguration } from '../config/libraryConfig.js';
import { BomError, DomainError, InvalidInputError, NotFoundError } from '../errors.js';
import { IndentedBomTooLargeError } from './errors.js';
import { trackedFields } from '../components/rules.js';
import type { LibraryRef } from '../model/scope.js';
import { getBoms, type BomLine } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { getComponents, type ComponentRecord } from '../store/component.js';
import { listComponentHistorySince, type ComponentHistoryRecord } from '../store/componentHistory.js';
import { componentAtVersion, maxIndentedDepth, maxIndentedLines } from './reads.js';

/**
 * Compare of two components, or two versions of one (a redline): field and attribute differences, and the
 * BOM lines added, removed and changed, matched by child. With levels > 1 the flattened BOMs (every
 * component reached within that many levels, its extended quantity summed over every path to it) are
 * compared instead. The version asked for is rebuilt from the current record and the history records after
 * it (lib/items/reads.ts `componentAtVersion`; the BOM from the `children` change of the first later write
 * that changed it), so the cost follows the versions between, not the library.
 */

/** A side of a compare: a component, at a version, or at a revision (its release at that revision), else current. */
export interface ComponentRef {
  id: string;
  version?: number | null;
  revision?: string | null;
}

/** A refused compare: VERSION_NOT_FOUND, REVISION_NOT_FOUND (NOT_FOUND for an unknown component, NOT_AN_ASSEMBLY for a part's BOM). */
export class CompareError extends DomainError {
  constructor(code: 'VERSION_NOT_FOUND' | 'REVISION_NOT_FOUND', message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
  }
}

/** The comparable fields of a BOM line. */
export interface LineValues {
  quantity: number | null;
  refDes: string | null;
  itemNumber: string | null;
  notes: string | null;
  childHistoryId: string | null;
  /** The quantity times the quantities above it (an unset quantity counts as 1), summed over every path. */
  extendedQuantity: number;
  /** The shallowest level the child is reached at (1: a direct child). */
  level: number;
}

export interface BomDifference {
  change: 'ADDED' | 'REMOVED' | 'CHANGED';
  childId: string;
  changedFields: string[];
  left: LineValues | null;
  right: LineValues | null;
}

export interface ValueDifference {
  field: string;
  left: unknown;
  right: unknown;
}

export type AttributeDifference = ValueDifference & { attributeId: string; categoryId: string };

export interface ComponentComparison {
  left: ComponentRecord;
  right: ComponentRecord;
  levels: number;
  fields: ValueDifference[];
  attributes: AttributeDifference[];
  bom: BomDifference[];
}

export type LineSummary = Pick<BomLine, 'childId' | 'quantity' | 'refDes' | 'itemNumber' | 'notes' | 'childHistoryId'>;

interface Side {
  component: ComponentRecord;
  lines: LineSummary[];
}

/** The content fields compared: those history tracks (the lifecycle ones, state and version, follow from them and are left out). */
const comparedFields = trackedFields;
const lineFields = ['quantity', 'refDes', 'itemNumber', 'notes', 'childHistoryId'] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The versions of a component, newest first, with the revision each had: from the current record back
 * through the history records (each names the revision it left).
 */
function revisionsByVersion(current: ComponentRecord, history: ComponentHistoryRecord[]): { version: number; revision: string; released: boolean }[] {
  const out: { version: number; revision: string; released: boolean }[] = [];
  let revision = current.revisionValue;
  for (const record of [...history].sort((a, b) => b.version - a.version)) {
    out.push({ version: record.version, revision, released: record.action === 'RELEASE' });
    const change = record.changes.find((c) => c.field === 'revisionValue');
    if (change && typeof change.from === 'string') revision = change.from;
  }
  return out;
}

/** The BOM lines of a component at a version: the current BOM, undone by the first later write that changed it. */
export function linesAtVersion(currentLines: LineSummary[], laterHistory: ComponentHistoryRecord[], version: number): LineSummary[] {
  const first = [...laterHistory]
    .filter((h) => h.version > version)
    .sort((a, b) => a.version - b.version)
    .find((h) => h.changes.some((c) => c.field === 'children'));
  if (!first) return currentLines;
  const from = first.changes.find((c) => c.field === 'children')!.from;
  return Array.isArray(from) ? (from as LineSummary[]) : [];
}

/** One side of a compare, read: the component as it was at the version (or revision) asked for, with its BOM lines. */
export async function readSide(store: Store, ref: LibraryRef, config: LibraryConfiguration, side: ComponentRef, which: string): Promise<Side> {
  const id = side.id.toLowerCase();
  const current = (await getComponents(store, ref.organizationId, ref.libraryId, [id])).get(id);
  if (!current) throw new NotFoundError('Component', side.id);
  if (side.version !== undefined && side.version !== null && side.revision !== undefined && side.revision !== null) {
    throw new InvalidInputError(`${which}: give a version or a revision, not both`, { field: which });
  }
  const bom = (await getBoms(store, ref.organizationId, ref.libraryId, [id])).get(id);
  const currentLines: LineSummary[] = bom?.lines ?? [];
  let version = current.version;
  let history: ComponentHistoryRecord[] = [];
  if (side.version !== undefined && side.version !== null) {
    if (!Number.isInteger(side.version) || side.version < 1 || side.version > current.version) {
      throw new CompareError('VERSION_NOT_FOUND', `${which}: ${current.cpn} has versions 1 to ${current.version}; there is no version ${side.version}`, { field: which, version: side.version });
    }
    version = side.version;
  } else if (side.revision !== undefined && side.revision !== null) {
    history = await listComponentHistorySince(store, current, 1);
    const versions = revisionsByVersion(current, history).filter((v) => v.revision === side.revision);
    const chosen = versions.find((v) => v.released) ?? versions[0];
    if (!chosen) throw new CompareError('REVISION_NOT_FOUND', `${which}: ${current.cpn} was never at revision ${side.revision}`, { field: which, revision: side.revision });
    version = chosen.version;
  }
  if (version === current.version) return { component: current, lines: currentLines };
  if (history.length === 0) history = await listComponentHistorySince(store, current, version);
  const component = await componentAtVersion(store, config, current, version);
  if (!component) throw new CompareError('VERSION_NOT_FOUND', `${which}: the history of ${current.cpn} has no version ${version}`, { field: which, version });
  return { component, lines: linesAtVersion(currentLines, history, version) };
}

/** Direct lines as compare entries, several lines of one child matched in order (the second with the second). */
function directEntries(lines: LineSummary[]): Map<string, LineValues> {
  const out = new Map<string, LineValues>();
  const seen = new Map<string, number>();
  for (const line of lines) {
    const n = seen.get(line.childId) ?? 0;
    seen.set(line.childId, n + 1);
    const key = n === 0 ? line.childId : `${line.childId}#${n}`;
    out.set(key, { quantity: line.quantity, refDes: line.refDes, itemNumber: line.itemNumber, notes: line.notes, childHistoryId: line.childHistoryId, extendedQuantity: line.quantity ?? 1, level: 1 });
  }
  return out;
}

/**
 * The flattened BOM below the given top lines: every component reached within `levels` levels, with its
 * extended quantity summed over every path. Below the top, BOMs are the current ones (one batch read per
 * level); at most `maxIndentedLines` paths.
 */
async function flattened(store: Store, ref: LibraryRef, top: LineSummary[], levels: number, boms: Map<string, LineSummary[]>): Promise<Map<string, LineValues>> {
  const out = new Map<string, LineValues>();
  let frontier: { childId: string; quantity: number; path: string[] }[] = top.map((l) => ({ childId: l.childId, quantity: l.quantity ?? 1, path: [] }));
  let paths = 0;
  for (let level = 1; level <= levels && frontier.length > 0; level += 1) {
    paths += frontier.length;
    if (paths > maxIndentedLines) throw new IndentedBomTooLargeError(levels, maxIndentedLines);
    for (const entry of frontier) {
      const known = out.get(entry.childId);
      if (known) known.extendedQuantity += entry.quantity;
      else out.set(entry.childId, { quantity: null, refDes: null, itemNumber: null, notes: null, childHistoryId: null, extendedQuantity: entry.quantity, level });
    }
    if (level === levels) break;
    const unknown = [...new Set(frontier.map((e) => e.childId))].filter((id) => !boms.has(id));
    if (unknown.length) {
      const loaded = await getBoms(store, ref.organizationId, ref.libraryId, unknown);
      for (const id of unknown) boms.set(id, loaded.get(id)?.lines ?? []);
    }
    // A BOM never contains its own assembly (writes refuse cycles); the path check guards old data anyway.
    frontier = frontier.flatMap((e) =>
      e.path.includes(e.childId) ? [] : boms.get(e.childId)!.map((l) => ({ childId: l.childId, quantity: e.quantity * (l.quantity ?? 1), path: [...e.path, e.childId] })),
    );
  }
  for (const [childId, value] of out) {
    // Line quantities up to 2^53 multiplied down 20 levels pass what a number holds: refused, not an error where the Float is written.
    if (!Number.isFinite(value.extendedQuantity)) {
      throw new InvalidInputError(`levels: the extended quantity of ${childId} at level ${value.level} passes what a number holds; compare fewer levels`, { field: 'levels', childId });
    }
    value.extendedQuantity = Number(value.extendedQuantity.toPrecision(12));
  }
  return out;
}

function bomDifferences(left: Map<string, LineValues>, right: Map<string, LineValues>, fields: readonly (keyof LineValues)[]): BomDifference[] {
  const out: BomDifference[] = [];
  const childOf = (key: string) => key.split('#')[0]!;
  for (const [key, l] of left) {
    const r = right.get(key);
    if (!r) {
      out.push({ change: 'REMOVED', childId: childOf(key), changedFields: [], left: l, right: null });
      continue;
    }
    const changedFields = fields.filter((f) => !same(l[f], r[f]));
    if (changedFields.length) out.push({ change: 'CHANGED', childId: childOf(key), changedFields, left: l, right: r });
  }
  for (const [key, r] of right) if (!left.has(key)) out.push({ change: 'ADDED', childId: childOf(key), changedFields: [], left: null, right: r });
  return out;
}

/** Field and attribute differences of two component records. */
export function recordDifferences(left: ComponentRecord, right: ComponentRecord): Pick<ComponentComparison, 'fields' | 'attributes'> {
  const fields = comparedFields.filter((f) => !same(left[f], right[f])).map((field) => ({ field, left: left[field] ?? null, right: right[field] ?? null }));
  const ids = [...new Set([...Object.keys(left.attributeValues), ...Object.keys(right.attributeValues)])].sort();
  const attributes = ids
    .filter((id) => !same(left.attributeValues[id], right.attributeValues[id]))
    .map((attributeId) => ({
      attributeId,
      categoryId: right.attributeValues[attributeId] !== undefined ? right.categoryId : left.categoryId,
      field: `attributeValues.${attributeId}`,
      left: left.attributeValues[attributeId] ?? null,
      right: right.attributeValues[attributeId] ?? null,
    }));
  return { fields, attributes };
}

/** Compares two sides already read (a change order's redlines read them once). */
export async function compareSides(store: Store, ref: LibraryRef, left: Side, right: Side, levels: number): Promise<ComponentComparison> {
  const differences = recordDifferences(left.component, right.component);
  let bom: BomDifference[];
  if (levels === 1) bom = bomDifferences(directEntries(left.lines), directEntries(right.lines), lineFields);
  else {
    const boms = new Map<string, LineSummary[]>();
    const [l, r] = await Promise.all([flattened(store, ref, left.lines, levels, boms), flattened(store, ref, right.lines, levels, boms)]);
    bom = bomDifferences(l, r, ['extendedQuantity']);
  }
  return { left: left.component, right: right.component, levels, ...differences, bom };
}

/** component.compare: two components, or two versions of one. `levels` (1 to 25, default 1) compares flattened BOMs. */
export async function compareComponents(store: Store, ref: LibraryRef, left: ComponentRef, right: ComponentRef, levels?: number | null): Promise<ComponentComparison> {
  const depth = levels ?? 1;
  if (!Number.isInteger(depth) || depth < 1 || depth > maxIndentedDepth) throw new InvalidInputError(`levels must be 1 to ${maxIndentedDepth}`, { field: 'levels' });
  const config = await loadLibraryConfiguration(store, ref.organizationId, ref.libraryId);
  const [l, r] = await Promise.all([readSide(store, ref, config, left, 'left'), readSide(store, ref, config, right, 'right')]);
  if (levels !== undefined && levels !== null) {
    for (const [which, side] of [
      ['left', l],
      ['right', r],
    ] as const) {
      if (side.component.category.type !== 'ASSEMBLY') {
        throw new BomError('NOT_AN_ASSEMBLY', `${which}: ${side.component.cpn} is a ${side.component.category.type}; only assemblies have a BOM to compare by levels`, { field: which });
      }
    }
  }
  return compareSides(store, ref, l, r, depth);
}
