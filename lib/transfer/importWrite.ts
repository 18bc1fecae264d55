import type { LibraryRef } from '../model/scope.js';
import { LibraryImportError } from '../errors.js';
import { ImportInvalidError } from './errors.js';
import { searchPartition } from '../search/entries.js';
import type { Store } from '../store/client.js';
import type { Key } from '../store/items.js';
import { configTypes, type ConfigType, type LibraryConfigRecord } from '../store/libraryConfig.js';
import {
  clearImportMark,
  commitLibraryImport,
  deleteKeysInParallel,
  libraryHasImportedKinds,
  listImportedKeys,
  listComponentIds,
  markLibraryImporting,
  putItemsInParallel,
} from '../store/libraryTransfer.js';
import { listImportedVendorKeys } from '../store/sourcing.js';
import type { ImportActor } from './csvSource.js';
import { eachLimited, sha256Hex, type FileBytesSource } from './fileBytes.js';
import type { Manifest } from './format.js';
import type { ImportItems } from './importItems.js';
import type { ImportOptions, ImportPlan, ImportSource } from './importPlan.js';
import { createPlannedVendors, ratesCommitItem } from './sourcing.js';
import { targetTemplateNames } from './templates.js';

/** Failure injected by ImportOptions.failAfterItems. */
export class SimulatedImportFailure extends Error {}

/**
 * The write phases of a validated import, then its commit or its rollback. The library is closed (marked
 * `importing`) and looked at again; the vendors it creates are put in the organization's directory; the
 * items are written with parallel BatchWriteItem calls; the bytes of the files are copied into the target's
 * file store; ONE transaction commits the configuration documents, the access policy, the search manifest,
 * the sourcing rates and the removal of the mark. A failure before the commit deletes every item the import
 * wrote (and the vendors it created) and reopens the library as it was.
 */
export async function writeImport(
  store: Store,
  target: LibraryRef,
  source: ImportSource,
  { current, manifest, components, templates, files, manifestRoot, sourcing: plan }: ImportPlan,
  { importId, items, fileRecords, searchManifestPut, imported }: ImportItems,
  options: ImportOptions,
  started: number,
): Promise<void> {
  const { organizationId: org, libraryId: lib } = target;
  const total = items.length;
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
      [searchManifestPut, ...[ratesCommitItem(target, plan)].filter((i) => i !== null), ...(options.commitItems?.({ ...imported, durationMs: Math.round(performance.now() - started) }) ?? [])],
    );
  } catch (error) {
    // Every item the import wrote, search entries included, is among its keys: nothing else is deleted.
    await deleteKeysInParallel(store, [...keys, ...vendorKeys], options.parallelWrites ?? 8);
    await clearImportMark(store, org, lib, importId);
    throw error;
  }
}

/** The imported documents as new versions of the target's (unchanged documents are left as they are). */
function configRecords(current: ImportPlan['current'], manifest: Manifest | null, actor: ImportActor) {
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
