import { createHash, randomUUID } from 'node:crypto';

import * as z from 'zod';

import { FileError, InvalidInputError } from '../errors.js';

import type { PermissionName } from '../access/permissions.js';
import type { Store } from '../store/client.js';
import { fileStorageKey, getFile, getFiles, markFileReady, putPendingFile, type FileRecord } from '../store/file.js';

import { nowIso } from '../store/items.js';

import type { BlobStorage, UploadTarget } from './port.js';

/** Largest file accepted (bytes). */
export const maxFileSize = 100 * 1024 * 1024;

import type { LibraryScope as FileScope } from '../model/scope.js';
export type { FileScope };

const uploadInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(255, 'name must be at most 255 characters'),
  contentType: z.string().regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i, 'contentType must be a media type such as application/pdf'),
  size: z.number().int('size must be a whole number of bytes').min(1, 'size must be at least 1 byte').max(maxFileSize, `size must be at most ${maxFileSize} bytes (100 MB)`),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be the 64 hex digits of the SHA-256 of the bytes'),
});

export interface CreatedUpload {
  file: FileRecord;
  upload: UploadTarget;
}

/** Step 1 of an upload: declares the file and returns where to PUT its bytes (a presigned URL when deployed). */
export async function createUpload(store: Store, blobs: BlobStorage, scope: FileScope, input: unknown): Promise<CreatedUpload> {
  const parsed = uploadInput.safeParse(input);
  if (!parsed.success) throw new InvalidInputError(parsed.error.issues.map((i) => i.message).join('; '));
  const id = randomUUID();
  const file: FileRecord = {
    id,
    organizationId: scope.organizationId,
    libraryId: scope.libraryId,
    name: parsed.data.name,
    contentType: parsed.data.contentType.toLowerCase(),
    size: parsed.data.size,
    sha256: parsed.data.sha256.toLowerCase(),
    status: 'PENDING',
    storageKey: fileStorageKey(scope.organizationId, scope.libraryId, id),
    createdAt: nowIso(),
    createdBy: scope.userId,
    completedAt: null,
  };
  const upload = await blobs.createUpload(file.storageKey, file);
  await putPendingFile(store, file);
  return { file, upload };
}

/** Step 3: checks the uploaded bytes against the declared size and checksum; the file is then usable. */
export async function completeUpload(store: Store, blobs: BlobStorage, scope: FileScope, fileId: string): Promise<FileRecord> {
  const file = await getFile(store, scope.organizationId, scope.libraryId, fileId);
  if (!file) throw new FileError('FILE_NOT_FOUND', `File ${fileId} does not exist in this library`, { fileId });
  if (file.status === 'READY') return file;
  const stored = await blobs.inspect(file.storageKey);
  if (!stored) throw new FileError('FILE_NOT_READY', `Nothing was uploaded for file ${fileId} yet`, { fileId });
  if (stored.size !== file.size || stored.sha256 !== file.sha256) {
    throw new FileError('FILE_UPLOAD_MISMATCH', `The uploaded bytes do not match the declared size and SHA-256 of file ${fileId}`, {
      fileId,
      declared: { size: file.size, sha256: file.sha256 },
      uploaded: stored,
    });
  }
  const at = nowIso();
  await markFileReady(store, file, at);
  return { ...file, status: 'READY', completedAt: at };
}

export async function findFile(store: Store, scope: FileScope, fileId: string): Promise<FileRecord | undefined> {
  return getFile(store, scope.organizationId, scope.libraryId, fileId);
}

/**
 * Every file must exist in the library and be READY (uploaded and verified). A file the service made for
 * readers with more than components.read (an export: readPermission) is not found unless `restricted`
 * (an import, which its own permission covers): attached to a component, every reader would download it.
 */
export async function checkFilesReady(store: Store, scope: Omit<FileScope, 'userId'>, fileIds: string[], restricted = false): Promise<void> {
  if (fileIds.length === 0) return;
  const files = await getFiles(store, scope.organizationId, scope.libraryId, fileIds);
  for (const fileId of fileIds) {
    const file = files.get(fileId);
    if (!file || (file.readPermission && !restricted)) throw new FileError('FILE_NOT_FOUND', `File ${fileId} does not exist in this library`, { fileId });
    if (file.status !== 'READY') throw new FileError('FILE_NOT_READY', `File ${fileId} has not been uploaded and completed (file.complete)`, { fileId });
  }
}

/**
 * A file the service makes itself (a library export): the bytes are stored, then the record is put and
 * marked READY at once (no upload step: the service computed size and SHA-256 itself).
 */
export async function storeGeneratedFile(
  store: Store,
  blobs: BlobStorage,
  scope: FileScope,
  name: string,
  contentType: string,
  bytes: Buffer,
  readPermission: PermissionName | null = null,
): Promise<FileRecord> {
  const id = randomUUID();
  const at = nowIso();
  const file: FileRecord = {
    id,
    organizationId: scope.organizationId,
    libraryId: scope.libraryId,
    name,
    contentType,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    status: 'PENDING',
    storageKey: fileStorageKey(scope.organizationId, scope.libraryId, id),
    createdAt: at,
    createdBy: scope.userId,
    completedAt: null,
    readPermission,
  };
  await blobs.put(file.storageKey, bytes, contentType);
  await putPendingFile(store, file);
  await markFileReady(store, file, at);
  return { ...file, status: 'READY', completedAt: at };
}

/** The bytes of a READY file of the library (FILE_NOT_FOUND / FILE_NOT_READY otherwise). */
export async function readFileBytes(store: Store, blobs: BlobStorage, scope: Omit<FileScope, 'userId'>, fileId: string): Promise<{ file: FileRecord; bytes: Buffer }> {
  await checkFilesReady(store, scope, [fileId], true);
  const file = (await getFile(store, scope.organizationId, scope.libraryId, fileId))!;
  const bytes = await blobs.get(file.storageKey);
  if (!bytes) throw new FileError('FILE_NOT_READY', `The bytes of file ${fileId} are not in the file store`, { fileId });
  return { file, bytes };
}
