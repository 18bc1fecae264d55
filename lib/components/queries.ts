import type { CategoryType } from '../config/categories.js';
import { InvalidInputError } from '../errors.js';
import type { Store } from '../store/client.js';
import { getComponent, getComponents, listComponentHistory, listComponents, type ComponentHistoryRecord, type ComponentRecord } from '../store/component.js';

/** ComponentFilterInput: every given field must match. */
export interface ComponentFilter {
  ids?: string[] | null;
  /** Case-insensitive substring of the name. */
  name?: string | null;
  /** Any of these case-insensitive substrings. */
  names?: string[] | null;
  /** Any of these exact names (case-sensitive). */
  exactNames?: string[] | null;
  cpns?: string[] | null;
  statusId?: string | null;
  categoryId?: string | null;
  categoryType?: CategoryType | null;
  /** Omitted: archived components are left out; true: only archived; false: only active. */
  isArchived?: boolean | null;
  eid?: string | null;
}

export const orderFields = ['CREATED_AT', 'UPDATED_AT', 'NAME', 'CPN'] as const;
export type OrderField = (typeof orderFields)[number];

export interface Pagination {
  first?: number | null;
  after?: string | null;
  orderBy?: { field: OrderField; direction: 'ASC' | 'DESC' } | null;
}

export interface ComponentPage {
  edges: { cursor: string; node: ComponentRecord }[];
  hasNextPage: boolean;
  endCursor: string | null;
  totalCount: number;
}

export const defaultPageSize = 50;
export const maxPageSize = 1000;

export function matchesFilter(record: ComponentRecord, filter: ComponentFilter | null | undefined): boolean {
  const f = filter ?? {};
  const lower = record.name.toLowerCase();
  if (f.ids && !f.ids.includes(record.id)) return false;
  if (f.name && !lower.includes(f.name.toLowerCase())) return false;
  if (f.names && !f.names.some((n) => lower.includes(n.toLowerCase()))) return false;
  if (f.exactNames && !f.exactNames.includes(record.name)) return false;
  if (f.cpns && !f.cpns.some((c) => c.toUpperCase() === record.cpn.toUpperCase())) return false;
  if (f.statusId && record.statusId !== f.statusId) return false;
  if (f.categoryId && record.categoryId !== f.categoryId) return false;
  if (f.categoryType && record.category.type !== f.categoryType) return false;
  if (f.eid && record.eid !== f.eid) return false;
  const archived = f.isArchived ?? false;
  return record.isArchived === archived;
}

function sortValue(record: ComponentRecord, field: OrderField): string {
  switch (field) {
    case 'CREATED_AT':
      return record.createdAt;
    case 'UPDATED_AT':
      return record.updatedAt;
    case 'NAME':
      return record.name.toLowerCase();
    case 'CPN':
      return record.cpn.toUpperCase();
  }
}

function encodeCursor(value: string, id: string): string {
  return Buffer.from(JSON.stringify([value, id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(decoded) && decoded.length === 2 && decoded.every((v) => typeof v === 'string')) return decoded as [string, string];
  } catch {
    // fall through to the error below
  }
  throw new InvalidInputError('pagination.after is not a cursor this API issued', { field: 'after' });
}

/**
 * Orders and pages records. A cursor holds the sort value and id of the last node, and the next page
 * starts strictly after that position, so paging while the library changes never repeats or skips a
 * component that did not change. Default order: CREATED_AT descending.
 */
export function paginate(records: ComponentRecord[], pagination: Pagination | null | undefined): ComponentPage {
  const field = pagination?.orderBy?.field ?? 'CREATED_AT';
  const direction = pagination?.orderBy?.direction ?? 'DESC';
  const first = pagination?.first ?? defaultPageSize;
  if (!Number.isInteger(first) || first < 1 || first > maxPageSize) throw new InvalidInputError(`pagination.first must be 1 to ${maxPageSize}`, { field: 'first' });
  const sign = direction === 'ASC' ? 1 : -1;
  const compare = (a: [string, string], b: [string, string]) => sign * (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  const keyed = records.map((record) => ({ key: [sortValue(record, field), record.id] as [string, string], record })).sort((a, b) => compare(a.key, b.key));
  const after = pagination?.after ? decodeCursor(pagination.after) : undefined;
  const remaining = after ? keyed.filter((entry) => compare(entry.key, after) > 0) : keyed;
  const page = remaining.slice(0, first);
  const edges = page.map(({ key, record }) => ({ cursor: encodeCursor(key[0], key[1]), node: record }));
  return { edges, hasNextPage: remaining.length > first, endCursor: edges.at(-1)?.cursor ?? null, totalCount: keyed.length };
}

export async function findComponents(store: Store, orgId: string, libraryId: string, filter: ComponentFilter | null | undefined, pagination: Pagination | null | undefined): Promise<ComponentPage> {
  const records = filter?.ids?.length ? [...(await getComponents(store, orgId, libraryId, filter.ids)).values()] : await listComponents(store, orgId, libraryId);
  return paginate(records.filter((record) => matchesFilter(record, filter)), pagination);
}

export function findComponent(store: Store, orgId: string, libraryId: string, id: string): Promise<ComponentRecord | undefined> {
  return getComponent(store, orgId, libraryId, id);
}

export function componentHistory(store: Store, record: ComponentRecord, limit: number): Promise<ComponentHistoryRecord[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidInputError('history first must be 1 to 1000', { field: 'first' });
  return listComponentHistory(store, record.organizationId, record.libraryId, record.id, limit);
}

/** One attribute value of a component, with the category that defines its name and unit. */
export interface AttributeValueView {
  attributeId: string;
  value: unknown;
  categoryId: string;
}

export function attributeValuesOf(record: ComponentRecord): AttributeValueView[] {
  return Object.entries(record.attributeValues).map(([attributeId, value]) => ({ attributeId, value, categoryId: record.categoryId }));
}
