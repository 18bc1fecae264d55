import { nativePrincipalId } from '../../../lib/model/attributeAccess.js';
import { createIntegration, listPrincipals, updateIntegration } from '../../../lib/integrations/principals.js';
import { accessPolicyOf, reconcile, recommendedAttributes, setAttributeAccess, setComponentLink } from '../../../lib/integrations/service.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { attributeChanges, libraryScope, principalById, writeContext } from './shared.js';

async function organizationId(context: GraphQLContext): Promise<string> {
  return (await context.access.organization()).organization.id;
}

export const integrationResolvers: Resolvers = {
  IntegrationQueryNamespace: {
    findAll: async (_parent, { includeDisabled }, context) => listPrincipals(context.store, await organizationId(context), includeDisabled !== false),
    findOne: async (_parent, { id }, context) => principalById(context, await organizationId(context), id),
  },
  IntegrationMutationNamespace: {
    create: async (_parent, { input }, context) => createIntegration(context.store, await organizationId(context), context.caller.userId, input),
    update: async (_parent, { input }, context) => updateIntegration(context.store, await organizationId(context), input),
  },
  Query: {
    recommendedAttributes: async (_parent, { principalId }, context) => {
      const scope = await libraryScope(context);
      return recommendedAttributes(context.store, scope.organizationId, scope.libraryId, principalId ?? (await context.access.principal()));
    },
    accessPolicy: async (_parent, _args, context) => {
      const scope = await libraryScope(context);
      const { version, entries } = await accessPolicyOf(context.store, scope.organizationId, scope.libraryId);
      return { version, entries };
    },
  },
  Mutation: {
    setAttributeAccess: async (_parent, { entries }, context) => setAttributeAccess(context.store, await libraryScope(context), entries),
    linkComponent: async (_parent, { componentId, principalId }, context) => setComponentLink(context.store, await writeContext(context), componentId, principalId, true),
    unlinkComponent: async (_parent, { componentId, principalId }, context) => setComponentLink(context.store, await writeContext(context), componentId, principalId, false),
    reconcile: async (_parent, { input }, context) => {
      const { componentId, attributeValues, documentFormats, ...fields } = input;
      const result = await reconcile(context.store, await writeContext(context), {
        ...fields,
        componentId,
        documentFormats: Object.hasOwn(input, 'documentFormats') ? documentFormats : undefined,
        attributeValues: attributeChanges(attributeValues),
      });
      return { component: result.component, applied: result.applied, refused: result.refused };
    },
  },
  Integration: {
    isNative: (principal) => principal.id === nativePrincipalId,
  },
};
