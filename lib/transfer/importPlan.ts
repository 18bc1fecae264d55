import type { LibraryRef } from '../model/scope.js';
import { loadLibraryConfiguration } from '../config/libraryConfig.js';
import { LibraryImportError, type ImportProblem } from '../errors.js';
import { ImportInvalidError } from './errors.js';
import type { BlobStorage } from '../files/port.js';
import type { Entitlements } from '../orgs/plans.js';
import type { Store } from '../store/client.js';
import { libraryHasImportedKinds, listCpnCounters } from '../store/libraryTransfer.js';
import type { CounterValue } from './counters.js';
import { componentsFromCsv, type ImportActor } from './csvSource.js';
import type { ExportedComponent, LibraryExport, Manifest } from './format.js';
import type { FileBytesSource } from './fileBytes.js';
import { csvSourcingPath, csvSourcingPrefix, sourcingFromCsv } from './sourcingCsv.js';
import { planSourcing, type ExportedManifestSourcing, type SourcingPlan } from './sourcing.js';
import { discussionProblems } from './discussion.js';
import { importTemplates } from './templates.js';
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

/** What a validated import holds: the target as it was read, and the input, checked, ready to be turned into items. */
export interface ImportPlan {
  /** The target library's configuration before the import. */
  current: Awaited<ReturnType<typeof loadLibraryConfiguration>>;
  targetCounters: CounterValue[];
  manifest: Manifest | null;
  config: ImportConfiguration;
  components: ExportedComponent[];
  locations: Locations;
  /** How problems name the manifest's parts (JSON only; '' for a CSV import). */
  manifestRoot: string;
  templates: Awaited<ReturnType<typeof importTemplates>>;
  files: NonNullable<Manifest['files']>;
  sourcing: SourcingPlan;
}

/**
 * Reads the target and validates everything an import would write: the target is empty (LIBRARY_NOT_EMPTY
 * otherwise), and the configuration, components, BOMs (no cycle), templates, files, comments and watches
 * and sourcing break no rule; any problem refuses the import with IMPORT_INVALID listing every problem.
 * Nothing is written.
 */
export async function planImport(store: Store, target: LibraryRef, source: ImportSource, options: Pick<ImportOptions, 'actor' | 'entitlements' | 'blobs'>): Promise<ImportPlan> {
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
  return { current, targetCounters, manifest, config, components, locations, manifestRoot, templates, files, sourcing: plan };
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
