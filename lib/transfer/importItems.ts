import { randomUUID } from 'node:crypto';
import type { LibraryRef } from '../model/scope.js';
import { normalizeCpn } from '../config/cpnScheme.js';
import { bulkIndexItems } from '../search/table/bulkLoad.js';
import { bomItem, bomSnapshotItem, documentLinksItem, type BomLine, bomChildIds } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { componentItem, type ComponentRecord } from '../store/component.js';
import { historyItem, type HistoryChange } from '../store/componentHistory.js';
import { cpnClaimItem, cpnCounterItem, usageItem } from '../store/libraryTransfer.js';
import { fileStorageKey, importedFileItem, type FileRecord } from '../store/file.js';
import { importedTemplateItems } from '../store/changeOrderTemplate.js';
import { authorMapping, withAuthors } from './authors.js';
import { mergeCounters, type CounterValue } from './counters.js';
import { discussionItems, matchPeople } from './discussion.js';
import { carriedFieldsOf, fileFields, type ExportedComponent } from './format.js';
import type { ImportOptions, ImportPlan, ImportResult, ImportSource } from './importPlan.js';
import { mapSourcingChange, sourcingItems, type SourcingPlan } from './sourcing.js';
import type { ImportConfiguration } from './validate.js';

/** What an import writes: every item, the file records whose bytes are copied, and the counts it reports. */
export interface ImportItems {
  importId: string;
  items: Record<string, unknown>[];
  fileRecords: FileRecord[];
  /** The search index's manifest, put by the commit transaction. */
  searchManifestPut: Record<string, unknown>;
  imported: Omit<ImportResult, 'importId' | 'durationMs'>;
}

/**
 * The items of a validated import, with new ids: authors who are not (and were not) members of the target
 * organization become the importing user; commenters and watchers are matched apart; components with their
 * history, claims, BOMs and links (importItems), comments and watches, the search index as blocks, CPN
 * counters, templates and file records (these two tagged with the import's id).
 */
export async function buildImportItems(store: Store, target: LibraryRef, source: ImportSource, importPlan: ImportPlan, options: Pick<ImportOptions, 'actor' | 'importId'>): Promise<ImportItems> {
  const { organizationId: org, libraryId: lib } = target;
  const { manifest, config, templates, files, targetCounters, sourcing: plan } = importPlan;
  let components = importPlan.components;
  // Authors who are not (and were not) members of the target organization become the importing user (authors.ts).
  const author = await authorMapping(store, org, options.actor.userId, components, files, templates);
  // Commenters and watchers are matched apart: unmatched, they are not the importing user (discussion.ts).
  const person = await matchPeople(store, org, components, manifest?.people);
  components = withAuthors(components, author);
  for (const template of templates) template.createdBy = author(template.createdBy);
  const importId = options.importId ?? randomUUID();
  const fileIds = new Map(files.map((f) => [f.id, randomUUID()]));
  const { items, records } = importItems(target, components, config, fileIds, plan, importId);
  const discussion = discussionItems(components, records, person, manifest?.people, importId);
  items.push(...discussion.items);
  // The search index is built here, as blocks: its manifest lands in the commit transaction.
  const search = bulkIndexItems(target, records);
  items.push(...search.parts);
  const counters = mergeCounters(
    config.cpnScheme,
    components.map((c) => c.cpn),
    manifest?.counters ?? [],
    targetCounters,
  );
  items.push(...counters.map((counter: CounterValue) => cpnCounterItem(org, lib, counter)));
  // Templates and files are kinds the target may already hold: their items carry the import's id.
  for (const template of templates) items.push(...importedTemplateItems(template, importId));
  const fileRecords = files.map((f): FileRecord => {
    const id = fileIds.get(f.id)!;
    return { ...f, id, createdBy: author(f.createdBy), organizationId: org, libraryId: lib, status: 'READY', storageKey: fileStorageKey(org, lib, id) };
  });
  items.push(...fileRecords.map((record) => importedFileItem(record, importId)));
  const imported = {
    components: components.length,
    bomLines: components.reduce((n, c) => n + (c.bom?.lines.length ?? 0), 0),
    documentLinks: components.reduce((n, c) => n + (c.documentLinks?.links.length ?? 0), 0),
    historyRecords: components.reduce((n, c) => n + c.history.length, 0),
    changeOrderTemplates: templates.length,
    files: files.length,
    sourcingParts: components.reduce((n, c) => n + (c.sourcing?.parts.length ?? 0), 0),
    vendorsCreated: plan.create.length,
    comments: discussion.comments,
    watches: discussion.watches,
    watchesDropped: discussion.watchesDropped,
    commentAuthorsUnmatched: discussion.commentAuthorsUnmatched,
    auditEntriesSkipped: source.kind === 'json' ? (source.library.auditEntries?.length ?? 0) : 0,
    itemsWritten: items.length,
  };
  return { importId, items, fileRecords, searchManifestPut: search.manifestPut, imported };
}

/**
 * Every item of the imported library, with new ids: components (status and category names copied from
 * the configuration, as writes copy them), history records, CPN claims, current BOMs, BOM
 * snapshots, where-used entries and document links. References inside the export (BOM lines, pins to child
 * versions, document links, history changes of children and document links) are rewritten to the new ids.
 */
