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

export interface Order {
  field: OrderField;
  direction: 'ASC' | 'DESC';
}

export const defaultOrder: Order = { field: 'CREATED_AT', direction: 'DESC' };

/** Sort values: dates as ISO 8601 (UTC, milliseconds), names lower-cased, CPNs upper-cased. */
export function isDateOrder(field: OrderField): boolean {
  return field === 'CREATED_AT' || field === 'UPDATED_AT';
}
