import { loadLibraryConfiguration, type LibraryConfiguration } from '../config/libraryConfig.js';
import { parseDateTimeInput } from '../model/dateTime.js';
import type { LibraryRef } from '../model/scope.js';
import type { BomLine } from '../store/bom.js';
import { getBoms } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { getComponents, type ComponentRecord } from '../store/component.js';
import { listComponentHistorySince, type ComponentHistoryRecord } from '../store/componentHistory.js';
import { parseChildHistoryId } from './bomRules.js';
import { linesAtVersion, type LineSummary } from './compare.js';
import { checkDepth, pageOf, readIndented, type IndentedBomEntry, type PageRequest, type WalkNode, type WalkSource } from './indentedWalk.js';
import { componentAtVersion } from './reads.js';

/**
 * Effectivity: which version of a component is in effect at a moment. A RELEASE history record takes
 * effect at its `effectiveAt` (its change order's ON_DATE, or the release itself; records from before
 * effectivity take effect when written). At a moment the version in effect is the latest release in effect
 * by then; a component with no release in effect yet shows the last version written by then and before any
 * release dated later; one created later did not exist (null). So a release dated tomorrow leaves today's answer on the revision before it.
 */

/** asOf as ISO UTC (so it compares as a string with the stored times); BAD_USER_INPUT when it is no date-time of years 0000 to 9999. */
export function parseAsOf(asOf: string): string {
  return parseDateTimeInput(asOf, 'asOf');
}

/** The version in effect at `asOf` among the history records (any order), or null when none was written by then. */
export function versionInEffect(history: readonly Pick<ComponentHistoryRecord, 'version' | 'action' | 'at' | 'effectiveAt'>[], asOf: string): number | null {
  // A release written by then but dated later is not in effect yet, nor is what was written after it (built on
  // its revision): without a release in effect, the version before the first such release is (a first release
  // dated tomorrow answered today with itself).
  let dated = Number.POSITIVE_INFINITY;
  for (const record of history) if (record.action === 'RELEASE' && record.at <= asOf && (record.effectiveAt ?? record.at) > asOf) dated = Math.min(dated, record.version);
  let released: number | null = null;
  let written: number | null = null;
  for (const record of history) {
    if (record.action === 'RELEASE' && (record.effectiveAt ?? record.at) <= asOf && (released === null || record.version > released)) released = record.version;
    if (record.at <= asOf && record.version < dated && (written === null || record.version > written)) written = record.version;
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
  async read(id: string, pinnedVersion: number | null = null): Promise<AsOfSide | null> {
    return (await this.readMany([{ id, pinnedVersion }]))[0]!;
  }

  /**
   * Several at once: the components and BOMs not read yet in one BatchGetItem each (per 100), then each
   * one's history (a Query per component: history is not batchable).
   */
  readMany(wanted: { id: string; pinnedVersion: number | null }[]): Promise<(AsOfSide | null)[]> {
    const keyOf = (id: string, pinnedVersion: number | null) => `${id}@${pinnedVersion ?? 'asOf'}`;
    const unread = [...new Map(wanted.filter((w) => !this.versions.has(keyOf(w.id, w.pinnedVersion))).map((w) => [keyOf(w.id, w.pinnedVersion), w])).values()];
    if (unread.length > 0) {
      const { organizationId, libraryId } = this.ref;
      const ids = [...new Set(unread.map((w) => w.id))];
      const records = Promise.all([getComponents(this.store, organizationId, libraryId, ids), getBoms(this.store, organizationId, libraryId, ids)]);
      for (const w of unread) {
        this.versions.set(
          keyOf(w.id, w.pinnedVersion),
          records.then(([components, boms]) => this.load(components.get(w.id), boms.get(w.id)?.lines ?? [], w.pinnedVersion)),
        );
      }
    }
    return Promise.all(wanted.map((w) => this.versions.get(keyOf(w.id, w.pinnedVersion))!));
  }

  private async load(current: ComponentRecord | undefined, currentLines: LineSummary[], pinnedVersion: number | null): Promise<AsOfSide | null> {
    if (!current) return null;
    const history = await listComponentHistorySince(this.store, current, 1);
    const version = pinnedVersion ?? versionInEffect(history, this.asOf);
    if (version === null) return null;
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
 * a pinned line keeps its pinned version. Empty when the assembly did not exist then. Paged like the
 * current one (indentedWalk.ts); a node is a component at a version (`<id>@<pinned version>`, or
 * `<id>@` for the version in effect), so a cursor is bound to its asOf.
 */
export async function indentedBomAsOf(store: Store, ref: LibraryRef, assemblyId: string, depth: number, asOf: string, page: PageRequest = {}): Promise<IndentedBomEntry[]> {
  checkDepth(depth);
  const moment = parseAsOf(asOf);
  pageOf(page);
  const config = await loadLibraryConfiguration(store, ref.organizationId, ref.libraryId);
  const reader = new AsOfReader(store, ref, config, moment);
  const id = assemblyId.toLowerCase();
  return readIndented(asOfSource(reader, moment), `${id}@`, id, depth, page);
}

interface AsOfNode extends WalkNode {
  component: ComponentRecord;
}

function asOfSource(reader: AsOfReader, moment: string): WalkSource {
  return {
    kind: 'bomAsOf',
    context: moment,
    async load(keys) {
      const wanted = keys.map((key) => {
        const at = key.lastIndexOf('@');
        const pin = key.slice(at + 1);
        return { id: key.slice(0, at), pinnedVersion: pin === '' ? null : Number(pin) };
      });
      const sides = await reader.readMany(wanted);
      return new Map(
        keys.map((key, k): [string, AsOfNode | null] => {
          const side = sides[k];
          if (!side) return [key, null];
          const lines = side.lines.map((summary, index) => {
            const line = lineOf(summary, side.component, index);
            const pinned = line.childHistoryId ? (parseChildHistoryId(line.childHistoryId)?.version ?? null) : null;
            return { link: { assemblyId: side.component.id, line }, toKey: `${line.childId}@${pinned ?? ''}`, toId: line.childId };
          });
          return [key, { component: side.component, lines }];
        }),
      );
    },
    show: (line, to) => ({ ...line.link, childAsOf: (to as AsOfNode | null)?.component ?? null }),
  };
}
