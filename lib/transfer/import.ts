import { randomUUID } from 'node:crypto';
import type { LibraryRef } from '../model/scope.js';
import { normalizeCpn } from '../config/cpnScheme.js';
import { loadLibraryConfiguration } from '../config/libraryConfig.js';
import { ImportInvalidError, LibraryImportError, type ImportProblem } from '../errors.js';
import type { Entitlements } from '../orgs/plans.js';
import { searchPartition } from '../search/entries.js';
import { bulkIndexItems } from '../search/table/bulkLoad.js';
import { bomItem, bomSnapshotItem, documentLinksItem, type BomLine, bomChildIds } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { componentItem, historyItem, type ComponentRecord, type HistoryChange } from '../store/component.js';
import type { Key } from '../store/items.js';
import { configTypes, type ConfigType, type LibraryConfigRecord } from '../store/libraryConfig.js';
import {
  clearImportMark,
  commitLibraryImport,
  cpnClaimItem,
  cpnCounterItem,
  deleteKeysInParallel,
  libraryHasImportedKinds,
  listImportedKeys,
  listComponentIds,
  listCpnCounters,
  markLibraryImporting,
  putItemsInParallel,
  usageItem,
} from '../store/libraryTransfer.js';
import { mergeCounters, type CounterValue } from './counters.js';
import type { BlobStorage } from '../files/blobStorage.js';
import { fileStorageKey, importedFileItem, type FileRecord } from '../store/file.js';
import { importedTemplateItems } from '../store/changeOrderTemplate.js';
import { fileFields } from './format.js';
import { authorMapping, withAuthors } from './authors.js';
import { eachLimited, sha256Hex, type FileBytesSource } from './fileBytes.js';
import { importTemplates, targetTemplateNames } from './templates.js';
import { componentsFromCsv, type ImportActor } from './csvSource.js';
import { carriedFieldsOf, type ExportedComponent, type LibraryExport, type Manifest } from './format.js';
import { csvSourcingPath, csvSourcingPrefix, sourcingFromCsv } from './sourcingCsv.js';
import { listImportedVendorKeys } from '../store/sourcing.js';
import { createPlannedVendors, mapSourcingChange, planSourcing, ratesCommitItem, sourcingItems, type ExportedManifestSourcing, type SourcingPlan } from './sourcing.js';
import { discussionItems, discussionProblems, matchPeople } from './discussion.js';
import { bomCycleProblems, parseImportConfiguration, validateComponents, type ImportConfiguration, type Locations } from './validate.js';

/** What an import reads: the whole (JSON) or the spreadsheet files, with the manifest when there is one. */
export type ImportSource =
  | {
      kind: 'json';
      library: LibraryExport;
      root: string;
      /** How problems name the manifest's parts (`library.json: `, `bundle.`); `library.json: ` by default. */
      manifestRoot?: string;
      /** Where the bytes of the listed files are (absent: an export that lists files cannot be imported). */
      fileBytes?: FileBytesSource;
    }
  | { kind: 'csv'; manifest: Manifest | null; componentsCsv: string; bomCsv: string | null; sourcingCsv?: string | null; legacy?: boolean };

export interface ImportProgress {
  phase: 'validated' | 'writing' | 'committed';
  written: number;
  total: number;
}

export interface ImportOptions {
  actor: ImportActor;
  entitlements: Entitlements;
  onProgress?: (progress: ImportProgress) => void;
  /** Concurrent BatchWriteItem calls (each 25 items); 8 by default. */
  parallelWrites?: number;
  /** The id of the import's mark (an API import uses its job's id); a new one by default. */
  importId?: string;
  /** Further items of the commit transaction (an API import's job turning SUCCEEDED), given what was imported. */
  commitItems?: (result: Omit<ImportResult, 'importId'>) => Record<string, unknown>[];
  /** The target's file store: needed when the export lists files (their bytes are copied into it). */
  blobs?: BlobStorage;
  /** Tests: fail after this many items were written, to prove that a failure leaves nothing behind. */
  failAfterItems?: number;
}

