/**
 * The file storage port: what the domain asks of the place file bytes live, and which place the environment
 * configures. The adapters (S3, a local folder) are in blobStorage.ts; lazyBlobStorage.ts loads them on first use.
 */

export interface UploadTarget {
  url: string;
  method: 'PUT';
  /** Headers the upload request must carry exactly (content type, length, checksum). */
  headers: Record<string, string>;
  expiresAt: string;
}

export interface StoredObject {
  size: number;
  sha256: string;
}

/** Where file bytes live: S3 when deployed, a folder served by the local server in the local stack. */
export interface BlobStorage {
  createUpload(key: string, file: { contentType: string; size: number; sha256: string }): Promise<UploadTarget>;
  /** Size and SHA-256 (hex) of what was uploaded, or null when nothing was. */
  inspect(key: string): Promise<StoredObject | null>;
  downloadUrl(key: string, fileName: string): Promise<string>;
  /** Stores bytes the service made itself (a library export). */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The stored bytes, or null when nothing is stored under the key (a library import reads its file). */
  get(key: string): Promise<Buffer | null>;
}

/** The storage the environment configures (blobStorageFromEnv builds it); throws when there is none. */
export function blobStorageConfig(env: NodeJS.ProcessEnv = process.env): { bucket: string } | { directory: string; baseUrl: string; signingSecret: string } {
  if (env.FILES_BUCKET) return { bucket: env.FILES_BUCKET };
  if (env.FILES_DIR && env.FILES_BASE_URL && env.FILES_SIGNING_SECRET) return { directory: env.FILES_DIR, baseUrl: env.FILES_BASE_URL, signingSecret: env.FILES_SIGNING_SECRET };
  throw new Error('No file storage configured: set FILES_BUCKET (deployed) or FILES_DIR, FILES_BASE_URL and FILES_SIGNING_SECRET (local stack)');
}
