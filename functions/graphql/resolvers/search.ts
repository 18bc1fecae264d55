import { markedIds } from '../../../lib/components/pins.js';
import { buildFilterFromQuery, buildFilterWithAI, filterWithAI, filterWithQuery } from '../../../lib/search/language/service.js';
import { findComponentGroups, findComponentsByFilter, findComponentsInGroup, type SearchScope } from '../../../lib/search/service.js';
import { TableSearchIndex } from '../../../lib/search/table/index.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryConfig, libraryScope, userById, withheldForCaller } from './shared.js';

/** The search scope of the request: one index (and so one snapshot of the search data) per request. */
export function searchScope(context: GraphQLContext): Promise<SearchScope> {
  return context.once('searchScope', async () => {
    const scope = await libraryScope(context);
    return {
      store: context.store,
      ...scope,
      index: new TableSearchIndex(context.store, scope),
      config: () => libraryConfig(context),
      marks: (kind) => context.once(`marks:${kind}`, () => markedIds(context.store, scope, kind)),
      user: (id) => userById(context, id),
      withheld: () => withheldForCaller(context),
    };
  });
}

export const searchResolvers: Resolvers = {
  ComponentQueryNamespace: {
    filter: async (_parent, { input }, context) => findComponentsByFilter(await searchScope(context), { advanced: input }, input?.pagination),
    componentGroups: async (_parent, { groupBy, pagination, filter, advancedFilter, previewSize }, context) =>
      findComponentGroups(await searchScope(context), groupBy, { simple: filter, advanced: advancedFilter }, pagination, previewSize),
    componentsInGroup: async (_parent, { groupBy, key, pagination, filter, advancedFilter }, context) =>
      findComponentsInGroup(await searchScope(context), groupBy, key, { simple: filter, advanced: advancedFilter }, pagination),
    filterWithQuery: async (_parent, { query, pagination }, context) => filterWithQuery(await searchScope(context), query, pagination),
    buildFilterFromQuery: async (_parent, { query }, context) => buildFilterFromQuery(await searchScope(context), query),
    filterWithAI: async (_parent, { input }, context) => filterWithAI(await searchScope(context), input),
    buildFilterWithAI: async (_parent, { input }, context) => buildFilterWithAI(await searchScope(context), input?.query),
  },
  ComponentGroupConnection: {
    pageInfo: (page) => ({ hasNextPage: page.hasNextPage, endCursor: page.endCursor }),
  },
};
