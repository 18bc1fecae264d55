import { loadLibraryConfiguration, type LibraryConfiguration } from '../config/libraryConfig.js';
import { IndentedBomTooLargeError, InvalidInputError } from '../errors.js';
import type { LibraryRef } from '../model/scope.js';
import type { BomLine } from '../store/bom.js';
import { getBoms } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { getComponents, listComponentHistorySince, type ComponentHistoryRecord, type ComponentRecord } from '../store/component.js';
import { parseChildHistoryId } from './bomRules.js';
import { linesAtVersion, type LineSummary } from './compare.js';
import { componentAtVersion, maxIndentedDepth, maxIndentedLines, type IndentedBomEntry } from './reads.js';

/**
 * Effectivity: which version of a component is in effect at a moment. A RELEASE history record takes
 * effect at its `effectiveAt` (its change order's ON_DATE, or the release itself; records from before
 * effectivity take effect when written). At a moment the version in effect is the latest release in effect
 * by then; a component with no release in effect yet shows the last version written by then; one created
 * later did not exist (null). So a release dated tomorrow leaves today's answer on the revision before it.
 */

/** asOf as ISO UTC (so it compares as a string with the stored times); BAD_USER_INPUT when it is no date-time. */
export function parseAsOf(asOf: string): string {
  const at = Date.parse(asOf);
  if (Number.isNaN(at)) throw new InvalidInputError(`asOf: ${asOf} is not a date-time`, { field: 'asOf' });
  return new Date(at).toISOString();
}

/** The version in effect at `asOf` among the history records (any order), or null when none was written by then. */
export function versionInEffect(history: readonly Pick<ComponentHistoryRecord, 'version' | 'action' | 'at' | 'effectiveAt'>[], asOf: string): number | null {
  let released: number | null = null;
  let written: number | null = null;
  for (const record of history) {
    if (record.action === 'RELEASE' && (record.effectiveAt ?? record.at) <= asOf && (released === null || record.version > released)) released = record.version;
    if (record.at <= asOf && (written === null || record.version > written)) written = record.version;
  }
  return released ?? written;
}

interface AsOfSide {
  component: ComponentRecord;
  lines: LineSummary[];
}

/** Reads components as they were at one moment, each (id, version) once. */
class AsOfReader {
  private readonly versions = new Map<string, Promise<AsOfSide | null>>();
  constructor(
    private readonly store: Store,
    private readonly ref: LibraryRef,
    private readonly config: LibraryConfiguration,
    private readonly asOf: string,
  ) {}

  /** The component at the version in effect (or the pinned version), with its BOM lines then. */
  read(id: string, pinnedVersion: number | null = null): Promise<AsOfSide | null> {
    const key = `${id}@${pinnedVersion ?? 'asOf'}`;
    let found = this.versions.get(key);
    if (!found) {
      found = this.load(id, pinnedVersion);
      this.versions.set(key, found);
    }
    return found;
  }

  private async load(id: string, pinnedVersion: number | null): Promise<AsOfSide | null> {
    const { organizationId, libraryId } = this.ref;
    const [current, bom] = await Promise.all([
      getComponents(this.store, organizationId, libraryId, [id]).then((m) => m.get(id)),
      getBoms(this.store, organizationId, libraryId, [id]).then((m) => m.get(id)),
    ]);
    if (!current) return null;
    const history = await listComponentHistorySince(this.store, current, 1);
    const version = pinnedVersion ?? versionInEffect(history, this.asOf);
    if (version === null) return null;
    const currentLines: LineSummary[] = bom?.lines ?? [];
    if (version === current.version) return { component: current, lines: currentLines };
    const component = await componentAtVersion(this.store, this.config, current, version);
    return component ? { component, lines: linesAtVersion(currentLines, history, version) } : null;
  }
}

/** component.findOne(id, asOf): the component as in effect at asOf; null when it did not exist then. */
export async function componentAsOf(store: Store, ref: LibraryRef, id: string, asOf: string): Promise<ComponentRecord | null> {
  const moment = parseAsOf(asOf);
  const config = await loadLibraryConfiguration(store, ref.organizationId, ref.libraryId);
  return (await new AsOfReader(store, ref, config, moment).read(id.toLowerCase()))?.component ?? null;
}

/** A BOM line of a past version (history keeps the line's content, not its id or author): made whole for reading. */
function lineOf(summary: LineSummary & Partial<BomLine>, assembly: ComponentRecord, index: number): BomLine {
  return {
    lineId: summary.lineId ?? `${assembly.id}:${assembly.version}:${index}`,
    childId: summary.childId,
    quantity: summary.quantity ?? null,
    refDes: summary.refDes ?? null,
    itemNumber: summary.itemNumber ?? null,
    notes: summary.notes ?? null,
    childHistoryId: summary.childHistoryId ?? null,
    substitutes: summary.substitutes ?? [],
    createdByIntegrationId: summary.createdByIntegrationId ?? null,
    createdAt: summary.createdAt ?? assembly.updatedAt,
    createdBy: summary.createdBy ?? assembly.updatedBy,
  };
}

/**
 * indentedBom(depth, asOf): the multi-level BOM as in effect at asOf. The top assembly and every line that
 * follows the latest revision (not pinned) take the version in effect then, with the BOM that version had;
 * a pinned line keeps its pinned version. Empty when the assembly did not exist then.
 */
export async function indentedBomAsOf(store: Store, ref: LibraryRef, assemblyId: string, depth: number, asOf: string): Promise<IndentedBomEntry[]> {
  if (!Number.isInteger(depth) || depth < 1 || depth > maxIndentedDepth) throw new InvalidInputError(`depth must be 1 to ${maxIndentedDepth}`, { field: 'depth' });
  const moment = parseAsOf(asOf);
  const config = await loadLibraryConfiguration(store, ref.organizationId, ref.libraryId);
  const reader = new AsOfReader(store, ref, config, moment);
  const top = await reader.read(assemblyId.toLowerCase());
  if (!top) return [];
  const lines: IndentedBomEntry[] = [];
  const walk = async (parent: AsOfSide, path: string[], quantity: number, level: number) => {
    const bomLines = parent.lines.map((summary, index) => lineOf(summary, parent.component, index));
    // The children of one BOM are read together (each id and version once across the walk).
    const children = await Promise.all(bomLines.map((line) => reader.read(line.childId, line.childHistoryId ? (parseChildHistoryId(line.childHistoryId)?.version ?? null) : null)));
    for (const [index, line] of bomLines.entries()) {
      const child = children[index]!;
      const rolledUpQuantity = quantity * (line.quantity ?? 1);
      const childPath = [...path, line.childId];
      if (lines.length === maxIndentedLines) throw new IndentedBomTooLargeError(depth, maxIndentedLines);
      lines.push({ level, path: childPath, link: { assemblyId: parent.component.id, line, childAsOf: child?.component ?? null }, rolledUpQuantity, hasChildren: (child?.lines.length ?? 0) > 0 });
      if (child && level < depth && !path.includes(line.childId)) await walk(child, childPath, rolledUpQuantity, level + 1);
    }
  };
  await walk(top, [top.component.id], 1, 1);
  return lines;
}
