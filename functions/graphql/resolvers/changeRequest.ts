import type { ChangeOrderDeps } from '../../../lib/changeOrders/act.js';
import { getChangeOrderById } from '../../../lib/changeOrders/queries.js';
import {
  changeRequestById,
  changeRequestsOf,
  createChangeRequest,
  findChangeRequests,
  promoteChangeRequests,
  transitionChangeRequest,
  updateChangeRequest,
} from '../../../lib/changeOrders/requests.js';
import { NotFoundError } from '../../../lib/errors.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope, loadComponent, userById } from './shared.js';

const deps = (context: GraphQLContext): ChangeOrderDeps => ({ store: context.store });

export const changeRequestResolvers: Resolvers = {
  ChangeRequestQueryNamespace: {
    get: async (_parent, { id }, context) => {
      try {
        return await changeRequestById(context.store, await libraryScope(context), id);
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    },
    list: async (_parent, { status }, context) => findChangeRequests(context.store, await libraryScope(context), status),
  },
  ChangeRequestMutationNamespace: {
    create: async (_parent, { input }, context) => createChangeRequest(context.store, await libraryScope(context), input),
    update: async (_parent, { input }, context) => updateChangeRequest(context.store, await libraryScope(context), input),
    submit: async (_parent, { id, comment }, context) => transitionChangeRequest(context.store, await libraryScope(context), id, 'submit', comment),
    approve: async (_parent, { id, comment }, context) => transitionChangeRequest(context.store, await libraryScope(context), id, 'approve', comment),
    reject: async (_parent, { id, comment }, context) => transitionChangeRequest(context.store, await libraryScope(context), id, 'reject', comment),
    defer: async (_parent, { id, comment }, context) => transitionChangeRequest(context.store, await libraryScope(context), id, 'defer', comment),
    close: async (_parent, { id, comment }, context) => transitionChangeRequest(context.store, await libraryScope(context), id, 'close', comment),
    promote: async (_parent, { ids, input }, context) => promoteChangeRequests(deps(context), await libraryScope(context), ids, input),
  },
  ChangeRequest: {
    components: async (record, _args, context) => (await Promise.all(record.componentIds.map((id) => loadComponent(context, id)))).filter((c) => c !== undefined),
    changeOrder: async (record, _args, context) => (record.changeOrderId ? ((await getChangeOrderById(context.store, await libraryScope(context), record.changeOrderId)) ?? null) : null),
    createdBy: (record, _args, context) => userById(context, record.createdBy),
  },
  ChangeRequestHistoryEntry: { by: (entry, _args, context) => userById(context, entry.by) },
  ChangeOrder: {
    changeRequests: async (record, _args, context) => changeRequestsOf(context.store, await libraryScope(context), record),
  },
};
