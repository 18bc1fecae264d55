import { findCategory, findStatus, type LibraryConfiguration } from '../config/libraryConfig.js';

import { InvalidInputError } from '../errors.js';

import type { Store } from '../store/client.js';
import { getBoms, getDocumentLinks, listBomSnapshots, type BomLine, type BomRecord, type BomSnapshotRecord, type DocumentLinkRecord, type DocumentLinksRecord } from '../store/bom.js';

import { getUsages, type UsageRecord } from '../store/usage.js';

import { type ComponentRecord } from '../store/component.js';
import { listComponentHistorySince, type ComponentHistoryRecord } from '../store/componentHistory.js';

import { parseChildHistoryId } from './bomRules.js';

import type { LibraryRef } from '../model/scope.js';
export type { LibraryRef };

/** A BOM line as read: the line and the assembly it belongs to. */
export interface AssemblyLinkView {
  assemblyId: string;
  line: BomLine;
  /** The child as it was at a moment (indentedBom's asOf): set, the line shows it instead of the latest or pinned one. */
  childAsOf?: ComponentRecord | null;
}

/**
 * How the relation reads get their records: the GraphQL resolvers pass per-request loaders that gather
 * the keys asked for in the same tick into one BatchGetItem (so `children` of 400 components is 4 reads,
 * not 400); directRelationReads reads each on its own.
 */
export interface RelationReads {
  bom(assemblyId: string): Promise<BomRecord | undefined>;
  usage(componentId: string): Promise<UsageRecord | undefined>;
  documentLinks(componentId: string): Promise<DocumentLinksRecord | undefined>;
}

/** The same records by many ids at once, for loaders that batch (one BatchGetItem per 100 keys). */
export const relationBatchReads = {
  bom: (store: Store, ref: LibraryRef, ids: string[]) => getBoms(store, ref.organizationId, ref.libraryId, ids),
  usage: (store: Store, ref: LibraryRef, ids: string[]) => getUsages(store, ref.organizationId, ref.libraryId, ids),
  documentLinks: (store: Store, ref: LibraryRef, ids: string[]) => getDocumentLinks(store, ref.organizationId, ref.libraryId, ids),
};

export function directRelationReads(store: Store, ref: LibraryRef): RelationReads {
  return {
    bom: async (id) => (await getBoms(store, ref.organizationId, ref.libraryId, [id])).get(id),
    usage: async (id) => (await getUsages(store, ref.organizationId, ref.libraryId, [id])).get(id),
    documentLinks: async (id) => (await getDocumentLinks(store, ref.organizationId, ref.libraryId, [id])).get(id),
  };
}

export async function childrenOf(reads: RelationReads, assemblyId: string): Promise<AssemblyLinkView[]> {
  const bom = await reads.bom(assemblyId);
  return (bom?.lines ?? []).map((line) => ({ assemblyId, line }));
}

export async function documentLinksOf(reads: RelationReads, componentId: string): Promise<DocumentLinkRecord[]> {
  return (await reads.documentLinks(componentId))?.links ?? [];
}

/**
 * The assemblies whose current BOM uses the component, with the lines that use it: the where-used entry
 * names the assemblies, and their BOMs confirm each (an entry can outlive its line briefly), so the cost
 * follows the answer, not the library.
 */
export async function whereUsed(reads: RelationReads, componentId: string): Promise<AssemblyLinkView[]> {
  const usage = await reads.usage(componentId);
  const assemblyIds = [...(usage?.assemblies ?? [])].sort();
  if (assemblyIds.length === 0) return [];
  const boms = await Promise.all(assemblyIds.map((id) => reads.bom(id)));
  return assemblyIds.flatMap((assemblyId, i) => (boms[i]?.lines ?? []).filter((l) => l.childId === componentId || l.substitutes.includes(componentId)).map((line) => ({ assemblyId, line })));
}

export const maxIndentedDepth = 25;
/** Lines of one unpaged indented BOM; a deeper or wider tree is read in pages (indentedWalk.ts), with a smaller depth, or per sub-assembly. */
export const maxIndentedLines = 1_000;