function importItems(
  target: LibraryRef,
  components: ExportedComponent[],
  config: ImportConfiguration,
  fileIds: Map<string, string>,
  plan: SourcingPlan,
  importId: string,
): { items: Record<string, unknown>[]; records: ComponentRecord[] } {
  const { organizationId: org, libraryId: lib } = target;
  const ids = new Map<string, string>();
  const newId = (old: string) => {
    let id = ids.get(old);
    if (!id) ids.set(old, (id = randomUUID()));
    return id;
  };
  for (const c of components) newId(c.id);
  // Ids the export does not hold (components deleted before the export, named by old history) stay as they were.
  const mapRef = (old: unknown) => (typeof old === 'string' && ids.has(old) ? ids.get(old)! : old);
  const mapPin = (pin: string | null) => {
    if (pin === null) return null;
    const at = pin.lastIndexOf(':');
    return at < 0 ? pin : `${mapRef(pin.slice(0, at))}${pin.slice(at)}`;
  };
  const mapLine = (line: BomLine): BomLine => ({
    ...line,
    lineId: newId(`line:${line.lineId}`),
    childId: mapRef(line.childId) as string,
    childHistoryId: mapPin(line.childHistoryId),
    substitutes: line.substitutes.map((s) => mapRef(s) as string),
  });
  const mapChange = (change: HistoryChange): HistoryChange => {
    const list = (value: unknown, map: (entry: unknown) => unknown) => (Array.isArray(value) ? value.map(map) : value);
    if (change.field === 'children') {
      const mapSummary = (entry: unknown) =>
        entry && typeof entry === 'object'
          ? { ...entry, childId: mapRef((entry as { childId?: unknown }).childId), childHistoryId: mapPin((entry as { childHistoryId?: string | null }).childHistoryId ?? null) }
          : entry;
      return { ...change, from: list(change.from, mapSummary), to: list(change.to, mapSummary) };
    }
    if (change.field === 'documentLinks') return { ...change, from: list(change.from, mapRef), to: list(change.to, mapRef) };
    if (fileFields.has(change.field)) return { ...change, from: mapFile(change.from), to: mapFile(change.to) };
    return mapSourcingChange(change, plan.vendorIds);
  };
  // Files the export does not list (an export written before files were carried) keep their ids.
  const mapFile = <T>(old: T): T => (typeof old === 'string' && fileIds.has(old) ? (fileIds.get(old)! as T) : old);
  const categories = new Map(config.categories.categories.map((c) => [c.id, c]));
  const statuses = new Map(config.statuses.statuses.map((s) => [s.id, s]));

  const items: Record<string, unknown>[] = [];
  const records: ComponentRecord[] = [];
  const usedBy = new Map<string, Set<string>>();
  for (const c of components) {
    const id = ids.get(c.id)!;
    const category = categories.get(c.categoryId)!;
    const status = statuses.get(c.statusId)!;
    const record: ComponentRecord = {
      ...carriedFieldsOf(c),
      fileId: mapFile(c.fileId),
      imageFileId: mapFile(c.imageFileId),
      id,
      organizationId: org,
      libraryId: lib,
      category: { name: category.name, type: category.type, prefix: category.prefix },
      status: { name: status.name, color: status.color, mapsTo: status.mapsTo },
      lockedBy: null,
    };
    // Sourcing: its item and MPN index entries, vendor ids rewritten. What search filters on (sourcingIndex)
    // is derived from the parts written, never taken from the file: a hand-edited file's index named MPNs and
    // manufacturers the component did not have (or, without sourcing, kept them searchable).
    record.sourcingIndex = undefined;
    if (c.sourcing) {
      const sourced = sourcingItems(target, id, c.sourcing, plan.vendorIds);
      items.push(...sourced.items);
      record.sourcingIndex = sourced.sourcingIndex;
    }
    records.push(record);
    items.push(componentItem(record));
    items.push(cpnClaimItem(org, lib, normalizeCpn(config.cpnScheme, c.cpn), c.cpn, id, c.createdAt));
    for (const h of c.history) items.push(historyItem(org, lib, { componentId: id, ...h, changes: h.changes.map(mapChange) }));
    if (c.bom) {
      const lines = c.bom.lines.map(mapLine);
      const childIds = bomChildIds(lines);
      for (const childId of childIds) usedBy.set(childId, (usedBy.get(childId) ?? new Set()).add(id));
      // Tagged with the import's id: the notification fan-out tells no watcher of an imported BOM's insert.
      items.push({ ...bomItem(org, lib, { assemblyId: id, bomVersion: c.bom.bomVersion, lines, childIds, updatedAt: c.bom.updatedAt, updatedBy: c.bom.updatedBy, writeId: null }), importId });
    }
    for (const s of c.bomHistory) {
      const lines = s.lines.map(mapLine);
      items.push(bomSnapshotItem(org, lib, { assemblyId: id, ...s, lines, childIds: bomChildIds(lines), writeId: null }));
    }
    if (c.documentLinks) {
      const links = c.documentLinks.links.map((l) => ({ ...l, linkId: newId(`link:${l.linkId}`), documentId: mapRef(l.documentId) as string }));
      items.push(documentLinksItem(org, lib, { componentId: id, links, updatedAt: c.documentLinks.updatedAt, writeId: null }));
    }
  }
  for (const [childId, assemblies] of usedBy) items.push(usageItem(org, lib, childId, [...assemblies].sort()));
  return { items, records };
}
