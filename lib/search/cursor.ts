import { createHash } from 'node:crypto';
import type { OrderField } from './query.js';
import { InvalidInputError } from '../errors.js';

/**
 * Cursors are opaque: base64url of [sort value, id], the same format component.findAll has always used.
 * The next page starts strictly after that position, so paging while the library changes never repeats
 * or skips a component that did not change.
 */
export function encodeCursor(value: string, id: string): string {
  return Buffer.from(JSON.stringify([value, id])).toString('base64url');
}

export function decodeCursor(cursor: string): [string, string] {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(decoded) && decoded.length === 2 && decoded.every((v) => typeof v === 'string')) return decoded as [string, string];
  } catch {
    // fall through to the error below
  }
  throw new InvalidInputError('pagination.after is not a cursor this API issued', { field: 'after' });
}

/**
 * The list a search cursor belongs to: a digest of the operation, the library, the filter (explicit nulls,
 * field order and the pagination inside component.filter's input left out), the group and the order. The
 * search's cursors carry it (base64url of [sort value, id, list]) and a cursor is read only in its own list:
 * taken as a position in another (another order, filter, group, operation or library) it answered a page of
 * that list silently.
 */
export function cursorList(parts: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(parts)))
    .digest('base64url')
    .slice(0, 16);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, inner]) => inner !== null && inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, inner]) => [key, canonical(inner)]),
  );
}

/** A position of the search index ([sort value, id]) as the cursor of one list. */
export function sealCursor(position: string, list: string): string {
  const [value, id] = decodeCursor(position);
  return Buffer.from(JSON.stringify([value, id, list])).toString('base64url');
}

/** The position a cursor of this list holds; a cursor of another list, or none the API issued, is BAD_USER_INPUT. */
export function openCursor(cursor: string, list: string): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 3 || !decoded.every((v) => typeof v === 'string')) {
    throw new InvalidInputError('pagination.after is not a cursor this API issued', { field: 'after' });
  }
  if (decoded[2] !== list) {
    throw new InvalidInputError('pagination.after is a cursor of another list (another order, filter, group, operation or library): start again from the first page', {
      field: 'after',
    });
  }
  return encodeCursor(decoded[0] as string, decoded[1] as string);
}

export interface Order {
  field: OrderField;
  direction: 'ASC' | 'DESC';
}

export const defaultOrder: Order = { field: 'CREATED_AT', direction: 'DESC' };

/** Sort values: dates as ISO 8601 (UTC, milliseconds), names lower-cased, CPNs upper-cased. */
export function isDateOrder(field: OrderField): boolean {
  return field === 'CREATED_AT' || field === 'UPDATED_AT';
}
