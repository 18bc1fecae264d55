import {
  createApiKey,
  deactivateApiKey,
  findApiKeyForUser,
  listApiKeysForUser,
  renameApiKey,
  rotateApiKey,
  type ApiKeyScope,
} from '../../../lib/apikeys/apiKeys.js';
import { IntegrationAccessError, InvalidInputError, NotFoundError } from '../../../lib/errors.js';
import { findPrincipal } from '../../../lib/integrations/principals.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';

async function keyScope({ access, caller }: GraphQLContext): Promise<ApiKeyScope> {
  const { organization, library } = await access.library();
  return { organizationId: organization.id, libraryId: library.id, userId: caller.userId };
}

export const apiKeyResolvers: Resolvers = {
  ApiKeyQueryNamespace: {
    findAllForUser: async (_parent, { input }, context) => {
      const keys = await listApiKeysForUser(context.store, await keyScope(context));
      return input?.status ? keys.filter((key) => key.status === input.status) : keys;
    },
    findOneForUser: async (_parent, { input }, context) => {
      try {
        return await findApiKeyForUser(context.store, await keyScope(context), input.id);
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    },
  },
  ApiKeyMutationNamespace: {
    create: async (_parent, { input }, context) => {
      const { integrationId, ...fields } = input;
      if (integrationId === undefined || integrationId === null) return createApiKey(context.store, await keyScope(context), fields);
      // A key that acts as an integration: only someone who configures integrations makes one.
      await context.access.requireLibraryPermission('integrations.configure');
      const scope = await keyScope(context);
      const integration = await findPrincipal(context.store, scope.organizationId, integrationId);
      if (integration.isNative) throw new InvalidInputError('integrationId: people act as the native principal already; omit integrationId', { field: 'input.integrationId' });
      if (integration.disabled) throw new IntegrationAccessError('INTEGRATION_DISABLED', `Integration ${integration.name} is disabled`, { integrationId });
      return createApiKey(context.store, scope, fields, integration.id);
    },
    rotate: async (_parent, { input }, context) => rotateApiKey(context.store, await keyScope(context), input.id),
    deactivate: async (_parent, { input }, context) => deactivateApiKey(context.store, await keyScope(context), input.id),
    update: async (_parent, { input }, context) => renameApiKey(context.store, await keyScope(context), input.id, input.name),
  },
  ApiKey: {
    ownerId: (key) => key.ownerUserId,
  },
};
