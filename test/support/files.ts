import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { gqlOk, type Tenant } from './api.js';

export const sha256Hex = (bytes: Buffer | Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

export const createUploadMutation = `mutation($input: CreateUploadInput!) {
  file { createUpload(input: $input) { file { id name contentType size sha256 status createdAt completedAt downloadUrl } uploadUrl method headers expiresAt } }
}`;
export const completeMutation = `mutation($id: ID!) { file { complete(id: $id) { id name contentType size sha256 status createdAt completedAt downloadUrl } } }`;

export interface FileView {
  id: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  status: 'PENDING' | 'READY';
  createdAt: string;
  completedAt: string | null;
  downloadUrl: string | null;
}

export interface FileUpload {
  file: FileView;
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
  expiresAt: string;
}

export async function createUpload(tenant: Tenant, input: { name: string; contentType: string; size: number; sha256: string }): Promise<FileUpload> {
  return (await gqlOk<{ file: { createUpload: FileUpload } }>(tenant, createUploadMutation, { input })).file.createUpload;
}

/** PUTs the bytes where createUpload said, with the headers it said. */
export async function putBytes(upload: FileUpload, bytes: Buffer): Promise<Response> {
  return fetch(upload.uploadUrl, { method: upload.method, headers: upload.headers, body: new Uint8Array(bytes) });
}

export async function completeUpload(tenant: Tenant, id: string): Promise<FileView> {
  return (await gqlOk<{ file: { complete: FileView } }>(tenant, completeMutation, { id })).file.complete;
}

/** Uploads a file the three-step way (createUpload, PUT the bytes, complete unless told not to): READY for use as fileId. */
export async function uploadFile(tenant: Tenant, bytes: Buffer, options: { name?: string; contentType?: string; complete?: boolean } = {}): Promise<FileView> {
  const upload = await createUpload(tenant, {
    name: options.name ?? 'drawing.pdf',
    contentType: options.contentType ?? 'application/pdf',
    size: bytes.length,
    sha256: sha256Hex(bytes),
  });
  const put = await putBytes(upload, bytes);
  expect(put.status).toBe(200);
  return options.complete === false ? upload.file : completeUpload(tenant, upload.file.id);
}
