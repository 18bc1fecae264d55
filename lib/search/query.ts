import type { CategoryType } from '../model/vocabulary.js';
import type { ComponentRecord } from '../store/component.js';

/** What a component query asks and gets: the contract between the API and the search module. */

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
