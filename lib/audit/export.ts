import { stringify } from 'csv-stringify/sync';
import { escapedRows } from '../csvCells.js';
import { DomainError } from '../errors.js';
import type { BlobStorage } from '../files/port.js';
import { storeGeneratedFile, type FileScope } from '../files/files.js';
import type { AuditEntryRecord, AuditLogFilter } from '../store/audit.js';
import type { Store } from '../store/client.js';
import type { FileRecord } from '../store/file.js';
import { auditLogPage } from './log.js';

/** The columns of an exported entry, in order (JSON lines carry the same fields). */
export const auditExportColumns = [
  'seq',
  'at',
  'entryId',
  'organizationId',
  'actorType',
  'actorId',
  'actorUserId',
  'integrationId',
  'operation',
  'targets',
  'summary',
  'result',
  'errorCode',
  'sourceIp',
  'userAgent',
  'prevHash',
  'hash',
] as const;

function exported(entry: AuditEntryRecord): Record<string, unknown> {
  return Object.fromEntries(auditExportColumns.map((column) => [column, entry[column] ?? null]));
}

export function auditJsonLines(entries: readonly AuditEntryRecord[]): string {
  return entries.map((entry) => `${JSON.stringify(exported(entry))}\n`).join('');
}

const cellOf = (value: unknown) => (value === null || value === undefined ? '' : Array.isArray(value) ? value.join(' ') : String(value));

/**
 * RFC 4180 CSV (CRLF records, csv-stringify): a header row, then a row per entry; targets separated by
 * spaces. Cells a spreadsheet would run as a formula are escaped as in every export (lib/csvCells.ts).
 */
export function auditCsv(entries: readonly AuditEntryRecord[]): string {
  const rows = entries.map((entry) => auditExportColumns.map((column) => cellOf(entry[column])));
  return stringify([[...auditExportColumns], ...escapedRows(rows)], { record_delimiter: 'windows' });
}

export type AuditExportFormat = 'JSONL' | 'CSV';

/** Entries one export holds at most; a larger log is refused (AUDIT_EXPORT_TOO_LARGE): narrow filter.from and filter.to. */
export const maxAuditExportEntries = 100_000;

export class AuditExportTooLargeError extends DomainError {
  constructor(limit: number) {
    super('AUDIT_EXPORT_TOO_LARGE', `The filter matches more than ${limit} audit entries: export shorter periods (filter.from, filter.to)`, 400, { limit });
  }
}

/**
 * The entries organization.auditLog lists for a filter, every page of it, newest first (the same order and
 * the same filter as the log's pages).
 */
export async function auditEntriesMatching(store: Store, organizationId: string, filter: AuditLogFilter, limit = maxAuditExportEntries): Promise<AuditEntryRecord[]> {
  const entries: AuditEntryRecord[] = [];
  let after: string | null = null;
  do {
    const page = await auditLogPage(store, organizationId, filter, { first: 200, after });
    entries.push(...page.entries);
    if (entries.length > limit) throw new AuditExportTooLargeError(limit);
    after = page.pageInfo.endCursor;
  } while (after);
  return entries;
}

/**
 * Writes an organization's audit log (filtered as organization.auditLog) to a library's file store as JSON
 * lines or CSV, READY: the API's export (transfer.exportAuditLog), as library export writes files. The
 * entries are read before the file is written, so the export's own entry is not in it.
 */
export async function exportAuditLogToFile(store: Store, blobs: BlobStorage, scope: FileScope, filter: AuditLogFilter, format: AuditExportFormat): Promise<FileRecord> {
  const entries = await auditEntriesMatching(store, scope.organizationId, filter);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const [name, contentType, body] = format === 'CSV' ? [`audit-log-${stamp}.csv`, 'text/csv', auditCsv(entries)] : [`audit-log-${stamp}.jsonl`, 'application/x-ndjson', auditJsonLines(entries)];
  return storeGeneratedFile(store, blobs, scope, name, contentType, Buffer.from(body), 'organization.settings.update');
}
