import type { Resolvers } from '../generated/resolvers-types.js';
import { auditLogFilter } from './audit.js';
import { libraryScope, requireReadableSourcing, userById } from './shared.js';

/** Export, import jobs and the CSV parser and writer load on their first use, not with every request. */
const transfer = () => import('../../../lib/transfer/service.js');
const jobs = () => import('../../../lib/transfer/jobs.js');

export const transferResolvers: Resolvers = {
  TransferQueryNamespace: {
    importJob: async (_parent, { id }, context) => (await jobs()).findImportJob(context.store, await libraryScope(context), id),
    importJobs: async (_parent, _args, context) => (await jobs()).recentImportJobs(context.store, await libraryScope(context)),
  },
  TransferMutationNamespace: {
    exportLibrary: async (_parent, { input }, context) => {
      const [scope, principalId, orgPermissions] = await Promise.all([libraryScope(context), context.access.principal(), context.access.organizationPermissions()]);
      // An integration's export leaves out the values withheld from it, as its reads do; the audit entries
      // about the library go only to a caller who may read the audit log (organization.auditLog's permission).
      const auditEntries = orgPermissions.has('organization.settings.update');
      return (await transfer()).exportLibraryToFiles(context.store, context.blobs(), scope, input?.format ?? 'JSON', principalId, { auditEntries });
    },
    exportCostRollup: async (_parent, { input }, context) => {
      await requireReadableSourcing(context, 'exportCostRollup', ['sourcing.parts', 'sourcing.quotes']);
      return (await import('../../../lib/transfer/costRollupCsv.js')).exportCostRollup(context.store, context.blobs(), await libraryScope(context), input.componentId, input.quantity, input.currency);
    },
    exportAuditLog: async (_parent, { input }, context) =>
      (await import('../../../lib/audit/export.js')).exportAuditLogToFile(context.store, context.blobs(), await libraryScope(context), auditLogFilter(input?.filter), input?.format ?? 'JSONL'),
    importLibrary: async (_parent, { input }, context) => {
      const [scope, principalId] = await Promise.all([libraryScope(context), context.access.principal()]);
      return (await jobs()).enqueueLibraryImport(
        context.store,
        scope,
        {
          requireLibraryPermission: (permission) => context.access.requireLibraryPermission(permission),
          principalId,
          actingIntegrationId: context.access.actingIntegrationId,
          keyLibraryId: context.access.caller.kind === 'apiKey' ? context.access.caller.libraryId : null,
        },
        input,
      );
    },
  },
  LibraryImportJob: {
    progress: (job) => ({ components: job.components, itemsWritten: job.itemsWritten, itemsTotal: job.itemsTotal }),
    createdBy: (job, _args, context) => userById(context, job.createdBy),
    stale: async (job) => (await jobs()).isStaleImportJob(job),
  },
};
