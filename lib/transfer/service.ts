import type { LibraryScope } from '../model/scope.js';
import type { BlobStorage } from '../files/port.js';
import { storeGeneratedFile } from '../files/files.js';
import type { Store } from '../store/client.js';
import type { FileRecord } from '../store/file.js';
import { bomToCsv, componentsToCsv } from './csv.js';
import { sourcingToCsv } from './sourcingCsv.js';
import { exportFor, exportLibrary } from './export.js';
import { nativePrincipalId } from '../model/attributeAccess.js';
import { bundleText } from './files.js';
import { categoriesDocument } from '../config/categories.js';
import type { Manifest } from './format.js';

/**
 * Export and import through the API. A whole library does not fit a GraphQL response (10,000 components
 * with history are tens of MB), so both go through the library's file store: an export writes files (READY,
 * downloadable with File.downloadUrl), an import reads a file uploaded with file.createUpload/complete into
 * the (empty) library being imported into, as a job (jobs.ts).
 */

export type ExportFormat = 'JSON' | 'CSV';

/**
 * `principal`: who the export is for. An integration's export leaves out the attribute values withheld from
 * it (JSON and CSV alike), as its reads do. `auditEntries`: whether the JSON bundle carries the audit entries
 * about the library (the resolver asks for them when the caller may read the audit log; CSV never does).
 */
export async function exportLibraryToFiles(
  store: Store,
  blobs: BlobStorage,
  scope: LibraryScope,
  format: ExportFormat,
  principal: string = nativePrincipalId,
  options: { auditEntries?: boolean } = {},
): Promise<{ files: FileRecord[]; counts: Manifest['counts'] & { auditEntries: number } }> {
  const exported = exportFor(await exportLibrary(store, scope, { auditEntries: format === 'JSON' && (options.auditEntries ?? false) }), principal);
  // The export holds the configuration and access policy: its files are for those who may export (transfer.exportLibrary).
  const readPermission = 'library.settings.update';
  const stamp = exported.manifest.exportedAt.replace(/[:.]/g, '-');
  const name = `${exported.manifest.source?.slug ?? 'library'}-${stamp}`;
  const files =
    format === 'JSON'
      ? [await storeGeneratedFile(store, blobs, scope, `${name}.json`, 'application/json', Buffer.from(bundleText(exported)), readPermission)]
      : await Promise.all([
          storeGeneratedFile(
            store,
            blobs,
            scope,
            `${name}-components.csv`,
            'text/csv',
            Buffer.from(componentsToCsv(exported.components, categoriesDocument.parse(exported.manifest.configuration.CATEGORIES))),
            readPermission,
          ),
          storeGeneratedFile(store, blobs, scope, `${name}-bom.csv`, 'text/csv', Buffer.from(bomToCsv(exported.components)), readPermission),
          // sourcing.csv only when the library has manufacturer parts.
          ...[sourcingToCsv(exported.components, exported.manifest.sourcing)]
            .filter((csv): csv is string => csv !== null)
            .map((csv) => storeGeneratedFile(store, blobs, scope, `${name}-sourcing.csv`, 'text/csv', Buffer.from(csv), readPermission)),
        ]);
  return { files, counts: { ...exported.manifest.counts, auditEntries: exported.auditEntries?.length ?? 0 } };
}
