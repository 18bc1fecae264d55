import * as z from 'zod';
import type { Store } from './client.js';
import { queryPrefix } from './items.js';
import { libraryPartition } from './library.js';

/** A user's pins and bookmarks of components (`PIN#<userId>#<componentId>`, `BOOKMARK#…`). */

export const pinKey = (orgId: string, libraryId: string, kind: 'PIN' | 'BOOKMARK', userId: string, componentId: string) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `${kind}#${userId}#${componentId}`,
});

export function listPinnedIds(store: Store, orgId: string, libraryId: string, kind: 'PIN' | 'BOOKMARK', userId: string): Promise<{ componentId: string; at: string }[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), `${kind}#${userId}#`, z.object({ componentId: z.string(), at: z.string() }), 'pin');
}
