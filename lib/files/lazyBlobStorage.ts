import type { BlobStorage } from './blobStorage.js';

/** The storage the environment configures (blobStorageFromEnv builds it); throws when there is none. */
export function blobStorageConfig(env: NodeJS.ProcessEnv = process.env): { bucket: string } | { directory: string; baseUrl: string; signingSecret: string } {
  if (env.FILES_BUCKET) return { bucket: env.FILES_BUCKET };
  if (env.FILES_DIR && env.FILES_BASE_URL && env.FILES_SIGNING_SECRET) return { directory: env.FILES_DIR, baseUrl: env.FILES_BASE_URL, signingSecret: env.FILES_SIGNING_SECRET };
  throw new Error('No file storage configured: set FILES_BUCKET (deployed) or FILES_DIR, FILES_BASE_URL and FILES_SIGNING_SECRET (local stack)');
}

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
