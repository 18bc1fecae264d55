import type { Resolvers } from '../generated/resolvers-types.js';

export const organizationResolvers: Resolvers = {
  OrganizationQueryNamespace: {
    current: async (_parent, _args, { access }) => (await access.organization()).organization,
  },
  Organization: {
    isSandbox: (org) => org.type === 'SANDBOX',
  },
};