export interface ImportResult {
  importId: string;
  components: number;
  bomLines: number;
  documentLinks: number;
  historyRecords: number;
  changeOrderTemplates: number;
  files: number;
  /** Manufacturer parts imported, and the vendors the import added to the organization's directory. */
  sourcingParts: number;
  vendorsCreated: number;
  /** Comments and watches imported; watches dropped (their watcher matches nobody of the organization); comments kept with their author's name only (discussion.ts). */
  comments: number;
  watches: number;
  watchesDropped: number;
  commentAuthorsUnmatched: number;
  /** Audit entries the file held: read only, none written (the target's log records the import itself). */
  auditEntriesSkipped: number;
  itemsWritten: number;
  durationMs: number;
}

/** Failure injected by ImportOptions.failAfterItems. */
export class SimulatedImportFailure extends Error {}

/**
 * Imports a library into an EMPTY library (no component was ever created in it: LIBRARY_NOT_EMPTY
 * otherwise). First everything is validated; any problem refuses the import with IMPORT_INVALID listing
 * every problem, and nothing is written. Then the library is closed (its item is marked `importing`; every
 * library-scoped request answers LIBRARY_IMPORT_IN_PROGRESS), the items are written with parallel
 * BatchWriteItem calls (templates and file records tagged with the import's id), the bytes of the files
 * are copied into the target's file store, and ONE transaction commits: configuration documents, access policy and the
 * removal of the mark. A failure before the commit deletes every item the import wrote and reopens the
 * library as it was; a crash leaves it closed until `npm run admin -- import-abort` (abandonLibraryImport).
 */
