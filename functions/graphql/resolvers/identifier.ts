import { overridePermissions, reusableGroupInstances, validateCompleteOverride, validateFreeformOverride, validateOverrides, type IdentifierScope } from '../../../lib/components/identifiers.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryConfig, libraryScope } from './shared.js';

async function identifierScope(context: GraphQLContext): Promise<IdentifierScope> {
  const [scope, config] = await Promise.all([libraryScope(context), libraryConfig(context)]);
  return { store: context.store, organizationId: scope.organizationId, libraryId: scope.libraryId, config };
}

export const identifierResolvers: Resolvers = {
  IdentifierQueryNamespace: {
    validateCompleteOverride: async (_parent, { overrides, componentId }, context) => validateCompleteOverride(await identifierScope(context), overrides, componentId),
    validateOverrides: async (_parent, { overrides }, context) => ({ ...validateOverrides(await identifierScope(context), overrides), message: null, isUnique: null }),
    overridePermissions: async (_parent, _args, context) => overridePermissions(await libraryConfig(context), (await context.access.libraryPermissions()).has('components.update')),
    reusableGroupInstances: async (_parent, { configId, groupName, filters }, context) => reusableGroupInstances(await identifierScope(context), configId, groupName, filters ?? []),
    validateFreeformOverride: async (_parent, { value, componentId }, context) => ({
      ...(await validateFreeformOverride(await identifierScope(context), value, componentId)),
      errors: [],
    }),
  },
};
