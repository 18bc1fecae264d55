import * as z from 'zod';
import type { Store } from './client.js';
import { batchGetRecords, getItem, putIf, samePut, updateIf, queryPrefix } from './items.js';
import { libraryPartition } from './library.js';

export const fileKey = (orgId: string, libraryId: string, fileId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `FILE#${fileId}` });

export const fileRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  name: z.string(),
  contentType: z.string(),
  /** Bytes: an upload has at least 1 (lib/files/files.ts); a file the service wrote may be empty (an audit export with no entries). */
  size: z.number().int().nonnegative(),
  /** Hex SHA-256 of the bytes, declared by the uploader and verified when the upload completes. */
  sha256: z.string(),
  status: z.enum(['PENDING', 'READY']),
  storageKey: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  completedAt: z.string().nullable(),
  /**
   * A file the service made (an export): the permission its readers need besides components.read, in the
   * library or, for an organization.* permission, the organization. Absent for uploads and readers' own files.
   */
  readPermission: z.string().nullable().optional(),
});
export type FileRecord = z.infer<typeof fileRecord>;

/** Where a file's bytes live in the file store: under its organization and library, by its id. */
export const fileStorageKey = (organizationId: string, libraryId: string, fileId: string) => `${organizationId}/${libraryId}/${fileId}`;

/** Uploads never completed expire with TTL after a day. */
const pendingTtlSeconds = 24 * 60 * 60;

export async function putPendingFile(store: Store, record: FileRecord): Promise<void> {
  const item = { ...fileKey(record.organizationId, record.libraryId, record.id), entity: 'File', ...record, expiresAt: Math.ceil(Date.parse(record.createdAt) / 1000) + pendingTtlSeconds };
  // A fresh file id: a failed condition on a retried attempt is this put (lib/store/README.md, "Timeouts").
  if (!(await putIf(store, { Item: item, ConditionExpression: 'attribute_not_exists(PK)' }, { ownWrite: samePut(item) }))) throw new Error(`File ${record.id} exists already`);
}

/** PENDING -> READY (and no longer expiring); false when it was READY already. */
export async function markFileReady(store: Store, record: FileRecord, at: string): Promise<boolean> {
  return updateIf(store, {
    Key: fileKey(record.organizationId, record.libraryId, record.id),
    UpdateExpression: 'SET #status = :ready, completedAt = :at REMOVE expiresAt',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':ready': 'READY', ':pending': 'PENDING', ':at': at },
  });
}

export function getFile(store: Store, orgId: string, libraryId: string, fileId: string): Promise<FileRecord | undefined> {
  return getItem(store, fileKey(orgId, libraryId, fileId), fileRecord, 'file');
}

export function getFiles(store: Store, orgId: string, libraryId: string, fileIds: string[]): Promise<Map<string, FileRecord>> {
  return batchGetRecords(store, fileIds, (id) => fileKey(orgId, libraryId, id), fileRecord, 'file', true);
}

/** Every file record of the library (PENDING ones included: the caller filters). */
export function listFileRecords(store: Store, orgId: string, libraryId: string): Promise<FileRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'FILE#', fileRecord, 'file');
}

/** A READY file item written by a library import, tagged with the import's id (so that an abandoned import finds its own). */
export function importedFileItem(record: FileRecord, importId: string) {
  return { ...fileKey(record.organizationId, record.libraryId, record.id), entity: 'File', ...record, importId };
}
