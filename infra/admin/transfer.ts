/** Operator commands of library export and import: export, import, and the abort of a crashed import. */
import { resolve } from 'node:path';
import { InvalidInputError } from '../../lib/errors.js';
import { LocalBlobStorage, localFilesDirectory, S3BlobStorage } from '../../lib/files/blobStorage.js';
import type { BlobStorage } from '../../lib/files/port.js';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { entitlementsOf } from '../../lib/orgs/plans.js';
import { getLibrary } from '../../lib/store/library.js';
import { getOrganization } from '../../lib/store/organization.js';
import { findUserIdByEmail } from '../../lib/store/user.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import { readImportDirectory, writeExportDirectory } from '../../lib/transfer/files.js';
import { importLibrary, type ImportProgress } from '../../lib/transfer/import.js';
import { abortLibraryImport } from '../../lib/transfer/jobs.js';
import { libraryTask, text, type CommandHandlers } from './runCommand.js';

/**
 * The file store export and import copy uploaded files from and to: FILES_BUCKET (deployed), FILES_DIR (a
 * local stack's folder), or PLM_DATA_DIR/files (npm start with a data directory). Undefined when none is
 * set: a library with files then cannot be exported, nor an export with files imported (FILES_UNAVAILABLE).
 */
function cliBlobStorage(): BlobStorage | undefined {
  const env = process.env;
  if (env.FILES_BUCKET) return new S3BlobStorage(env.FILES_BUCKET);
  const directory = env.FILES_DIR || (env.PLM_DATA_DIR ? localFilesDirectory(env.PLM_DATA_DIR, '') : undefined);
  // Only put, get and inspect are used: no URL is handed out, so the base URL and signing secret are unused.
  return directory ? new LocalBlobStorage(directory, 'http://127.0.0.1', 'unused') : undefined;
}

/** Writes a library as files (library.json, components.json, components.csv, bom.csv, files/<id>; lib/transfer/format.ts). */
function exportCommand(args: string[]): Promise<void> {
  return libraryTask('export', args, { out: { type: 'string' } }, async (store, library, values) => {
    const out = text(values, 'out');
    if (!out) throw new InvalidInputError('Missing --out');
    const started = performance.now();
    const exported = await exportLibrary(store, library);
    const files = await writeExportDirectory(resolve(out), exported, cliBlobStorage());
    const durationMs = Math.round(performance.now() - started);
    return { directory: resolve(out), files, counts: exported.manifest.counts, durationMs, componentsPerSecond: Math.round(exported.components.length / Math.max(durationMs / 1000, 0.001)) };
  });
}

/**
 * Imports files into an empty library; progress lines (JSON) on stderr. History of a CSV import is recorded
 * as by --email's user (default: the library's creator). The audit entry lands in the import's commit
 * transaction (lib/store/libraryTransfer.ts, commitLibraryImport).
 */
function importCommand(args: string[]): Promise<void> {
  return libraryTask('import', args, { in: { type: 'string' }, format: { type: 'string' }, email: { type: 'string' }, legacy: { type: 'boolean' } }, async (store, library, values, operation) => {
    // Vendors it creates are written before (their own transactions): the entry belongs in the commit.
    operation.auditAtCommit = true;
    const input = text(values, 'in');
    const format = text(values, 'format');
    if (!input) throw new InvalidInputError('Missing --in');
    if (format !== undefined && format !== 'json' && format !== 'csv') throw new InvalidInputError('--format is json or csv');
    const legacy = values.legacy === true;
    if (legacy && format === 'json') throw new InvalidInputError('--legacy applies to a CSV import (sourcing.csv)');
    const email = text(values, 'email');
    const [organization, record] = await Promise.all([getOrganization(store, library.organizationId), getLibrary(store, library.organizationId, library.libraryId)]);
    const userId = email ? await findUserIdByEmail(store, email) : record?.createdBy;
    if (!organization || !userId) throw new InvalidInputError(email ? `No user ${email}` : 'The library has no creator to import as: pass --email');
    const source = await readImportDirectory(resolve(input), format as 'json' | 'csv' | undefined, { legacy });
    let lastReport = 0;
    const report = (progress: ImportProgress) => {
      const now = performance.now();
      if (progress.phase === 'writing' && now - lastReport < 1000 && progress.written < progress.total) return;
      lastReport = now;
      process.stderr.write(`${JSON.stringify({ progress })}\n`);
    };
    const result = await importLibrary(store, library, source, {
      actor: { userId, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() },
      entitlements: entitlementsOf(organization),
      blobs: cliBlobStorage(),
      onProgress: report,
    });
    return { ...result, componentsPerSecond: Math.round(result.components / Math.max(result.durationMs / 1000, 0.001)) };
  });
}

/**
 * Deletes what a crashed import wrote and reopens the library; an API import's job (if one holds the library)
 * ends FAILED (IMPORT_ABANDONED). A job whose worker is still heard from is refused unless --force.
 */
function importAbortCommand(args: string[]): Promise<void> {
  return libraryTask('import-abort', args, { force: { type: 'boolean' } }, (store, library, values) => abortLibraryImport(store, library, { force: values.force === true }));
}

export const transferCommands = {
  export: exportCommand,
  import: importCommand,
  'import-abort': importAbortCommand,
} satisfies CommandHandlers;
