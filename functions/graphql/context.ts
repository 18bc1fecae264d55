import type { Caller } from '../../lib/access/caller.js';
import type { RequestAccess } from '../../lib/access/requestAccess.js';
import type { BlobStorage } from '../../lib/files/blobStorage.js';
import type { Store } from '../../lib/store/client.js';

export interface GraphQLContext {
  store: Store;
  caller: Caller;
  access: RequestAccess;
  /** File bytes (S3 or the local stack's folder); created on first use. */
  blobs: () => BlobStorage;
  /** Faults the local test stack may inject (x-plm-fault header, only with PLM_FAULT_INJECTION=true). */
  faults: ReadonlySet<string>;
  /** Per-request memo: the same read (a user, the library configuration, the caller's pins) runs once. */
  once<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

export function requestMemo(): GraphQLContext['once'] {
  const cache = new Map<string, Promise<unknown>>();
  return <T>(key: string, compute: () => Promise<T>) => {
    let entry = cache.get(key) as Promise<T> | undefined;
    if (!entry) {
      entry = compute();
      cache.set(key, entry);
    }
    return entry;
  };
}
