import { defaultPageSize, maxPageSize, type ComponentPage, type Pagination } from './query.js';
import type { LibraryConfiguration } from '../config/libraryConfig.js';
import { InvalidInputError } from '../errors.js';
import { refuseWithheldSourcing } from '../model/attributeAccess.js';
import type { Store } from '../store/client.js';
import { getComponents } from '../store/component.js';
import type { UserRecord } from '../store/user.js';
import { cursorList, decodeCursor, defaultOrder, encodeCursor, openCursor, sealCursor, type Order } from './cursor.js';
import { conditionsOf, filterNeeds, validateFilter, type FilterContext, type SearchFilter } from './filter.js';
import type { ComponentSearchIndex, GroupBy, HitPage, SearchRequest } from './port.js';

/** What a search runs with: the library, the caller, the index, and per-request reads the caller memoizes. */
export interface SearchScope {
  store: Store;
  organizationId: string;
  libraryId: string;
  userId: string;
  index: ComponentSearchIndex;
  config(): Promise<LibraryConfiguration>;
  /** Ids the calling user pinned or bookmarked in the library. */
  marks(kind: 'PIN' | 'BOOKMARK'): Promise<ReadonlySet<string>>;
  user(id: string): Promise<UserRecord | null>;
  /** The pseudo-attributes and attributes withheld from the caller (withheldAttributes): empty for a person. */
  withheld(): Promise<ReadonlySet<string>>;
}

export interface PageRequest {
  order: Order;
  first: number;
  after: string | null;
}

/** first 1 to 1000 (default 50), after, orderBy (default CREATED_AT descending). */
export function pageRequest(pagination: Pagination | null | undefined): PageRequest {
  const first = pagination?.first ?? defaultPageSize;
  if (!Number.isInteger(first) || first < 1 || first > maxPageSize) throw new InvalidInputError(`pagination.first must be 1 to ${maxPageSize}`, { field: 'first' });
  return { order: pagination?.orderBy ?? defaultOrder, first, after: pagination?.after ?? null };
}

/** Reads what the filter needs besides the search data, and refuses malformed operands. */
export async function filterContext(scope: SearchScope, filter: SearchFilter): Promise<FilterContext> {
  const needs = filterNeeds(filter);
  const [pinnedIds, bookmarkedIds, config, withheld] = await Promise.all([
    needs.pins ? scope.marks('PIN') : undefined,
    needs.bookmarks ? scope.marks('BOOKMARK') : undefined,
    needs.revisionScheme ? scope.config() : undefined,
    needs.sourcing ? scope.withheld() : undefined,
  ]);
  if (needs.sourcing && withheld) refuseWithheldSourcing(withheld, needs.sourcing, ['sourcing.parts']);
  validateFilter(filter, config?.revisionScheme);
  return { pinnedIds, bookmarkedIds, revisionScheme: config?.revisionScheme };
}

/**
 * The list a page of components belongs to (cursor.ts, cursorList): its cursors are read in that list only.
 * The pagination inside component.filter's input is not part of it.
 */
function componentList(scope: SearchScope, filter: SearchFilter, order: Order, group?: { by: GroupBy; key: string }): string {
  const { pagination: _pagination, ...advanced } = (filter.advanced ?? {}) as AdvancedFilterInput;
  return cursorList({ kind: 'components', libraryId: scope.libraryId, simple: filter.simple, advanced, order, group });
}

type AdvancedFilterInput = NonNullable<SearchFilter['advanced']> & { pagination?: unknown };

/** The hits' positions as cursors of the list. */
function sealed(page: HitPage, list: string): HitPage {
  return { ...page, hits: page.hits.map((hit) => ({ ...hit, cursor: sealCursor(hit.cursor, list) })) };
}

/** One page of a list of components: the cursor read in it, the hits' cursors issued for it. */
async function findHits(scope: SearchScope, request: Omit<SearchRequest, 'after'> & { after?: string | null }): Promise<HitPage> {
  const list = componentList(scope, request.filter, request.order, request.group);
  const after = request.after ? openCursor(request.after, list) : null;
  return sealed(await scope.index.find({ ...request, after }), list);
}

/** The components of hits, in hit order (one BatchGetItem per 100); a component deleted meanwhile is left out. */
export async function componentPage(scope: SearchScope, page: HitPage): Promise<ComponentPage> {
  const found = await getComponents(
    scope.store,
    scope.organizationId,
    scope.libraryId,
    page.hits.map((hit) => hit.id),
  );
  const edges = page.hits.flatMap((hit) => {
    const node = found.get(hit.id);
    return node ? [{ cursor: hit.cursor, node }] : [];
  });
  return { edges, hasNextPage: page.hasNextPage, endCursor: page.hits.at(-1)?.cursor ?? null, totalCount: page.totalCount };
}

/** component.findAll and component.filter: one page of the components that match, in order. */
export async function findComponentsByFilter(scope: SearchScope, filter: SearchFilter, pagination: Pagination | null | undefined): Promise<ComponentPage> {
  const request = pageRequest(pagination);
  const context = await filterContext(scope, filter);
  return componentPage(scope, await findHits(scope, { filter, context, ...request }));
}

export interface ComponentGroupView {
  key: string;
  label: string;
  totalCount: number;
  components: ComponentPage;
}