export function bomHistory(store: Store, ref: LibraryRef, assemblyId: string, limit: number): Promise<BomSnapshotRecord[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidInputError('first must be 1 to 1000', { field: 'first' });
  return listBomSnapshots(store, ref.organizationId, ref.libraryId, assemblyId, limit);
}

/**
 * A component as it was at a version, rebuilt from the current record by undoing the history records of
 * later versions (each records every changed field with its previous value).
 */
export async function componentAtVersion(store: Store, config: LibraryConfiguration, current: ComponentRecord, version: number): Promise<ComponentRecord | null> {
  if (version === current.version) return current;
  if (version < 1 || version > current.version) return null;
  const history = await listComponentHistorySince(store, current, version);
  const at = history.find((h) => h.version === version);
  if (!at) return null;
  const record: Record<string, unknown> = { ...current, attributeValues: { ...current.attributeValues } };
  for (const entry of history.filter((h) => h.version > version)) {
    for (const change of entry.changes) {
      if (change.field.startsWith('attributeValues.')) {
        const id = change.field.slice('attributeValues.'.length);
        const values = record.attributeValues as Record<string, unknown>;
        if (change.from === null || change.from === undefined) delete values[id];
        else values[id] = change.from;
      } else if (change.field in current) {
        record[change.field] = change.from ?? null;
      }
    }
  }
  const rebuilt = { ...(record as ComponentRecord), state: await stateAtVersion(store, current, at) };
  const status = findStatus(config, rebuilt.statusId);
  const category = findCategory(config, rebuilt.categoryId);
  return {
    ...rebuilt,
    version,
    updatedAt: at.at,
    updatedBy: at.by,
    status: status ? { name: status.name, color: status.color, mapsTo: status.mapsTo } : rebuilt.status,
    category: category ? { name: category.name, type: category.type, prefix: category.prefix } : rebuilt.category,
  };
}

/** History changes of writes that keep the state (linking is not a design change, nor is sourcing other than the AML). */
const keepsState = (field: string) => field === 'links' || field.startsWith('sourcing.');

/** The state a history record left, or undefined for a write that kept the state it found. */
function stateLeftBy(record: ComponentHistoryRecord): ComponentRecord['state'] | undefined {
  if (record.action === 'RELEASE') return 'RELEASED';
  const recorded = record.changes.find((c) => c.field === 'state')?.to;
  if (recorded === 'RELEASED' || recorded === 'MODIFIED') return recorded;
  return record.action === 'CREATE' || record.changes.some((c) => !keepsState(c.field)) ? 'MODIFIED' : undefined;
}

/**
 * The state (RELEASED or MODIFIED) a version had. History records a state change only when sourcing makes a
 * RELEASED component MODIFIED: a release, and any other design change, do not record it, so undoing the later
 * records left every past version in the current state (a released revision read as of its date answered
 * MODIFIED once edited since). A version's own record tells (a RELEASE, a design change); a write that kept the
 * state (links, sourcing) had the state of the version before it, read from the earlier records (rarely needed).
 */
async function stateAtVersion(store: Store, current: ComponentRecord, at: ComponentHistoryRecord): Promise<ComponentRecord['state']> {
  const own = stateLeftBy(at);
  if (own) return own;
  const earlier = (await listComponentHistorySince(store, current, 1)).filter((h) => h.version < at.version).sort((a, b) => b.version - a.version);
  for (const record of earlier) {
    const left = stateLeftBy(record);
    if (left) return left;
  }
  return 'MODIFIED';
}

/** The component a line shows: the pinned version when pinned, else the latest. */
export async function lineChild(store: Store, config: LibraryConfiguration, line: BomLine, load: (id: string) => Promise<ComponentRecord | undefined>): Promise<ComponentRecord | null> {
  const latest = await load(line.childId);
  if (!latest) return null;
  const pinned = line.childHistoryId ? parseChildHistoryId(line.childHistoryId) : null;
  return pinned ? componentAtVersion(store, config, latest, pinned.version) : latest;
}
