import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportProblem } from '../errors.js';
import { ImportInvalidError } from './errors.js';
import { bomToCsv, componentsToCsv } from './csv.js';
import { sourcingToCsv } from './sourcingCsv.js';
import { bundleSchema, exportedAuditEntry, exportedComponent, manifestSchema, type ExportedAuditEntry, type LibraryExport, type Manifest } from './format.js';
import type { ImportSource } from './import.js';
import { categoriesDocument } from '../config/categories.js';
import type { BlobStorage } from '../files/port.js';
import { directoryFileBytes, sha256Hex, type FileBytesSource } from './fileBytes.js';
import * as z from 'zod';

/**
 * The export as files. A directory (CLI): library.json (manifest), components.json (the whole), the
 * spreadsheet view components.csv and bom.csv, audit.jsonl (the audit entries about the library, when the
 * export holds any: read only), and files/<id> (the bytes of the uploaded files). One file (API): the bundle,
 * the manifest with the components (and auditEntries) inside.
 */
export function directoryFiles(library: LibraryExport): Record<string, string> {
  const categories = categoriesDocument.parse(library.manifest.configuration.CATEGORIES);
  const sourcingCsvText = sourcingToCsv(library.components, library.manifest.sourcing);
  return {
    'library.json': `${JSON.stringify(library.manifest, null, 2)}\n`,
    'components.json': `${JSON.stringify(library.components)}\n`,
    'components.csv': componentsToCsv(library.components, categories),
    'bom.csv': bomToCsv(library.components),
    // Only when the library has manufacturer parts (sourcingCsv.ts).
    ...(sourcingCsvText ? { 'sourcing.csv': sourcingCsvText } : {}),
    // One JSON object a line, the columns of the audit log's own export (lib/audit/export.ts).
    ...(library.auditEntries?.length ? { 'audit.jsonl': library.auditEntries.map((entry) => `${JSON.stringify(entry)}\n`).join('') } : {}),
  };
}

/**
 * Writes the export directory: the files of directoryFiles, and the bytes of every listed uploaded file as
 * `files/<id>`, copied from the file store one at a time (checked against the listed size and SHA-256).
 * `blobs` is needed only when the library has files.
 */
export async function writeExportDirectory(directory: string, library: LibraryExport, blobs?: BlobStorage): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const files = directoryFiles(library);
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(directory, name), text)));
  const uploaded = library.manifest.files ?? [];
  if (uploaded.length === 0) return Object.keys(files);
  if (!blobs) throw new Error('The library has uploaded files: the export needs the file store (FILES_BUCKET, or FILES_DIR for the local stack)');
  await mkdir(join(directory, 'files'), { recursive: true });
  for (const file of uploaded) {
    const bytes = await blobs.get(library.fileStorageKeys?.[file.id] ?? '');
    if (!bytes || bytes.length !== file.size || sha256Hex(bytes) !== file.sha256)
      throw new Error(`The bytes of file ${file.id} (${file.name}) are missing from the file store or do not match its record`);
    await writeFile(join(directory, 'files', file.id), bytes);
  }
  return [...Object.keys(files), ...uploaded.map((f) => `files/${f.id}`)];
}

export const bundleText = (library: LibraryExport) =>
  JSON.stringify({ ...library.manifest, components: library.components, ...(library.auditEntries?.length ? { auditEntries: library.auditEntries } : {}) });

/** audit.jsonl: one entry a line (blank lines ignored); problems name the line. */
function parseAuditLines(text: string, problems: ImportProblem[]): ExportedAuditEntry[] {
  const entries: ExportedAuditEntry[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const parsed = exportedAuditEntry.safeParse(parseJson(line, `audit.jsonl line ${i + 1}`, problems));
    if (parsed.success) entries.push(parsed.data);
    else problems.push(...shapeProblems(parsed.error, `audit.jsonl line ${i + 1}`));
  }
  return entries;
}