export interface ComponentGroupPage {
  edges: { cursor: string; node: ComponentGroupView }[];
  hasNextPage: boolean;
  endCursor: string | null;
  totalCount: number;
}

/**
 * componentGroups and componentsInGroup page with their pagination argument; a pagination inside
 * advancedFilter (the input component.filter pages with) would be ignored, so it is refused.
 */
function refuseNestedPagination(filter: SearchFilter): void {
  const nested = (filter.advanced as { pagination?: unknown } | null | undefined)?.pagination;
  if (nested !== undefined && nested !== null) {
    throw new InvalidInputError('advancedFilter.pagination: page with the pagination argument of this operation', { field: 'advancedFilter.pagination' });
  }
}

/** A group preview shows at most this many components (spec, Limits). */
const groupPreviewSize = 50;

const typeLabels: Record<string, string> = { PART: 'Part', ASSEMBLY: 'Assembly', DOCUMENT: 'Document' };

export function userDisplayName(user: UserRecord): string {
  const full = [user.firstName, user.lastName].filter(Boolean).join(' ');
  return full || user.name || user.primaryEmail;
}

async function groupLabel(scope: SearchScope, by: GroupBy, key: string, label: string): Promise<string> {
  if (by === 'TYPE') return typeLabels[key] ?? key;
  if (by === 'LABEL' && key === '') return 'No label';
  if (by === 'MODIFIED_BY') {
    const user = await scope.user(key);
    return user ? userDisplayName(user) : 'Unknown user';
  }
  return label;
}

/**
 * component.componentGroups: the groups of the matching components, ordered by label. pagination's
 * first/after page through the groups; its orderBy orders the components each group previews (at most
 * previewSize, 1 to 50).
 */
export async function findComponentGroups(
  scope: SearchScope,
  by: GroupBy,
  filter: SearchFilter,
  pagination: Pagination | null | undefined,
  previewSize: number | null | undefined,
): Promise<ComponentGroupPage> {
  refuseNestedPagination(filter);
  const groupsRequest = pageRequest({ first: pagination?.first, after: pagination?.after });
  const size = previewSize ?? groupPreviewSize;
  if (!Number.isInteger(size) || size < 1 || size > groupPreviewSize) throw new InvalidInputError(`previewSize must be 1 to ${groupPreviewSize}`, { field: 'previewSize' });
  const order = pagination?.orderBy ?? defaultOrder;
  const context = await filterContext(scope, filter);
  const counts = await scope.index.groups(filter, context, by);
  const groups = await Promise.all(
    counts.map(async (group) => {
      const label = await groupLabel(scope, by, group.key, group.label);
      return { ...group, label, sort: [label.toLowerCase(), group.key] as const };
    }),
  );
  groups.sort((a, b) => (a.sort[0] < b.sort[0] ? -1 : a.sort[0] > b.sort[0] ? 1 : a.sort[1] < b.sort[1] ? -1 : a.sort[1] > b.sort[1] ? 1 : 0));
  // The groups of one grouping and filter are a list of their own (their cursors are not components').
  const list = cursorList({ kind: 'groups', libraryId: scope.libraryId, by, simple: filter.simple, advanced: filter.advanced });
  const after = groupsRequest.after ? decodeCursor(openCursor(groupsRequest.after, list)) : undefined;
  const remaining = after ? groups.filter((g) => g.sort[0] > after[0] || (g.sort[0] === after[0] && g.sort[1] > after[1])) : groups;
  const page = remaining.slice(0, groupsRequest.first);
  // A preview's cursors are those of componentsInGroup of its group (same filter and order).
  const hits = await Promise.all(page.map((group) => findHits(scope, { filter, context, order, first: size, group: { by, key: group.key } })));
  // One batch read for the previews of every group on the page.
  const all = await componentPage(scope, { hits: hits.flatMap((h) => h.hits), hasNextPage: false, totalCount: 0 });
  const nodes = new Map(all.edges.map((edge) => [edge.node.id, edge.node]));
  const edges = page.map((group, i) => {
    const found = hits[i]!;
    const previewEdges = found.hits.flatMap((hit) => (nodes.has(hit.id) ? [{ cursor: hit.cursor, node: nodes.get(hit.id)! }] : []));
    const components: ComponentPage = { edges: previewEdges, hasNextPage: found.hasNextPage, endCursor: found.hits.at(-1)?.cursor ?? null, totalCount: found.totalCount };
    return { cursor: sealCursor(encodeCursor(group.sort[0], group.sort[1]), list), node: { key: group.key, label: group.label, totalCount: group.totalCount, components } };
  });
  return { edges, hasNextPage: remaining.length > page.length, endCursor: edges.at(-1)?.cursor ?? null, totalCount: groups.length };
}

/** component.componentsInGroup: the components of one group, paged as component.filter pages. */
export async function findComponentsInGroup(scope: SearchScope, by: GroupBy, key: string, filter: SearchFilter, pagination: Pagination | null | undefined): Promise<ComponentPage> {
  refuseNestedPagination(filter);
  const request = pageRequest(pagination);
  const context = await filterContext(scope, filter);
  return componentPage(scope, await findHits(scope, { filter, context, ...request, group: { by, key } }));
}
