import { blobStorageConfig, type BlobStorage } from './port.js';

/**
 * blobStorageFromEnv's storage with its code (blobStorage.ts) loaded on the first file operation: the GraphQL
 * function's cold start does not load it (issue 25). The configuration is checked at once, as
 * blobStorageFromEnv checks it.
 */
export function lazyBlobStorageFromEnv(env: NodeJS.ProcessEnv = process.env): BlobStorage {
  blobStorageConfig(env);
  let storage: Promise<BlobStorage> | undefined;
  const load = () => (storage ??= import('./blobStorage.js').then(({ blobStorageFromEnv }) => blobStorageFromEnv(env)));
  return {
    createUpload: async (key, file) => (await load()).createUpload(key, file),
    inspect: async (key) => (await load()).inspect(key),
    downloadUrl: async (key, fileName) => (await load()).downloadUrl(key, fileName),
    put: async (key, bytes, contentType) => (await load()).put(key, bytes, contentType),
    get: async (key) => (await load()).get(key),
  };
}