export async function importLibrary(store: Store, target: LibraryRef, source: ImportSource, options: ImportOptions): Promise<ImportResult> {
  const started = performance.now();
  const { organizationId: org, libraryId: lib } = target;
  const [current, notEmpty, targetCounters] = await Promise.all([loadLibraryConfiguration(store, org, lib), libraryHasImportedKinds(store, org, lib), listCpnCounters(store, org, lib)]);
  if (notEmpty) throw new LibraryImportError('LIBRARY_NOT_EMPTY', 'Only an empty library can be imported into: this one has (or had) components. Create a new library for the import.');

  const problems: ImportProblem[] = [];
  const manifest = source.kind === 'json' ? source.library.manifest : source.manifest;
  const config: ImportConfiguration | undefined = manifest ? parseImportConfiguration(manifest.configuration, 'library.json: configuration', problems) : current;
  if (!config) throw new ImportInvalidError(problems);
  let components: ExportedComponent[];
  let locations: Locations;
  if (source.kind === 'json') {
    components = source.library.components;
    locations = { component: (i) => `${source.root}[${i}]`, line: (i, j) => `${source.root}[${i}].bom.lines[${j}]` };
  } else {
    ({ components, locations } = componentsFromCsv(source.componentsCsv, source.bomCsv, config, options.actor, problems));
  }
  problems.push(...validateComponents(components, config, options.entitlements, locations));
  problems.push(...(await bomCycleProblems(components, locations)));
  // Change order templates and uploaded files come with the whole (JSON) only.
  const manifestRoot = source.kind === 'json' ? (source.manifestRoot ?? 'library.json: ') : '';
  const templates = source.kind === 'json' ? await importTemplates(store, target, manifest?.changeOrderTemplates ?? [], `${manifestRoot}changeOrderTemplates`, problems) : [];
  const files = source.kind === 'json' ? (manifest?.files ?? []) : [];
  if (source.kind === 'json') problems.push(...(await fileProblems(source, components, locations, options.blobs, manifestRoot)));
  // Comments and watches (JSON only): thread structure, limits; their people are matched after validation.
  const categoryTypes = new Map(config.categories.categories.map((c) => [c.id, c.type]));
  if (source.kind === 'json') problems.push(...discussionProblems(components, locations, (c) => categoryTypes.get(c.categoryId) === 'ASSEMBLY'));
  // Sourcing: the vendors matched to the target organization's directory or created, parts, quotes, rates.
  let sourcing: ExportedManifestSourcing | undefined = source.kind === 'json' ? manifest?.sourcing : undefined;
  let csvRows: Map<string, number> | null = null;
  if (source.kind === 'csv' && source.sourcingCsv) ({ sourcing, rows: csvRows } = sourcingFromCsv(source.sourcingCsv, components, Boolean(source.legacy), options.actor.at, problems));
  const sourcingProblems: ImportProblem[] = [];
  const component = csvRows ? (i: number) => `${csvSourcingPrefix}${i}` : locations.component;
  const plan = await planSourcing(store, target, sourcing, components, { manifest: manifestRoot, component }, options.actor, sourcingProblems);
  // A CSV import's sourcing problems name the rows of sourcing.csv.
  problems.push(...(csvRows ? sourcingProblems.map((p) => ({ ...p, path: csvSourcingPath(p.path, components, csvRows) })) : sourcingProblems));
  if (problems.length > 0) throw new ImportInvalidError(problems);

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
  const total = items.length;
  options.onProgress?.({ phase: 'validated', written: 0, total });

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
    itemsWritten: total,
  };
  await markLibraryImporting(store, org, lib, { importId, startedAt: options.actor.at, startedBy: options.actor.userId });
  const keys: Key[] = items.map((item) => ({ PK: item.PK as string, SK: item.SK as string }));
  // The vendors the import creates in the organization's directory (deleted again when the import fails).
  const vendorKeys: Key[] = [];
  try {
    // A component created between the check above and the mark would be overwritten: look again, now closed.
    if (await libraryHasImportedKinds(store, org, lib)) throw new LibraryImportError('LIBRARY_NOT_EMPTY', 'A component was created in the library while the import started');
    if (templates.length > 0) {
      const names = await targetTemplateNames(store, target);
      const clash = templates.find((t) => names.has(t.name.toLowerCase()));
      if (clash) throw new LibraryImportError('IMPORT_FAILED', `A template named "${clash.name}" was created in the library while the import started; nothing was imported`);
    }
    await createPlannedVendors(store, plan, importId, vendorKeys);
    let written = 0;
    await putItemsInParallel(store, options.failAfterItems === undefined ? items : items.slice(0, options.failAfterItems), options.parallelWrites ?? 8, (n) => {
      written = n;
      options.onProgress?.({ phase: 'writing', written, total });
    });
    if (options.failAfterItems !== undefined) throw new SimulatedImportFailure(`simulated failure after ${options.failAfterItems} items`);
    // The bytes, one file at a time per worker, checked again as they are read. Until the commit no record
    // names them; a failed import leaves them unnamed in the file store (see schema/README.md).
    if (files.length > 0) {
      const bytesSource = (source as { fileBytes: FileBytesSource }).fileBytes;
      await eachLimited(files, 2, async (file, index) => {
        const bytes = await bytesSource.read(file);
        if (!bytes || bytes.length !== file.size || sha256Hex(bytes) !== file.sha256) {
          throw new ImportInvalidError([
            { path: `${manifestRoot}files[${index}]`, code: bytes ? 'FILE_CORRUPT' : 'FILE_MISSING', message: `the bytes of file ${file.id} (${file.name}) changed or went away during the import` },
          ]);
        }
        await options.blobs!.put(fileRecords[index]!.storageKey, bytes, file.contentType);
      });
    }
    // Requests already past their context check when the mark was set may have written a component.
    const stored = await listComponentIds(store, org, lib);
    if (stored.length !== components.length) throw new LibraryImportError('IMPORT_FAILED', 'Components were written into the library by another request during the import; nothing was imported');
    await commitLibraryImport(
      store,
      org,
      lib,
      importId,
      configRecords(current, manifest, options.actor),
      manifest?.accessPolicy ? policyRecord(current.accessPolicy.version, manifest.accessPolicy, options.actor) : null,
      [search.manifestPut, ...[ratesCommitItem(target, plan)].filter((i) => i !== null), ...(options.commitItems?.({ ...imported, durationMs: Math.round(performance.now() - started) }) ?? [])],
    );
  } catch (error) {
    // Every item the import wrote, search entries included, is among its keys: nothing else is deleted.
    await deleteKeysInParallel(store, [...keys, ...vendorKeys], options.parallelWrites ?? 8);
    await clearImportMark(store, org, lib, importId);
    throw error;
  }
  options.onProgress?.({ phase: 'committed', written: total, total });
  return { importId, ...imported, durationMs: Math.round(performance.now() - started) };
}

