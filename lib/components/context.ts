import type { RequestAccess } from '../access/requestAccess.js';
import { loadLibraryConfiguration, type LibraryConfiguration } from '../config/libraryConfig.js';
import { checkFilesReady } from '../files/files.js';
import { entitlementsOf } from '../orgs/plans.js';
import type { Store } from '../store/client.js';
import { nowIso } from '../store/items.js';
import type { WriteContext } from './rules.js';

/**
 * What a component write is checked against: the library's configuration, the plan, the caller's
 * permissions. loadConfig lets a request that already read the configuration share that read.
 */
export async function componentWriteContext(
  store: Store,
  access: RequestAccess,
  loadConfig: (organizationId: string, libraryId: string) => Promise<LibraryConfiguration> = (org, lib) => loadLibraryConfiguration(store, org, lib),
): Promise<WriteContext> {
  const { organization, library } = await access.library();
  const [config, permissions] = await Promise.all([loadConfig(organization.id, library.id), access.libraryPermissions()]);
  return {
    organizationId: organization.id,
    libraryId: library.id,
    userId: access.caller.userId,
    at: nowIso(),
    config,
    entitlements: entitlementsOf(organization),
    permissions,
    principalId: await access.principal(),
    actingIntegrationId: access.actingIntegrationId,
    checkFiles: (fileIds) => checkFilesReady(store, { organizationId: organization.id, libraryId: library.id }, fileIds),
  };
}
