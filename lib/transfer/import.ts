import type { LibraryRef } from '../model/scope.js';
import type { Store } from '../store/client.js';
import { buildImportItems } from './importItems.js';
import { planImport, type ImportOptions, type ImportResult, type ImportSource } from './importPlan.js';
import { writeImport } from './importWrite.js';

export { abandonLibraryImport, SimulatedImportFailure } from './importWrite.js';
export type { ImportOptions, ImportProgress, ImportResult, ImportSource } from './importPlan.js';

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
