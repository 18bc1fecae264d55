import { createTemplate, getTemplates } from '../../../lib/changeOrders/templates.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope, userById } from './shared.js';

export const changeOrderResolvers: Resolvers = {
  ChangeOrderQueryNamespace: {
    getTemplates: async (_parent, _args, context) => getTemplates(context.store, await libraryScope(context)),
  },
  ChangeOrderMutationNamespace: {
    createTemplate: async (_parent, { input }, context) => createTemplate(context.store, await libraryScope(context), input),
  },
  ChangeOrderTemplate: {
    template: (template) => template.document,
    version: (template) => template.document.version,
    description: (template) => template.document.description,
    stageNames: (template) => template.document.stages.open.map((stage) => stage.name),
    createdBy: (template, _args, context) => (template.createdBy ? userById(context, template.createdBy) : null),
  },
};
