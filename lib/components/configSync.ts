import { findCategory, findStatus, loadLibraryConfiguration, writeLibraryConfig, type LibraryConfiguration } from '../config/libraryConfig.js';
import type { Store } from '../store/client.js';
import { listComponents, type ComponentRecord } from '../store/component.js';
import { componentResyncPut } from '../store/componentWrites.js';
import { transactWrite } from '../store/items.js';
import { searchEntryPut } from '../search/entries.js';
import { updateConfigSync, type ConfigType, type LibraryConfigRecord } from '../store/libraryConfig.js';

class ComponentChangedSinceReadError extends Error {}

/** What a component should carry of the current statuses and categories, or null when it already does. */
function resynced(record: ComponentRecord, config: LibraryConfiguration): ComponentRecord | null {
  const status = findStatus(config, record.statusId);
  const category = findCategory(config, record.categoryId);
  const nextStatus = status ? { name: status.name, color: status.color, mapsTo: status.mapsTo } : record.status;
  const nextCategory = category ? { name: category.name, type: category.type, prefix: category.prefix } : record.category;
  if (JSON.stringify(nextStatus) === JSON.stringify(record.status) && JSON.stringify(nextCategory) === JSON.stringify(record.category)) return null;
  return { ...record, status: nextStatus, category: nextCategory };
}

/**
 * Brings the status and category names copied onto components up to date with the configuration, and
 * records progress in the configuration's sync status. Idempotent: running it again (for example through
 * config.manuallyProcessCategoriesConfig after an interruption) only rewrites components still stale. Each
 * rewrite is conditional on the component's version, so it never overwrites a concurrent edit; a component
 * edited meanwhile was written with the current configuration already. The copies are not user-visible
 * changes: no version or history record.
 */
export async function syncComponentsWithConfig(store: Store, orgId: string, libraryId: string, type: ConfigType): Promise<LibraryConfigRecord> {
  const config = await loadLibraryConfiguration(store, orgId, libraryId);
  const record = config.records[type];
  const progress = { syncStatus: 'PROCESSING' as const, syncedVersion: record.syncedVersion, syncComponentsUpdated: 0, syncError: null };
  await updateConfigSync(store, orgId, libraryId, type, record.version, progress);
  let updated = 0;
  try {
    const stale = (await listComponents(store, orgId, libraryId)).flatMap((component) => {
      const next = resynced(component, config);
      return next ? [next] : [];
    });
    for (const component of stale) {
      try {
        await transactWrite(store, [componentResyncPut(component, () => new ComponentChangedSinceReadError()), searchEntryPut(component)]);
        updated += 1;
      } catch (error) {
        // A component changed since it was read was written with the new configuration already.
        if (!(error instanceof ComponentChangedSinceReadError)) throw error;
      }
    }
  } catch (error) {
    const failed = { syncStatus: 'FAILED' as const, syncedVersion: record.syncedVersion, syncComponentsUpdated: updated, syncError: (error as Error).message };
    await updateConfigSync(store, orgId, libraryId, type, record.version, failed);
    throw error;
  }
  const done = { syncStatus: 'SYNCED' as const, syncedVersion: record.version, syncComponentsUpdated: updated, syncError: null };
  await updateConfigSync(store, orgId, libraryId, type, record.version, done);
  return { ...record, ...done };
}

/** Stores a configuration document and, for statuses and categories, syncs the components to it. */
export async function setLibraryConfig(
  store: Store,
  scope: { organizationId: string; libraryId: string; userId: string },
  type: ConfigType,
  document: unknown,
  expectedVersion: number | null | undefined,
): Promise<LibraryConfigRecord> {
  const record = await writeLibraryConfig(store, scope.organizationId, scope.libraryId, type, document, expectedVersion, scope.userId);
  if (record.syncStatus === 'SYNCED') return record;
  return syncComponentsWithConfig(store, scope.organizationId, scope.libraryId, type);
}

/** config.manuallyProcessCategoriesConfig: (re)runs the categories sync. */
export function processCategoriesConfig(store: Store, scope: { organizationId: string; libraryId: string }): Promise<LibraryConfigRecord> {
  return syncComponentsWithConfig(store, scope.organizationId, scope.libraryId, 'CATEGORIES');
}
