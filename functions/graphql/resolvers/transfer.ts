import { enqueueLibraryImport, findImportJob, isStaleImportJob, recentImportJobs } from '../../../lib/transfer/jobs.js';
import { exportLibraryToFiles } from '../../../lib/transfer/service.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope, userById } from './shared.js';

export const transferResolvers: Resolvers = {
  TransferQueryNamespace: {
    importJob: async (_parent, { id }, context) => findImportJob(context.store, await libraryScope(context), id),
    importJobs: async (_parent, _args, context) => recentImportJobs(context.store, await libraryScope(context)),
  },
  TransferMutationNamespace: {
    exportLibrary: async (_parent, { input }, context) => exportLibraryToFiles(context.store, context.blobs(), await libraryScope(context), input?.format ?? 'JSON'),
    importLibrary: async (_parent, { input }, context) => {
      const [scope, principalId] = await Promise.all([libraryScope(context), context.access.principal()]);
      return enqueueLibraryImport(
        context.store,
        scope,
        { requireLibraryPermission: (permission) => context.access.requireLibraryPermission(permission), principalId, actingIntegrationId: context.access.actingIntegrationId },
        input,
      );
    },
  },
  LibraryImportJob: {
    progress: (job) => ({ components: job.components, itemsWritten: job.itemsWritten, itemsTotal: job.itemsTotal }),
    createdBy: (job, _args, context) => userById(context, job.createdBy),
    stale: (job) => isStaleImportJob(job),
  },
};
