import { entitlementsOf } from '../../../lib/orgs/plans.js';
import type { Resolvers } from '../generated/resolvers-types.js';

/** Export and import (CSV parser and writer included) load on their first use, not with every request. */
const transfer = () => import('../../../lib/transfer/service.js');
import { libraryScope } from './shared.js';

export const transferResolvers: Resolvers = {
  TransferMutationNamespace: {
    exportLibrary: async (_parent, { input }, context) => (await transfer()).exportLibraryToFiles(context.store, context.blobs(), await libraryScope(context), input?.format ?? 'JSON'),
    importLibrary: async (_parent, { input }, context) => {
      const [scope, principalId, { organization }] = await Promise.all([libraryScope(context), context.access.principal(), context.access.organization()]);
      const result = await (await transfer()).importLibraryFromFiles(
        context.store,
        context.blobs(),
        scope,
        {
          requireLibraryPermission: (permission) => context.access.requireLibraryPermission(permission),
          principalId,
          actingIntegrationId: context.access.actingIntegrationId,
          entitlements: entitlementsOf(organization),
        },
        input,
      );
      return { ...result, counts: { components: result.components, bomLines: result.bomLines, documentLinks: result.documentLinks, historyRecords: result.historyRecords } };
    },
  },
};
