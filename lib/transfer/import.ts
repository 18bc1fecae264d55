import type { LibraryRef } from '../model/scope.js';
import type { Entitlements } from '../orgs/plans.js';
import type { Store } from '../store/client.js';
import type { BlobStorage } from '../files/blobStorage.js';
import type { FileBytesSource } from './fileBytes.js';
import type { ImportActor } from './csvSource.js';
import type { LibraryExport, Manifest } from './format.js';
import { buildImportItems } from './importItems.js';
import { planImport } from './importPlan.js';
import { writeImport } from './importWrite.js';

export { abandonLibraryImport, SimulatedImportFailure } from './importWrite.js';

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
  // Everything validated first (importPlan.ts): any problem refuses the import before anything is written.
  const plan = await planImport(store, target, source, options);
  // Every item it writes, with new ids, and what they hold (importItems.ts).
  const built = await buildImportItems(store, target, source, plan, options);
  const total = built.items.length;
  options.onProgress?.({ phase: 'validated', written: 0, total });
  // The library closed, the items and the files' bytes written, ONE commit; or everything deleted again (importWrite.ts).
  await writeImport(store, target, source, plan, built, options, started);
  options.onProgress?.({ phase: 'committed', written: total, total });
  return { importId: built.importId, ...built.imported, durationMs: Math.round(performance.now() - started) };
}
