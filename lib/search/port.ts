import type { Order } from './cursor.js';
import type { FilterContext, SearchFilter } from './filter.js';

/**
 * The search port. The domain (service.ts) asks it for ids and counts; it never sees how they are found.
 * The default adapter reads the library's own table (table/index.ts: compressed column blocks plus
 * per-component deltas); a deployment whose libraries outgrow it plugs in an adapter over OpenSearch fed
 * from the table's stream (lib/store/README.md, "Search").
 */
export type GroupBy = 'CATEGORY' | 'STATUS' | 'TYPE' | 'MODIFIED_BY' | 'LABEL';

export interface SearchRequest {
  filter: SearchFilter;
  context: FilterContext;
  order: Order;
  first: number;
  after?: string | null;
  /** Only the components of this group. */
  group?: { by: GroupBy; key: string };
}

export interface Hit {
  id: string;
  cursor: string;
}

/** One page of a search: component ids in order with their cursors, and the number of all matches. */
export interface HitPage {
  hits: Hit[];
  hasNextPage: boolean;
  totalCount: number;
}

export interface GroupCount {
  key: string;
  /** The group's name as the search data knows it (for MODIFIED_BY, the user id). */
  label: string;
  totalCount: number;
}

export interface ComponentSearchIndex {
  find(request: SearchRequest): Promise<HitPage>;
  groups(filter: SearchFilter, context: FilterContext, by: GroupBy): Promise<GroupCount[]>;
  /** Labels in use and the users who created or changed components: the vocabulary of the query languages. */
  terms(): Promise<{ labels: string[]; userIds: string[] }>;
}
