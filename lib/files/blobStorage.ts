import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { blobStorageConfig, type BlobStorage, type StoredObject, type UploadTarget } from './port.js';

const uploadTtlSeconds = 15 * 60;

const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
const base64ToHex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

/**
 * The S3 client and presigner load on the first file operation: most requests never touch a file, and
 * a cold start should not pay for them.
 */
const loadS3 = async () => {
  const [s3, presigner] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]);
  return { ...s3, getSignedUrl: presigner.getSignedUrl };
};

/** S3 verifies the bytes against the declared SHA-256 and length at upload; inspect reads them back. */
export class S3BlobStorage implements BlobStorage {
  private client?: Promise<{ s3: S3Client; sdk: Awaited<ReturnType<typeof loadS3>> }>;

  constructor(private readonly bucket: string) {}

  private connect() {
    this.client ??= loadS3().then((sdk) => ({ sdk, s3: new sdk.S3Client({}) }));
    return this.client;
  }

  async createUpload(key: string, file: { contentType: string; size: number; sha256: string }): Promise<UploadTarget> {
    const { s3, sdk } = await this.connect();
    const checksum = hexToBase64(file.sha256);
    const url = await sdk.getSignedUrl(s3, new sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: file.contentType, ContentLength: file.size, ChecksumSHA256: checksum }), {
      expiresIn: uploadTtlSeconds,
      signableHeaders: new Set(['content-type', 'content-length', 'x-amz-checksum-sha256']),
    });
    return {
      url,
      method: 'PUT',
      headers: { 'content-type': file.contentType, 'content-length': String(file.size), 'x-amz-checksum-sha256': checksum },
      expiresAt: new Date(Date.now() + uploadTtlSeconds * 1000).toISOString(),
    };
  }

  async inspect(key: string): Promise<StoredObject | null> {
    const { s3, sdk } = await this.connect();
    try {
      const head = await s3.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key, ChecksumMode: 'ENABLED' }));
      return { size: head.ContentLength ?? 0, sha256: head.ChecksumSHA256 ? base64ToHex(head.ChecksumSHA256.split('-')[0]!) : '' };
    } catch (error) {
      if ((error as { name?: string }).name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
      throw error;
    }
  }

  async downloadUrl(key: string, fileName: string): Promise<string> {
    const { s3, sdk } = await this.connect();
    return sdk.getSignedUrl(s3, new sdk.GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentDisposition: `attachment; filename="${fileName.replace(/["\\]/g, '_')}"` }), {
      expiresIn: uploadTtlSeconds,
    });
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const { s3, sdk } = await this.connect();
    // With its SHA-256, which S3 checks and keeps: inspect() reads it back, as for uploads (an import's copy
    // of a file is verified by it when the library is exported and imported again).
    const checksum = createHash('sha256').update(bytes).digest('base64');
    await s3.send(new sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.length, ChecksumSHA256: checksum }));
  }

  async get(key: string): Promise<Buffer | null> {
    const { s3, sdk } = await this.connect();
    try {
      const object = await s3.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : null;
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
      throw error;
    }
  }
}

/** What a local file URL lets its holder do, as a presigned S3 URL binds it. */
export interface LocalFileGrant {
  method: 'PUT' | 'GET';
  key: string;
  /** Seconds since the epoch. */
  expires: number;
  /** PUT only: the exact content type, length and SHA-256 (hex) the bytes must have. */
  contentType?: string;
  size?: number;
  sha256?: string;
}

/**
 * Local stack: bytes are PUT to the local server (`/_local/files/<key>`), which writes them under a folder;
 * inspect reads them back and computes the SHA-256. Like presigned S3 URLs, every URL is signed (HMAC
 * with the stack's secret) and expires: an upload URL is bound to its key, content type, length and
 * SHA-256, a download URL to its key, and only a caller of the library is ever handed one.
 */
export class LocalBlobStorage implements BlobStorage {
  constructor(
    private readonly directory: string,
    private readonly baseUrl: string,
    private readonly signingSecret: string,
  ) {}

  pathOf(key: string): string {
    const path = resolve(this.directory, key);
    if (!path.startsWith(resolve(this.directory) + '/')) throw new Error(`file key escapes the file store: ${key}`);
    return path;
  }

  private signature(grant: LocalFileGrant): string {
    const fields = [grant.method, grant.key, grant.expires, grant.contentType ?? '', grant.size ?? '', grant.sha256 ?? ''];
    return createHmac('sha256', this.signingSecret).update(fields.join('\n')).digest('base64url');
  }

  private signedUrl(grant: LocalFileGrant): string {
    return `${this.baseUrl}/_local/files/${grant.key}?expires=${grant.expires}&signature=${this.signature(grant)}`;
  }

  /** Whether a request's URL signature grants it, checked as S3 checks a presigned request. */
  verify(grant: LocalFileGrant, signature: string | null, now = Date.now()): 'ok' | 'expired' | 'invalid' {
    if (!signature) return 'invalid';
    const expected = Buffer.from(this.signature(grant));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    return grant.expires * 1000 < now ? 'expired' : 'ok';
  }

  async createUpload(key: string, file: { contentType: string; size: number; sha256: string }): Promise<UploadTarget> {
    const expires = Math.floor(Date.now() / 1000) + uploadTtlSeconds;
    return {
      url: this.signedUrl({ method: 'PUT', key, expires, contentType: file.contentType, size: file.size, sha256: file.sha256 }),
      method: 'PUT',
      headers: { 'content-type': file.contentType, 'content-length': String(file.size), 'x-amz-checksum-sha256': hexToBase64(file.sha256) },
      expiresAt: new Date(expires * 1000).toISOString(),
    };
  }

  async inspect(key: string): Promise<StoredObject | null> {
    try {
      const bytes = await readFile(this.pathOf(key));
      return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async downloadUrl(key: string): Promise<string> {
    return this.signedUrl({ method: 'GET', key, expires: Math.floor(Date.now() / 1000) + uploadTtlSeconds });
  }

  /** Used by the local server's PUT route. */
  async store(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, bytes);
  }

  put(key: string, bytes: Buffer): Promise<void> {
    return this.store(key, bytes);
  }

  get(key: string): Promise<Buffer | null> {
    return this.read(key);
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      await stat(this.pathOf(key));
      return await readFile(this.pathOf(key));
    } catch {
      return null;
    }
  }
}

export function blobStorageFromEnv(env: NodeJS.ProcessEnv = process.env): BlobStorage {
  const config = blobStorageConfig(env);
  return 'bucket' in config ? new S3BlobStorage(config.bucket) : new LocalBlobStorage(config.directory, config.baseUrl, config.signingSecret);
}

export const localFilesDirectory = (dataDir: string | undefined, fallback: string) => (dataDir ? join(resolve(dataDir), 'files') : fallback);
