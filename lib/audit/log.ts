import { InvalidInputError } from '../errors.js';
import type { Store } from '../store/client.js';
import { queryAuditLog, type AuditEntryRecord, type AuditLogFilter } from '../store/audit.js';
export type { AuditLogFilter };

export interface AuditLogPage {
  entries: AuditEntryRecord[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const cursorOf = (sk: string) => Buffer.from(sk).toString('base64url');

function keyOfCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^E#\d{4}-\d\d-\d\dT[\d:.]+Z#[0-9a-f-]{36}$/.test(sk)) throw new InvalidInputError('pagination.after is not a cursor of this list', { field: 'pagination.after' });
  return sk;
}

/**
 * A bound of the filter as the entries' keys hold times (ISO UTC with milliseconds, years 0000 to 9999), so
 * it compares as a string: an offset (+02:00), a date without a time or missing milliseconds name the same
 * moment they mean. What is no date-time is refused (BAD_USER_INPUT), never read as a string that matches
 * nothing or everything.
 */
export function auditTimeBound(value: string | undefined, field: 'filter.from' | 'filter.to'): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  const at = /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : Number.NaN;
  // A date alone as the upper bound takes in that whole day, as it did when bounds were compared as written.
  const end = field === 'filter.to' && /^\d{4}-\d\d-\d\d$/.test(text) ? 86_400_000 - 1 : 0;
  const iso = Number.isNaN(at) ? null : new Date(at + end).toISOString();
  if (!iso || !/^\d{4}-/.test(iso)) throw new InvalidInputError(`${field}: ${String(value)} is not an ISO 8601 date-time from year 0000 to 9999`, { field });
  return iso;
}

/** A page of an organization's audit log, newest first (the access rule checks organization.settings.update). */
export async function auditLogPage(store: Store, organizationId: string, raw: AuditLogFilter, pagination: { first?: number | null; after?: string | null } = {}): Promise<AuditLogPage> {
  const first = pagination.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 200) throw new InvalidInputError('pagination.first is 1 to 200', { field: 'pagination.first' });
  const filter: AuditLogFilter = { ...raw, from: auditTimeBound(raw.from, 'filter.from'), to: auditTimeBound(raw.to, 'filter.to') };
  if (filter.from && filter.to && filter.from > filter.to) throw new InvalidInputError('filter.from is after filter.to', { field: 'filter.from' });
  const { entries, next } = await queryAuditLog(store, `ORG#${organizationId}#AUDIT`, filter, first, pagination.after ? keyOfCursor(pagination.after) : undefined);
  return { entries, pageInfo: { hasNextPage: next !== undefined, endCursor: next ? cursorOf(next) : null } };
}
