import { samlProvidersFromEnv, type SamlProviderRegistry } from '../../../lib/saml/providers.js';
import { configureSaml } from '../../../lib/saml/configuration.js';
import { configureScim, createScimToken, liveScimTokens, revokeScimToken } from '../../../lib/scim/settings.js';
import { findOrganization } from '../../../lib/orgs/organizations.js';
import type { Resolvers } from '../generated/resolvers-types.js';

let samlProviders: SamlProviderRegistry | undefined;

/** SAML configuration, configureScim and the SCIM token (README: SCIM provisioning). */
export const scimResolvers: Resolvers = {
  SamlQueryNamespace: {
    configuration: async (_parent, _args, { store, access }) => (await findOrganization(store, (await access.organization()).organization.id))?.saml ?? null,
  },
  SamlMutationNamespace: {
    configure: async (_parent, { input }, { store, access }) => configureSaml(store, (samlProviders ??= samlProvidersFromEnv()), (await access.organization()).organization, input),
  },
  ScimTokenQueryNamespace: {
    tokens: async (_parent, _args, { store, access }) => liveScimTokens(store, (await access.organization()).organization.id),
  },
  ScimTokenMutationNamespace: {
    create: async (_parent, _args, { store, access, caller }) => createScimToken(store, (await access.organization()).organization, caller.userId),
    revoke: async (_parent, { id }, { store, access }) => revokeScimToken(store, (await access.organization()).organization, id),
  },
  Mutation: {
    configureScim: async (_parent, { enabled }, { store, access }) => {
      const [{ organization }, effective] = await Promise.all([access.organization(), access.effective()]);
      return configureScim(store, organization, effective, enabled);
    },
  },
  ScimToken: {
    status: (token) => (token.status === 'ACTIVE' ? 'ACTIVE' : 'RETIRING'),
  },
};
