import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from '../store/client.js';
import { getComponents, listPinnedIds, pinKey, type ComponentRecord } from '../store/component.js';
import { ComponentNotFoundError, TooManyInputsError } from './errors.js';

export type Mark = 'PIN' | 'BOOKMARK';

export interface UserLibraryScope {
  organizationId: string;
  libraryId: string;
  userId: string;
}

const maxIdsPerCall = 100;

async function batchWrite(store: Store, requests: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < requests.length; start += 25) {
    let pending = requests.slice(start, start + 25);
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 10));
      const result = await store.ddb.send(new BatchWriteCommand({ RequestItems: { [store.tableName]: pending } }));
      pending = (result.UnprocessedItems?.[store.tableName] as typeof pending | undefined) ?? [];
    }
  }
}

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
      PutRequest: { Item: { ...pinKey(scope.organizationId, scope.libraryId, kind, scope.userId, componentId), entity: kind === 'PIN' ? 'Pin' : 'Bookmark', componentId, at } },
    })),
  );
  return ids.map((id) => found.get(id)!);
}

/** Removes pins or bookmarks of the calling user; ids that were not marked are ignored. */
export async function unmarkComponents(store: Store, scope: UserLibraryScope, kind: Mark, ids: string[]): Promise<string[]> {
  if (ids.length > maxIdsPerCall) throw new TooManyInputsError(kind === 'PIN' ? 'component.unpin' : 'component.unbookmark', maxIdsPerCall, ids.length);
  const unique = [...new Set(ids)];
  await batchWrite(store, unique.map((componentId) => ({ DeleteRequest: { Key: pinKey(scope.organizationId, scope.libraryId, kind, scope.userId, componentId) } })));
  return unique;
}

/** Ids the calling user marked in this library (one Query). */
export async function markedIds(store: Store, scope: UserLibraryScope, kind: Mark): Promise<Set<string>> {
  return new Set((await listPinnedIds(store, scope.organizationId, scope.libraryId, kind, scope.userId)).map((p) => p.componentId));
}

/** The calling user's pinned components, most recently pinned first; pins of deleted components are skipped. */
export async function pinnedComponents(store: Store, scope: UserLibraryScope): Promise<ComponentRecord[]> {
  const pins = (await listPinnedIds(store, scope.organizationId, scope.libraryId, 'PIN', scope.userId)).sort((a, b) => b.at.localeCompare(a.at));
  const found = await getComponents(store, scope.organizationId, scope.libraryId, pins.map((p) => p.componentId));
  return pins.flatMap((pin) => (found.has(pin.componentId) ? [found.get(pin.componentId)!] : []));
}
