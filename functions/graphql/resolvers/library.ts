import { createLibrary, librariesOfOrganization, libraryStats } from '../../../lib/orgs/libraries.js';
import type { Resolvers } from '../generated/resolvers-types.js';

export const libraryResolvers: Resolvers = {
  Query: {
    libraries: async (_parent, _args, { store, access }) => librariesOfOrganization(store, (await access.organization()).organization.id),
  },
  LibraryMutationNamespace: {
    create: async (_parent, { input }, { store, access, caller }) =>
      createLibrary(store, (await access.organization()).organization.id, input, caller.userId),
  },
  Library: {
    path: async (library, _args, { access }) => `@${(await access.organization()).organization.slug}/${library.slug}`,
    stats: (library, _args, { store }) => libraryStats(store, library),
  },
};
