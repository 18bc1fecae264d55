import { currentUser } from '../../../lib/accounts/me.js';
import { creationStanding, type CreationStanding } from '../../../lib/orgs/organizations.js';
import type { User } from '../../../lib/accounts/model.js';
import { PermissionDeniedError } from '../../../lib/errors.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { organizationReferences } from './shared.js';

/**
 * Another person's addresses, as a user reference inside an organization (createdBy, history, members...),
 * need organization.users.read there: every system organization role but SUPPLIER holds it. A SUPPLIER (or
 * a custom role without it) reads the id and names of the people behind the data, not their addresses:
 * primaryEmail is non-null in the spec, so it is refused with FORBIDDEN (requiredPermission
 * organization.users.read) and GraphQL nulls the nullable reference around it. One's own addresses are
 * always readable.
 */
async function assertMayReadAddresses(user: User, context: GraphQLContext): Promise<void> {
  if (!organizationReferences.has(user) || user.id === context.caller.userId) return;
  const permissions = await context.access.organizationPermissions();
  if (!permissions.has('organization.users.read')) throw new PermissionDeniedError('organization.users.read');
}

/**
 * Where the caller stands (user.me, user.orgCreationOptions): read once per request, with the organization
 * items the request's context already holds, so a document asking both costs one read of them.
 */
export function callerStanding(context: GraphQLContext): Promise<CreationStanding> {
  return context.once('creationStanding', () => creationStanding(context.store, context.caller.userId, process.env, (organizationId) => context.access.knownOrganization(organizationId)));
}

export const userResolvers: Resolvers = {
  UserQueryNamespace: {
    me: async (_parent, _args, context) => currentUser(await callerStanding(context)),
  },
  User: {
    primaryEmail: async (user, _args, context) => {
      await assertMayReadAddresses(user, context);
      return user.primaryEmail;
    },
    emails: async (user, _args, context) => {
      await assertMayReadAddresses(user, context);
      return user.emails;
    },
  },
};
