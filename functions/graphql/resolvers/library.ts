import { createLibrary, librariesOfOrganization, libraryStats } from '../../../lib/orgs/libraries.js';
import type { Resolvers } from '../generated/resolvers-types.js';

export const libraryResolvers: Resolvers = {
  Query: {
    // Every member may ask; each library is listed only if the caller may read it (a library role can be
    // someone's only grant).
    libraries: async (_parent, _args, { store, access }) => {
      const [{ organization }, effective] = await Promise.all([access.organization(), access.effective()]);
      const libraries = await librariesOfOrganization(store, organization.id);
      return libraries.filter((library) => effective.libraryPermissions(library.id).has('library.read'));
    },
  },
  LibraryMutationNamespace: {
    create: async (_parent, { input }, { store, access, caller }) => createLibrary(store, (await access.organization()).organization.id, input, caller.userId),
  },
  Library: {
    path: async (library, _args, { access }) => `@${(await access.organization()).organization.slug}/${library.slug}`,
    stats: (library, _args, { store }) => libraryStats(store, library),
  },
};
