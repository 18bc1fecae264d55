import {
  createApiKey,
  deactivateApiKey,
  findApiKeyForUser,
  listApiKeysForUser,
  renameApiKey,
  rotateApiKey,
  type ApiKeyScope,
} from '../../../lib/apikeys/apiKeys.js';
import { NotFoundError } from '../../../lib/errors.js';
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
    create: async (_parent, { input }, context) => createApiKey(context.store, await keyScope(context), input),
    rotate: async (_parent, { input }, context) => rotateApiKey(context.store, await keyScope(context), input.id),
    deactivate: async (_parent, { input }, context) => deactivateApiKey(context.store, await keyScope(context), input.id),
    update: async (_parent, { input }, context) => renameApiKey(context.store, await keyScope(context), input.id, input.name),
  },
  ApiKey: {
    ownerId: (key) => key.ownerUserId,
  },
};