/** The imported documents as new versions of the target's (unchanged documents are left as they are). */
function configRecords(current: Awaited<ReturnType<typeof loadLibraryConfiguration>>, manifest: Manifest | null, actor: ImportActor) {
  if (!manifest) return [];
  return configTypes
    .filter((type: ConfigType) => JSON.stringify(manifest.configuration[type]) !== JSON.stringify(current.records[type].document))
    .map((type) => {
      const previous = current.records[type];
      const version = previous.version + 1;
      const record: LibraryConfigRecord = {
        type,
        version,
        document: manifest.configuration[type],
        updatedAt: actor.at,
        updatedBy: actor.userId,
        syncStatus: 'SYNCED',
        syncedVersion: version,
        syncUpdatedAt: actor.at,
        syncComponentsUpdated: 0,
        syncError: null,
      };
      return { record, previousVersion: current.stored.has(type) ? previous.version : null };
    });
}

function policyRecord(currentVersion: number, policy: NonNullable<Manifest['accessPolicy']>, actor: ImportActor) {
  return { version: currentVersion + 1, entries: policy.entries, updatedAt: actor.at, updatedBy: actor.userId };
}

/**
 * Problems of the files a JSON import lists: ids named twice, component references (fileId, imageFileId)
 * to files the export does not list (when it lists files at all), and the bytes (absent or not the listed
 * size and SHA-256).
 */
async function fileProblems(
  source: Extract<ImportSource, { kind: 'json' }>,
  components: ExportedComponent[],
  at: Locations,
  blobs: BlobStorage | undefined,
  manifestRoot: string,
): Promise<ImportProblem[]> {
  const listed = source.library.manifest.files;
  if (listed === undefined) return [];
  const problems: ImportProblem[] = [];
  const ids = new Set<string>();
  for (const [i, file] of listed.entries()) {
    if (ids.has(file.id)) problems.push({ path: `${manifestRoot}files[${i}].id`, code: 'DUPLICATE_ID', message: `file id ${file.id} appears twice` });
    ids.add(file.id);
  }
  for (const [i, c] of components.entries()) {
    for (const field of ['fileId', 'imageFileId'] as const) {
      const id = c[field];
      if (id && !ids.has(id)) problems.push({ path: `${at.component(i)}.${field}`, code: 'FILE_NOT_FOUND', message: `file ${id} is not among the files of the export (${manifestRoot}files)` });
    }
  }
  if (listed.length === 0) return problems;
  if (!blobs || !source.fileBytes) {
    problems.push({
      path: `${manifestRoot}files`,
      code: 'FILES_UNAVAILABLE',
      message: 'the export lists uploaded files, but this import has no file store to copy them into or no place to read them from',
    });
    return problems;
  }
  problems.push(...(await source.fileBytes.verify(listed, (i) => `${manifestRoot}files[${i}]`)));
  return problems;
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
    // Sourcing: its item and MPN index entries, vendor ids rewritten; the search filters follow the parts.
    if (c.sourcing) {
      const sourced = sourcingItems(target, id, c.sourcing, plan.vendorIds);
      items.push(...sourced.items);
      record.sourcingIndex = sourced.sourcingIndex;
    } else if (record.sourcingIndex) {
      record.sourcingIndex = { ...record.sourcingIndex, manufacturerIds: record.sourcingIndex.manufacturerIds.map((m) => plan.vendorIds.get(m) ?? m) };
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

/**
 * Finishes an import that crashed (the library stays closed): deletes everything it may have written
 * (in an empty library, every component, history, claim, BOM, link, counter, sourcing and search item, and
 * the vendors it created in the organization's directory, tagged with its id) and reopens
 * the library. Refuses when no import holds the library.
 */
export async function abandonLibraryImport(store: Store, target: LibraryRef, importId: string): Promise<{ deleted: number }> {
  const [libraryKeys, vendorKeys] = await Promise.all([
    listImportedKeys(store, target.organizationId, target.libraryId, searchPartition(target.organizationId, target.libraryId), importId),
    listImportedVendorKeys(store, target.organizationId, importId),
  ]);
  const keys = [...libraryKeys, ...vendorKeys];
  await deleteKeysInParallel(store, keys, 8);
  await clearImportMark(store, target.organizationId, target.libraryId, importId);
  return { deleted: keys.length };
}
