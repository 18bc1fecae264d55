import { archiveSandbox, createOrganization, discoverByDomain, sandboxesOf } from '../../../lib/orgs/organizations.js';
import { callerStanding } from './user.js';
import { invitationsOfOrganization } from '../../../lib/orgs/invitations.js';
import { entitlementsOf } from '../../../lib/orgs/plans.js';
import { organizationRoles } from '../../../lib/orgs/roles.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { requireInOrganization } from './access.js';
import { keyOrganizationOf } from './shared.js';
import type { CreationStanding } from '../../../lib/orgs/organizations.js';
import type { GraphQLContext } from '../context.js';

/** The sandbox parents the caller may see: through an API key, its organization's only. */
const visibleSandboxParents = (standing: CreationStanding, context: GraphQLContext) => {
  const organizationId = keyOrganizationOf(context);
  return organizationId ? standing.sandboxParents.filter((parent) => parent.organization.id === organizationId) : standing.sandboxParents;
};

export const organizationResolvers: Resolvers = {
  OrganizationQueryNamespace: {
    current: async (_parent, _args, { access }) => (await access.organization()).organization,
    discoverByDomain: (_parent, _args, { store, caller }) => discoverByDomain(store, caller.userId),
    sandboxes: async (_parent, _args, { store, access }) => sandboxesOf(store, (await access.organization()).organization),
  },
  OrganizationMutationNamespace: {
    create: (_parent, { input }, { store, caller }) => createOrganization(store, caller.userId, input),
    archiveSandboxOrganization: (_parent, { id }, { store, caller }) => archiveSandbox(store, caller.userId, id.trim()),
  },
  Organization: {
    isSandbox: (org) => org.type === 'SANDBOX',
    entitlements: (org) => ({ plan: org.plan, ...entitlementsOf(org) }),
    roles: async (org, _args, context) => {
      await requireInOrganization(context, org, 'roles.read');
      return organizationRoles(context.store, org.id);
    },
    invitations: async (org, _args, context) => {
      await requireInOrganization(context, org, 'organization.users.read');
      return invitationsOfOrganization(context.store, org.id, {});
    },
  },
  UserQueryNamespace: {
    orgCreationOptions: (_parent, _args, context) => callerStanding(context),
  },
  OrgCreationOptions: {
    canCreateProduction: (standing) => standing.canCreateOrg,
    canCreateSandbox: (standing, _args, context) => visibleSandboxParents(standing, context).some((parent) => parent.sandboxRemaining > 0),
    sandboxParents: (standing, _args, context) => visibleSandboxParents(standing, context),
  },
};
