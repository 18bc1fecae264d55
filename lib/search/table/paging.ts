import type { OrderField } from '../query.js';
import { InvalidInputError } from '../../errors.js';
import { decodeCursor, encodeCursor, isDateOrder, type Order } from '../cursor.js';
import type { HitPage } from '../port.js';
import type { FieldName, Row } from './rows.js';

export interface PageRequest {
  order: Order;
  first: number;
  after?: string | null;
}

export const orderFieldOf: Record<OrderField, FieldName> = { CREATED_AT: 'createdAt', UPDATED_AT: 'updatedAt', NAME: 'name', CPN: 'cpn' };

type Key = number | string;

function keyOf(row: Row, field: OrderField): Key {
  switch (field) {
    case 'CREATED_AT':
      return row.createdAt ?? 0;
    case 'UPDATED_AT':
      return row.updatedAt ?? 0;
    case 'NAME':
      return (row.name ?? '').toLowerCase();
    case 'CPN':
      return (row.cpn ?? '').toUpperCase();
  }
}

const compare = (a: Key, b: Key) => (a < b ? -1 : a > b ? 1 : 0);

function cursorKey(field: OrderField, value: string): Key {
  if (!isDateOrder(field)) return value;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new InvalidInputError('pagination.after is not a cursor of this order', { field: 'after' });
  return time;
}

/** First index in [from, sorted.length) whose key is not before `key` in the order (or strictly after it). */
function bound(sorted: { key: Key }[], key: Key, sign: number, strict: boolean, from = 0): number {
  let low = from;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    const order = sign * compare(sorted[mid]!.key, key);
    if (order < 0 || (strict && order === 0)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Orders the matching rows by (sort value, id) and cuts the page after the cursor. Rows are sorted by
 * value first; ids are read only for the rows around the page (its rows and the ties at its edges).
 */
export async function pageRows(rows: Row[], request: PageRequest, loadIds: (rows: Row[]) => Promise<void>): Promise<HitPage> {
  const { field, direction } = request.order;
  const sign = direction === 'ASC' ? 1 : -1;
  const keyed = rows.map((row) => ({ row, key: keyOf(row, field) })).sort((a, b) => sign * compare(a.key, b.key));
  const after = request.after ? decodeCursor(request.after) : undefined;
  const afterKey = after ? cursorKey(field, after[0]) : undefined;
  const begin = afterKey === undefined ? 0 : bound(keyed, afterKey, sign, false);
  const tieEnd = afterKey === undefined ? 0 : bound(keyed, afterKey, sign, true, begin);
  let end = Math.min(keyed.length, tieEnd + request.first);
  if (end > tieEnd) end = bound(keyed, keyed[end - 1]!.key, sign, true, end - 1);
  await loadIds(keyed.slice(begin, end).map((entry) => entry.row));
  const ties = keyed.slice(begin, tieEnd).filter((entry) => sign * compare(entry.row.id!, after![1]) > 0);
  const candidates = [...ties, ...keyed.slice(tieEnd, end)].sort((a, b) => sign * (compare(a.key, b.key) || compare(a.row.id!, b.row.id!)));
  const hits = candidates.slice(0, request.first).map(({ row, key }) => ({
    id: row.id!,
    cursor: encodeCursor(typeof key === 'number' ? new Date(key).toISOString() : key, row.id!),
  }));
  return { hits, hasNextPage: ties.length + (keyed.length - tieEnd) > request.first, totalCount: rows.length };
}
