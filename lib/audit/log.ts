import { InvalidInputError } from '../errors.js';
import { parseDateTimeInput } from '../model/dateTime.js';
import type { Store } from '../store/client.js';
import { auditId, queryAuditLog, type AuditEntryRecord, type AuditLogFilter } from '../store/audit.js';
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
 * A bound of the filter as the entries' keys hold times (parseDateTimeInput), so an offset (+02:00), a date
 * without a time (in `to`: that whole day) or missing milliseconds name the moment they mean, and what is no
 * date-time is refused rather than read as a string that matches nothing or everything.
 */
export function auditTimeBound(value: string | undefined, field: 'filter.from' | 'filter.to'): string | undefined {
  return value === undefined ? undefined : parseDateTimeInput(value, field, { dayEnd: field === 'filter.to' });
}

/** A page of an organization's audit log, newest first (the access rule checks organization.settings.update). */
export async function auditLogPage(store: Store, organizationId: string, raw: AuditLogFilter, pagination: { first?: number | null; after?: string | null } = {}): Promise<AuditLogPage> {
  const first = pagination.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 200) throw new InvalidInputError('pagination.first is 1 to 200', { field: 'pagination.first' });
  for (const field of ['actorId', 'targetId', 'operation'] as const) {
    // An empty one was dropped, and the whole log answered as if no filter had been sent.
    if (raw[field] !== undefined && raw[field].trim() === '') throw new InvalidInputError(`filter.${field}: empty (leave it out to list every entry)`, { field: `filter.${field}` });
  }
  const filter: AuditLogFilter = {
    ...raw,
    // Ids as the entries keep them (auditId): a UUID in capitals names the same entries.
    actorId: raw.actorId === undefined ? undefined : auditId(raw.actorId),
    targetId: raw.targetId === undefined ? undefined : auditId(raw.targetId),
    from: auditTimeBound(raw.from, 'filter.from'),
    to: auditTimeBound(raw.to, 'filter.to'),
  };
  if (filter.from && filter.to && filter.from > filter.to) throw new InvalidInputError('filter.from is after filter.to', { field: 'filter.from' });
  const { entries, next } = await queryAuditLog(store, `ORG#${organizationId}#AUDIT`, filter, first, pagination.after ? keyOfCursor(pagination.after) : undefined);
  return { entries, pageInfo: { hasNextPage: next !== undefined, endCursor: next ? cursorOf(next) : null } };
}
