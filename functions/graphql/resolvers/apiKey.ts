import { createApiKey, deactivateApiKey, findApiKeyForUser, listApiKeysForUser, renameApiKey, rotateApiKey, type ApiKeyScope, type CallingKey } from '../../../lib/apikeys/apiKeys.js';
import { ApiKeyRoleForbiddenError, IntegrationAccessError, InvalidInputError, NotFoundError } from '../../../lib/errors.js';
import { findPrincipal } from '../../../lib/integrations/principals.js';
import { findRole } from '../../../lib/access/effective.js';
import { assertHoldsAll } from '../../../lib/orgs/roles.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';

async function keyScope({ access, caller }: GraphQLContext): Promise<ApiKeyScope> {
  const { organization, library } = await access.library();
  return { organizationId: organization.id, libraryId: library.id, userId: caller.userId };
}

/** The request's own key when it acts with a role: it sees and manages only keys no stronger than itself. */
const callingKey = ({ access, caller }: GraphQLContext): CallingKey => (caller.kind === 'apiKey' && access.actsWithKeyRole ? { integrationId: caller.integrationId, roleId: caller.roleId } : null);

/**
 * The role a new key acts with: the one named (system or custom), which the creator must hold entirely
 * (403 FORBIDDEN naming the first permission missing), or none.
 */
async function chosenRole(context: GraphQLContext, roleId: string | null | undefined): Promise<string | null> {
  if (roleId === undefined || roleId === null) return null;
  const { organization, library } = await context.access.library();
  const role = await findRole(context.store, organization.id, roleId.trim());
  if (!role) throw new InvalidInputError(`input.roleId: no role "${roleId}" in this organization`, { field: 'input.roleId' });
  const effective = await context.access.effective();
  assertHoldsAll(new Set([...effective.organizationPermissions(), ...effective.libraryPermissions(library.id)]), role.permissions);
  return role.id;
}

export const apiKeyResolvers: Resolvers = {
  ApiKeyQueryNamespace: {
    findAllForUser: async (_parent, { input }, context) => {
      const keys = await listApiKeysForUser(context.store, await keyScope(context), callingKey(context));
      return input?.status ? keys.filter((key) => key.status === input.status) : keys;
    },
    findOneForUser: async (_parent, { input }, context) => {
      try {
        return await findApiKeyForUser(context.store, await keyScope(context), input.id, callingKey(context));
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    },
  },
  ApiKeyMutationNamespace: {
    create: async (_parent, { input }, context) => {
      const { integrationId, roleId, ...fields } = input;
      // A key with a role (every integration's key) never makes keys: a new one could be stronger than itself.
      if (context.access.actsWithKeyRole) throw new ApiKeyRoleForbiddenError('Creating an API key');
      if (integrationId === undefined || integrationId === null) return createApiKey(context.store, await keyScope(context), fields, null, await chosenRole(context, roleId));
      // A key that acts as an integration: only someone who configures integrations makes one.
      await context.access.requireLibraryPermission('integrations.configure');
      const scope = await keyScope(context);
      const integration = await findPrincipal(context.store, scope.organizationId, integrationId);
      if (integration.isNative) throw new InvalidInputError('integrationId: people act as the native principal already; omit integrationId', { field: 'input.integrationId' });
      if (integration.disabled) throw new IntegrationAccessError('INTEGRATION_DISABLED', `Integration ${integration.name} is disabled`, { integrationId });
      return createApiKey(context.store, scope, fields, integration.id, await chosenRole(context, roleId));
    },
    rotate: async (_parent, { input }, context) => rotateApiKey(context.store, await keyScope(context), input.id, callingKey(context)),
    deactivate: async (_parent, { input }, context) => deactivateApiKey(context.store, await keyScope(context), input.id, callingKey(context)),
    update: async (_parent, { input }, context) => renameApiKey(context.store, await keyScope(context), input.id, input.name, callingKey(context)),
  },
  ApiKey: {
    ownerId: (key) => key.ownerUserId,
  },
};
