import type { AuditEntryRecord } from '../store/audit.js';

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

const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? '' : Array.isArray(value) ? value.join(' ') : String(value);
  // Quoted always; a leading formula character is neutralised for spreadsheets.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
};

export function auditCsv(entries: readonly AuditEntryRecord[]): string {
  return [auditExportColumns.join(','), ...entries.map((entry) => auditExportColumns.map((column) => csvCell(entry[column])).join(','))].join('\r\n') + '\r\n';
}
