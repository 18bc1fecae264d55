import type { Store } from '../../store/client.js';
import { listComponents, type ComponentRecord } from '../../store/component.js';
import { conditionalWrites, putIf } from '../../store/items.js';
import { searchEntryPut } from '../entries.js';
import type { LibraryRef } from './storage.js';

/**
 * Puts a search entry for every component of the library, as its writes would have: for a library whose
 * components were written before their search entries existed, or to rebuild the index. Searches fold
 * the entries into blocks as usual. An entry is written only if no newer one (nor a tombstone) is there,
 * so a concurrent write or delete is never undone. Reads every component once: an operator's tool, not a request path.
 */
export async function reindexLibrary(store: Store, library: LibraryRef): Promise<number> {
  const components = (await listComponents(store, library.organizationId, library.libraryId)).filter((c) => !c.writeId);
  let next = 0;
  let written = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < components.length; i = next++) {
        if (await putSearchEntryIfNewer(store, components[i]!)) written += 1;
      }
    }),
  );
  return written;
}

/**
 * Writes a component's search entry unless a newer one (or a tombstone) is there, so a concurrent write or
 * delete is never undone. False when a newer entry won.
 */
export function putSearchEntryIfNewer(store: Store, component: ComponentRecord): Promise<boolean> {
  return putIf(store, searchEntryIfNewer(component).Put);
}

/** The search entries of these components, each unless a newer entry or a tombstone is there, 100 to a transaction (settling a large write). */
export function putSearchEntriesIfNewer(store: Store, components: ComponentRecord[]): Promise<void> {
  return conditionalWrites(store, components.map(searchEntryIfNewer));
}

function searchEntryIfNewer(component: ComponentRecord) {
  const { Put } = searchEntryPut(component);
  return {
    Put: {
      Item: Put.Item,
      ConditionExpression: 'attribute_not_exists(version) OR (version <= :version AND deleted = :false)',
      ExpressionAttributeValues: { ':version': Put.Item.version, ':false': false },
    },
  };
}
