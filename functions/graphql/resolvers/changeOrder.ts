import type { ChangeOrderDeps } from '../../../lib/changeOrders/act.js';
import {
  closeChangeOrder,
  createChangeOrder,
  decide,
  deleteChangeOrder,
  holdChangeOrder,
  resetChangeOrder,
  submitChangeOrder,
  updateChangeOrder,
  withdrawChangeOrder,
} from '../../../lib/changeOrders/actions.js';
import { changeOrderImpact } from '../../../lib/changeOrders/impact.js';
import { changeOrderById, findChangeOrders } from '../../../lib/changeOrders/queries.js';
import { componentsOf, redlinesOf } from '../../../lib/changeOrders/redlines.js';
import { validateChangeOrder } from '../../../lib/changeOrders/validation.js';
import { createTemplate, getTemplates } from '../../../lib/changeOrders/templates.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope, loadComponent, userById } from './shared.js';

const deps = (context: GraphQLContext): ChangeOrderDeps => ({
  store: context.store,
  failRelease: context.faults.has('change-order-release-fails'),
  crashRelease: context.faults.has('change-order-release-crash'),
  crashAfterCommit: context.faults.has('change-order-crash-after-commit'),
});
const user = (context: GraphQLContext, id: string) => userById(context, id);

export const changeOrderResolvers: Resolvers = {
  ChangeOrderQueryNamespace: {
    getTemplates: async (_parent, _args, context) => getTemplates(context.store, await libraryScope(context)),
    get: async (_parent, { filter, pagination }, context) => findChangeOrders(context.store, await libraryScope(context), filter ?? {}, pagination ?? {}),
    validate: async (_parent, { id }, context) => {
      const scope = await libraryScope(context);
      return validateChangeOrder(context.store, scope, await changeOrderById(context.store, scope, id));
    },
    impact: async (_parent, { id }, context) => {
      const scope = await libraryScope(context);
      return changeOrderImpact(context.store, scope, await changeOrderById(context.store, scope, id));
    },
  },
  ChangeOrderMutationNamespace: {
    createTemplate: async (_parent, { input }, context) => createTemplate(context.store, await libraryScope(context), input),
    create: async (_parent, { input }, context) => createChangeOrder(deps(context), await libraryScope(context), input),
    update: async (_parent, { input }, context) => updateChangeOrder(deps(context), await libraryScope(context), input),
    delete: async (_parent, { id }, context) => deleteChangeOrder(deps(context), await libraryScope(context), id),
    // Submitting sends the components to release on the last approval: the submitter's authority to release.
    submit: async (_parent, { id }, context) => {
      await context.access.requireLibraryPermission('change_orders.release');
      return submitChangeOrder(deps(context), await libraryScope(context), id);
    },
    approve: async (_parent, { id, comment }, context) => decide(deps(context), await libraryScope(context), id, 'APPROVE', comment),
    reject: async (_parent, { id, comment }, context) => decide(deps(context), await libraryScope(context), id, 'REJECT', comment),
    withdraw: async (_parent, { id }, context) => withdrawChangeOrder(deps(context), await libraryScope(context), id),
    hold: async (_parent, { id }, context) => holdChangeOrder(deps(context), await libraryScope(context), id, true),
    resume: async (_parent, { id }, context) => holdChangeOrder(deps(context), await libraryScope(context), id, false),
    close: async (_parent, { id }, context) => closeChangeOrder(deps(context), await libraryScope(context), id),
    reset: async (_parent, { id }, context) => resetChangeOrder(deps(context), await libraryScope(context), id),
  },
  ChangeOrderTemplate: {
    template: (template) => template.document,
    version: (template) => template.document.version,
    description: (template) => template.document.description,
    stageNames: (template) => template.document.stages.open.map((stage) => stage.name),
    createdBy: (template, _args, context) => (template.createdBy ? user(context, template.createdBy) : null),
  },
  ChangeOrder: {
    createdBy: (record, _args, context) => user(context, record.createdBy),
    components: (record) => componentsOf(record),
    impact: async (record, _args, context) => changeOrderImpact(context.store, await libraryScope(context), record),
  },
  ChangeOrderProblem: { component: async (problem, _args, context) => (problem.componentId ? ((await loadComponent(context, problem.componentId)) ?? null) : null) },
  ComponentImpact: { component: async (impact, _args, context) => (await loadComponent(context, impact.componentId)) ?? null },
  ImpactedAssembly: { assembly: async (entry, _args, context) => (await loadComponent(context, entry.assemblyId)) ?? null },
  ChangeOrderReviewer: { user: (reviewer, _args, context) => user(context, reviewer.userId) },
  ChangeOrderDecisionEntry: { user: (decision, _args, context) => user(context, decision.userId) },
  ChangeOrderHistoryEntry: { by: (entry, _args, context) => user(context, entry.by) },
  ChangeOrderComponent: {
    component: async (entry, _args, context) => (await loadComponent(context, entry.componentId)) ?? null,
    changes: async (entry, _args, context) => redlinesOf(context.store, await libraryScope(context), entry),
  },
};
