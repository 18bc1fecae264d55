import type { Caller } from '../../lib/access/caller.js';
import type { RequestAccess } from '../../lib/access/requestAccess.js';
import type { Store } from '../../lib/store/client.js';

export interface GraphQLContext {
  store: Store;
  caller: Caller;
  access: RequestAccess;
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
