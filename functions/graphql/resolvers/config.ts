import { assertMayConfigure } from '../../../lib/access/componentAccess.js';
import { processCategoriesConfig, setLibraryConfig } from '../../../lib/components/configSync.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryConfig, libraryScope, userById } from './shared.js';

export const configResolvers: Resolvers = {
  Query: {
    customStatuses: async (_parent, { filter }, context) =>
      (await libraryConfig(context)).statuses.statuses.filter((s) => (filter?.includeArchived || !s.archived) && (!filter?.mapsTo?.length || filter.mapsTo.includes(s.mapsTo))),
    configs: async (_parent, { filter }, context) => {
      const { records } = await libraryConfig(context);
      return Object.values(records).filter((r) => !filter?.types?.length || filter.types.includes(r.type));
    },
    configSyncStatus: async (_parent, { type }, context) => (await libraryConfig(context)).records[type],
  },
  CategoryQueryNamespace: {
    findAll: async (_parent, { filter }, context) =>
      (await libraryConfig(context)).categories.categories.filter(
        (c) => (filter?.includeArchived || !c.archived) && (!filter?.type || c.type === filter.type) && (!filter?.ids?.length || filter.ids.includes(c.id)),
      ),
  },
  ConfigMutationNamespace: {
    setLibraryConfig: async (_parent, { input }, context) => {
      assertMayConfigure(await context.access.libraryPermissions(), input.type);
      return setLibraryConfig(context.store, await libraryScope(context), input.type, input.document, input.expectedVersion);
    },
    manuallyProcessCategoriesConfig: async (_parent, _args, context) => processCategoriesConfig(context.store, await libraryScope(context)),
  },
  Config: {
    id: (record) => record.type,
    updatedBy: (record, _args, context) => (record.updatedBy === 'system' ? null : userById(context, record.updatedBy)),
  },
  ConfigSyncStatus: {
    status: (record) => record.syncStatus,
    configVersion: (record) => record.version,
    componentsUpdated: (record) => record.syncComponentsUpdated,
    error: (record) => record.syncError,
    updatedAt: (record) => record.syncUpdatedAt,
  },
};
