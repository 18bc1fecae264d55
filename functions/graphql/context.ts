import type { Caller } from '../../lib/access/caller.js';
import type { RequestAccess } from '../../lib/access/requestAccess.js';
import type { BlobStorage } from '../../lib/files/port.js';
import type { Mailer } from '../../lib/mail/mailer.js';
import type { Store } from '../../lib/store/client.js';

export interface GraphQLContext {
  store: Store;
  caller: Caller;
  access: RequestAccess;
  /** File bytes (S3 or the local stack's folder); created on first use. */
  blobs: () => BlobStorage;
  /** Outbound mail (created on first use) and APP_URL, the web application that emailed links point at. */
  mail: { mailer: () => Mailer; appUrl: string };
  /** Faults the local test stack may inject (x-plm-fault header, only with PLM_FAULT_INJECTION=true). */
  faults: ReadonlySet<string>;
  /** Per-request memo: the same read (a user, the library configuration, the caller's pins) runs once. */
  once<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /**
   * Per-request batching: every key asked of the named loader in the same tick is read in one call of
   * loadMany (e.g. one BatchGetItem for all the children of a BOM).
   */
  batched<V>(name: string, key: string, loadMany: (keys: string[]) => Promise<Map<string, V>>): Promise<V | undefined>;
}

export function requestBatches(): GraphQLContext['batched'] {
  const loaders = new Map<string, { keys: Set<string>; results?: Promise<Map<string, unknown>> }>();
  return async <V>(name: string, key: string, loadMany: (keys: string[]) => Promise<Map<string, V>>) => {
    let loader = loaders.get(name);
    if (!loader) {
      loader = { keys: new Set() };
      loaders.set(name, loader);
    }
    const current = loader;
    current.keys.add(key);
    current.results ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const keys = [...current.keys];
      current.keys = new Set();
      current.results = undefined;
      return loadMany(keys) as Promise<Map<string, unknown>>;
    });
    return (await current.results).get(key) as V | undefined;
  };
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
