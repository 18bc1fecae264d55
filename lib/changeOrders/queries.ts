import type { LibraryScope } from '../model/scope.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { isUuid } from '../model/slugs.js';
import { decodeCursor, encodeCursor } from '../search/cursor.js';
import { getChangeOrder, listChangeOrders, type ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';

export interface ChangeOrderFilter {
  status?: string | null;
  componentId?: string | null;
  search?: string | null;
}

/**
 * changeOrders.get: the library's change orders, newest first, filtered and paged. The cursor is the
 * opaque position of a change order in that order ([createdAt, number], the format of every connection's
 * cursor): the next page starts strictly after it, so change orders created while a client pages never
 * shift a page. A cursor of another list is refused.
 */
export interface ChangeOrderPage {
  totalCount: number;
  nodes: ChangeOrderRecord[];
  endCursor: string | null;
  hasNextPage: boolean;
}

/** Newest first; the number (unique in the library) orders change orders created in the same millisecond. */
const newestFirst = (a: Pick<ChangeOrderRecord, 'createdAt' | 'number'>, b: Pick<ChangeOrderRecord, 'createdAt' | 'number'>) =>
  b.createdAt.localeCompare(a.createdAt) || b.number.localeCompare(a.number);

export async function findChangeOrders(store: Store, scope: LibraryScope, filter: ChangeOrderFilter = {}, pagination: { first?: number | null; after?: string | null } = {}): Promise<ChangeOrderPage> {
  const first = pagination.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 200) throw new InvalidInputError('pagination.first is 1 to 200', { field: 'pagination.first' });
  const after = pagination.after ? decodeCursor(pagination.after) : null;
  // The position of a change order ([createdAt, number]); a cursor of another list (component.findAll's has the
  // same form) was read as a position here and answered a page of it.
  if (after && !(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(after[0]) && /^CO-\d+$/.test(after[1]))) {
    throw new InvalidInputError('pagination.after is not a cursor of this list', { field: 'after' });
  }
  const search = filter.search?.trim().toLowerCase();
  const all = (await listChangeOrders(store, scope.organizationId, scope.libraryId))
    .filter((co) => !filter.status || co.status === filter.status)
    .filter((co) => !filter.componentId || co.components.some((c) => c.componentId === filter.componentId!.toLowerCase()))
    .filter((co) => !search || co.name.toLowerCase().includes(search) || co.number.toLowerCase().includes(search))
    .sort(newestFirst);
  const rest = after ? all.filter((co) => newestFirst(co, { createdAt: after[0], number: after[1] }) > 0) : all;
  const page = rest.slice(0, first);
  const last = page.at(-1);
  return { totalCount: all.length, nodes: page, endCursor: last ? encodeCursor(last.createdAt, last.number) : null, hasNextPage: rest.length > first };
}

export async function changeOrderById(store: Store, scope: LibraryScope, id: string): Promise<ChangeOrderRecord> {
  const record = isUuid(id) ? await getChangeOrder(store, scope.organizationId, scope.libraryId, id.toLowerCase(), true) : undefined;
  if (!record) throw new NotFoundError('Change order', id);
  return record;
}

/** A change order by id, or undefined (a link to one that was deleted). */
export function getChangeOrderById(store: Store, scope: LibraryScope, id: string): Promise<ChangeOrderRecord | undefined> {
  return getChangeOrder(store, scope.organizationId, scope.libraryId, id);
}
