import type { Store } from '../store/client.js';
import { getComponents, type ComponentRecord } from '../store/component.js';
import { listPinnedIds, pinKey } from '../store/pin.js';
import { batchWrite, deleteItems } from '../store/items.js';
import { ComponentNotFoundError } from '../errors.js';
import { TooManyInputsError } from './errors.js';

export type Mark = 'PIN' | 'BOOKMARK';

import type { LibraryScope as UserLibraryScope } from '../model/scope.js';
export type { UserLibraryScope };

const maxIdsPerCall = 100;

/** Pins or bookmarks components for the calling user (idempotent); every id must be a component of the library. */
export async function markComponents(store: Store, scope: UserLibraryScope, kind: Mark, ids: string[]): Promise<ComponentRecord[]> {
  if (ids.length > maxIdsPerCall) throw new TooManyInputsError(kind === 'PIN' ? 'component.pin' : 'component.bookmark', maxIdsPerCall, ids.length);
  const found = await getComponents(store, scope.organizationId, scope.libraryId, ids);
  ids.forEach((id, index) => {
    if (!found.has(id)) throw new ComponentNotFoundError(id, index);
  });
  const at = new Date().toISOString();
  await batchWrite(
    store,
    [...found.keys()].map((componentId) => ({
      put: { ...pinKey(scope.organizationId, scope.libraryId, kind, scope.userId, componentId), entity: kind === 'PIN' ? 'Pin' : 'Bookmark', componentId, at },
    })),
  );
  return ids.map((id) => found.get(id)!);
}

/** Removes pins or bookmarks of the calling user; ids that were not marked are ignored. */
export async function unmarkComponents(store: Store, scope: UserLibraryScope, kind: Mark, ids: string[]): Promise<string[]> {
  if (ids.length > maxIdsPerCall) throw new TooManyInputsError(kind === 'PIN' ? 'component.unpin' : 'component.unbookmark', maxIdsPerCall, ids.length);
  const unique = [...new Set(ids)];
  await deleteItems(
    store,
    unique.map((componentId) => pinKey(scope.organizationId, scope.libraryId, kind, scope.userId, componentId)),
  );
  return unique;
}

/** Ids the calling user marked in this library (one Query). */
export async function markedIds(store: Store, scope: UserLibraryScope, kind: Mark): Promise<Set<string>> {
  return new Set((await listPinnedIds(store, scope.organizationId, scope.libraryId, kind, scope.userId)).map((p) => p.componentId));
}

/** The calling user's pinned components, most recently pinned first; pins of deleted components are skipped. */
export async function pinnedComponents(store: Store, scope: UserLibraryScope): Promise<ComponentRecord[]> {
  const pins = (await listPinnedIds(store, scope.organizationId, scope.libraryId, 'PIN', scope.userId)).sort((a, b) => b.at.localeCompare(a.at));
  const found = await getComponents(
    store,
    scope.organizationId,
    scope.libraryId,
    pins.map((p) => p.componentId),
  );
  return pins.flatMap((pin) => (found.has(pin.componentId) ? [found.get(pin.componentId)!] : []));
}
