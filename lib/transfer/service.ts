import type { PermissionName } from '../access/permissions.js';
import type { LibraryScope } from '../access/scope.js';
import { InvalidInputError } from '../errors.js';
import type { BlobStorage } from '../files/blobStorage.js';
import { readFileBytes, storeGeneratedFile } from '../files/files.js';
import type { Entitlements } from '../orgs/plans.js';
import type { Store } from '../store/client.js';
import type { FileRecord } from '../store/file.js';
import { bomToCsv, componentsToCsv } from './csv.js';
import { exportLibrary } from './export.js';
import { bundleText, readImportBundle } from './files.js';
import { categoriesDocument } from '../config/categories.js';
import type { Manifest } from './format.js';
import { importLibrary, type ImportResult, type ImportSource } from './import.js';

/**
 * Export and import through the API. A whole library does not fit a GraphQL response (10,000 components
 * with history are tens of MB), so both go through the library's file store: an export writes files (READY,
 * downloadable with File.downloadUrl), an import reads a file uploaded with file.createUpload/complete into
 * the (empty) library being imported into.
 */

export type ExportFormat = 'JSON' | 'CSV';

export async function exportLibraryToFiles(store: Store, blobs: BlobStorage, scope: LibraryScope, format: ExportFormat): Promise<{ files: FileRecord[]; counts: Manifest['counts'] }> {
  const exported = await exportLibrary(store, scope);
  const stamp = exported.manifest.exportedAt.replace(/[:.]/g, '-');
  const name = `${exported.manifest.source?.slug ?? 'library'}-${stamp}`;
  const files =
    format === 'JSON'
      ? [await storeGeneratedFile(store, blobs, scope, `${name}.json`, 'application/json', Buffer.from(bundleText(exported)))]
      : await Promise.all([
          storeGeneratedFile(store, blobs, scope, `${name}-components.csv`, 'text/csv', Buffer.from(componentsToCsv(exported.components, categoriesDocument.parse(exported.manifest.configuration.CATEGORIES)))),
          storeGeneratedFile(store, blobs, scope, `${name}-bom.csv`, 'text/csv', Buffer.from(bomToCsv(exported.components))),
        ]);
  return { files, counts: exported.manifest.counts };
}

/** What the API import needs of the request: its permissions, principal and plan. */
export interface ImportCaller {
  requireLibraryPermission(permission: PermissionName): Promise<void>;
  principalId: string;
  actingIntegrationId: string | null;
  entitlements: Entitlements;
}

const isCsv = (file: FileRecord) => file.contentType === 'text/csv' || file.name.toLowerCase().endsWith('.csv');

/**
 * Imports an uploaded file into the (empty) library of the request: a JSON bundle as exportLibrary(format:
 * JSON) writes it, or components.csv with bom.csv as a second file. Beside library.settings.update (the
 * operation's rule) the caller needs what the import does: components.create and components.revision.create
 * (imports carry revisions and Not Revision Managed flags as they are), and library.statuses.manage and
 * library.categories.manage when it carries configuration documents (a JSON bundle).
 */
export async function importLibraryFromFiles(
  store: Store,
  blobs: BlobStorage,
  scope: LibraryScope,
  caller: ImportCaller,
  input: { fileId: string; bomFileId?: string | null },
): Promise<ImportResult> {
  const { file, bytes } = await readFileBytes(store, blobs, scope, input.fileId);
  const bom = input.bomFileId ? await readFileBytes(store, blobs, scope, input.bomFileId) : null;
  let source: ImportSource;
  if (isCsv(file)) {
    source = { kind: 'csv', manifest: null, componentsCsv: bytes.toString('utf8'), bomCsv: bom ? bom.bytes.toString('utf8') : null };
  } else {
    if (bom) throw new InvalidInputError('bomFileId goes with a components CSV file, not with a JSON bundle', { field: 'input.bomFileId' });
    source = readImportBundle(bytes.toString('utf8'));
  }
  await caller.requireLibraryPermission('components.create');
  await caller.requireLibraryPermission('components.revision.create');
  if (source.kind === 'json') {
    await caller.requireLibraryPermission('library.statuses.manage');
    await caller.requireLibraryPermission('library.categories.manage');
  }
  return importLibrary(store, scope, source, {
    actor: { userId: scope.userId, principalId: caller.principalId, actingIntegrationId: caller.actingIntegrationId, at: new Date().toISOString() },
    entitlements: caller.entitlements,
  });
}