function parseJson(text: string, file: string, problems: ImportProblem[]): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    problems.push({ path: file, code: 'JSON_MALFORMED', message: (error as Error).message });
    return undefined;
  }
}

function shapeProblems(error: z.ZodError, root: string): ImportProblem[] {
  return error.issues.map((issue) => ({
    path: `${root}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`,
    code: 'FORMAT_INVALID',
    message: issue.message,
  }));
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Reads an export directory. `format` json reads library.json and components.json (the whole); csv reads
 * components.csv and bom.csv (bom.csv optional) and sourcing.csv (optional; `legacy`: a legacy cost sheet,
 * every part and quote isLegacyImport), with library.json's configuration when present. Without
 * a format: json when components.json is there, else csv. Malformed files are IMPORT_INVALID.
 */
export async function readImportDirectory(directory: string, format?: 'json' | 'csv', csvOptions: { legacy?: boolean } = {}): Promise<ImportSource> {
  const [manifestText, componentsJson, componentsCsv, bomCsv, sourcingCsv, auditLines] = (await Promise.all(
    ['library.json', 'components.json', 'components.csv', 'bom.csv', 'sourcing.csv', 'audit.jsonl'].map((name) => readOptional(join(directory, name))),
  )) as [string | null, string | null, string | null, string | null, string | null, string | null];
  const problems: ImportProblem[] = [];
  const chosen = format ?? (componentsJson !== null ? 'json' : 'csv');
  let manifest: Manifest | null = null;
  if (manifestText !== null) {
    const parsed = manifestSchema.safeParse(parseJson(manifestText, 'library.json', problems));
    if (parsed.success) manifest = parsed.data;
    else if (problems.length === 0) problems.push(...shapeProblems(parsed.error, 'library.json'));
  } else if (chosen === 'json') problems.push({ path: 'library.json', code: 'FILE_MISSING', message: `${directory} has no library.json` });
  if (chosen === 'json') {
    if (componentsJson === null) problems.push({ path: 'components.json', code: 'FILE_MISSING', message: `${directory} has no components.json` });
    const parsed = z.array(exportedComponent).safeParse(componentsJson === null ? [] : parseJson(componentsJson, 'components.json', problems));
    if (!parsed.success) problems.push(...shapeProblems(parsed.error, 'components.json'));
    const auditEntries = auditLines === null ? [] : parseAuditLines(auditLines, problems);
    if (problems.length > 0 || !manifest || !parsed.success) throw new ImportInvalidError(problems);
    return { kind: 'json', library: { manifest, components: parsed.data, auditEntries }, root: 'components.json', manifestRoot: 'library.json: ', fileBytes: directoryFileBytes(directory) };
  }
  if (componentsCsv === null) problems.push({ path: 'components.csv', code: 'FILE_MISSING', message: `${directory} has no components.csv` });
  if (problems.length > 0) throw new ImportInvalidError(problems);
  return { kind: 'csv', manifest, componentsCsv: componentsCsv!, bomCsv, sourcingCsv, legacy: csvOptions.legacy ?? false };
}

/**
 * Reads the single-file form (the API's upload): a bundle (JSON), or a components CSV. The bytes of the
 * files a bundle lists come from `fileBytes` (jobs.ts: the source library's file store).
 */
export function readImportBundle(text: string, fileBytes?: (manifest: Manifest) => FileBytesSource): ImportSource {
  const problems: ImportProblem[] = [];
  const parsed = bundleSchema.safeParse(parseJson(text, 'bundle', problems));
  if (problems.length === 0 && !parsed.success) problems.push(...shapeProblems(parsed.error, 'bundle'));
  if (problems.length > 0 || !parsed.success) throw new ImportInvalidError(problems);
  const { components, auditEntries, ...manifest } = parsed.data;
  return {
    kind: 'json',
    library: { manifest, components, auditEntries: auditEntries ?? [] },
    root: 'bundle.components',
    manifestRoot: 'bundle.',
    ...(fileBytes ? { fileBytes: fileBytes(manifest) } : {}),
  };
}
