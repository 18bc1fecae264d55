import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { expectCode } from '../support/errors.js';
import { completeMutation, completeUpload, createUpload, createUploadMutation, putBytes, sha256Hex, uploadFile, type FileView } from '../support/files.js';
import { createMutation, libraryPartition, partitionItems, updateMutation } from './componentHelpers.js';
import { createItems, itemCreateMutation, itemUpdateMutation, itemWrites } from './itemHelpers.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const fileQuery = 'query($id: ID!) { file { findOne(id: $id) { id name contentType size sha256 status createdAt completedAt downloadUrl } } }';
const fileItems = (tenant: Tenant) => partitionItems(libraryPartition(tenant), ['FILE#']);

describe('files: upload, complete, and use as fileId, imageFileId and documents', () => {
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    [tenant, other] = await Promise.all([newTenant(), newTenant()]);
  });

  describe('upload flow', () => {
    it('createUpload declares the file, the bytes are PUT where it says, complete verifies them and the file is READY and downloadable', async () => {
      const bytes = randomBytes(4096);
      const sha256 = sha256Hex(bytes);
      const upload = await createUpload(tenant, { name: 'bracket.step', contentType: 'Model/STEP', size: bytes.length, sha256: sha256.toUpperCase() });
      expect(upload.file).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'bracket.step',
        contentType: 'model/step',
        size: 4096,
        sha256,
        status: 'PENDING',
        completedAt: null,
        downloadUrl: null,
      });
      expect(upload.file.createdAt).toMatch(iso);
      expect(upload.method).toBe('PUT');
      expect(upload.uploadUrl).toMatch(/^https?:\/\//);
      expect(upload.headers['content-type']).toBe('model/step');
      expect(Date.parse(upload.expiresAt)).toBeGreaterThan(Date.now());

      const pending = await gqlOk<{ file: { findOne: FileView } }>(tenant, fileQuery, { id: upload.file.id });
      expect(pending.file.findOne).toMatchObject({ status: 'PENDING', downloadUrl: null });

      expect((await putBytes(upload, bytes)).status).toBe(200);
      const ready = await completeUpload(tenant, upload.file.id);
      expect(ready).toMatchObject({ id: upload.file.id, status: 'READY', size: 4096, sha256 });
      expect(ready.completedAt).toMatch(iso);
      expect(ready.downloadUrl).toBeTruthy();
      const download = await fetch(ready.downloadUrl!);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

      // Completing again is harmless; findOne shows the same.
      expect(await completeUpload(tenant, upload.file.id)).toMatchObject({ status: 'READY', completedAt: ready.completedAt });
      expect((await gqlOk<{ file: { findOne: FileView } }>(tenant, fileQuery, { id: upload.file.id })).file.findOne).toMatchObject({ status: 'READY', completedAt: ready.completedAt });
    });

    it('complete before the bytes are uploaded is FILE_NOT_READY; an unknown file is FILE_NOT_FOUND', async () => {
      const bytes = Buffer.from('not yet');
      const upload = await createUpload(tenant, { name: 'late.txt', contentType: 'text/plain', size: bytes.length, sha256: sha256Hex(bytes) });
      await expectCode(tenant, completeMutation, { id: upload.file.id }, 'FILE_NOT_READY');
      await expectCode(tenant, completeMutation, { id: randomUUID() }, 'FILE_NOT_FOUND');
      expect((await gqlOk<{ file: { findOne: FileView | null } }>(tenant, fileQuery, { id: randomUUID() })).file.findOne).toBeNull();
    });

    it('bytes that do not match the declared SHA-256 are FILE_UPLOAD_MISMATCH and the file stays PENDING', async () => {
      const bytes = Buffer.from('the real bytes');
      const upload = await createUpload(tenant, { name: 'a.txt', contentType: 'text/plain', size: bytes.length, sha256: sha256Hex(Buffer.from('the real bytez')) });
      await putBytes(upload, bytes);
      const response = await expectCode(tenant, completeMutation, { id: upload.file.id }, 'FILE_UPLOAD_MISMATCH');
      expect(response.body.errors![0]!.message).toContain(upload.file.id);
      expect((await gqlOk<{ file: { findOne: FileView } }>(tenant, fileQuery, { id: upload.file.id })).file.findOne.status).toBe('PENDING');
      await expectCode(tenant, createMutation, { inputs: [{ name: 'uses mismatched', categoryId: 'mechanical', fileId: upload.file.id }] }, 'FILE_NOT_READY');
    });

    it('bytes of another size than declared are refused by the signed upload URL (as S3 refuses them): the file is not ready', async () => {
      const bytes = Buffer.from('twelve bytes');
      const upload = await createUpload(tenant, { name: 'b.txt', contentType: 'text/plain', size: bytes.length + 1, sha256: sha256Hex(bytes) });
      const { 'content-length': _length, ...headers } = upload.headers;
      expect((await fetch(upload.uploadUrl, { method: upload.method, headers, body: bytes })).status).toBe(403);
      await expectCode(tenant, completeMutation, { id: upload.file.id }, 'FILE_NOT_READY');
    });

    it('the local file store checks the signed, expiring URL as S3 would: no signature, a changed one, another key or type', async () => {
      const bytes = Buffer.from('signed bytes');
      const upload = await createUpload(tenant, { name: 's.txt', contentType: 'text/plain', size: bytes.length, sha256: sha256Hex(bytes) });
      const url = new URL(upload.uploadUrl);
      const put = (target: string, headers = upload.headers) => fetch(target, { method: 'PUT', headers, body: new Uint8Array(bytes) });
      expect((await put(`${url.origin}${url.pathname}`)).status).toBe(403);
      const tampered = new URL(url);
      tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      expect((await put(tampered.toString())).status).toBe(403);
      expect((await put(upload.uploadUrl, { ...upload.headers, 'content-type': 'text/html' })).status).toBe(403);
      const otherKey = new URL(url);
      otherKey.pathname = otherKey.pathname.replace(/[0-9a-f]{8}(?=[^/]*$)/, '00000000');
      expect((await put(otherKey.toString())).status).toBe(403);
      expect((await put(upload.uploadUrl)).status).toBe(200);
      const ready = await completeUpload(tenant, upload.file.id);
      // Downloads are signed too: the bare path is refused, the URL the API hands out works.
      const download = new URL(ready.downloadUrl!);
      expect((await fetch(`${download.origin}${download.pathname}`)).status).toBe(403);
      expect((await fetch(ready.downloadUrl!)).status).toBe(200);
    });

    it('re-uploading the right bytes after a mismatch completes the file', async () => {
      const bytes = Buffer.from('second try');
      const upload = await createUpload(tenant, { name: 'c.txt', contentType: 'text/plain', size: bytes.length, sha256: sha256Hex(bytes) });
      await putBytes(upload, Buffer.from('first  try'));
      await expectCode(tenant, completeMutation, { id: upload.file.id }, 'FILE_UPLOAD_MISMATCH');
      await putBytes(upload, bytes);
      expect((await completeUpload(tenant, upload.file.id)).status).toBe('READY');
    });

    const sha = sha256Hex(Buffer.from('x'));
    it.each([
      ['over 100 MB', { name: 'huge.bin', contentType: 'application/octet-stream', size: 100 * 1024 * 1024 + 1, sha256: sha }],
      ['an empty file', { name: 'empty.bin', contentType: 'application/octet-stream', size: 0, sha256: sha }],
      ['a checksum that is not 64 hex digits', { name: 'a.bin', contentType: 'application/octet-stream', size: 1, sha256: 'abc' }],
      ['a content type that is not a media type', { name: 'a.pdf', contentType: 'pdf', size: 1, sha256: sha }],
      ['an empty name', { name: '  ', contentType: 'application/pdf', size: 1, sha256: sha }],
    ])('createUpload refuses %s (BAD_USER_INPUT) and records nothing', async (_name, input) => {
      const before = await fileItems(tenant);
      const response = await graphql(createUploadMutation, { input }, tenantHeaders(tenant));
      expect(
        response.body.errors?.map((e) => e.extensions?.code),
        JSON.stringify(response.body.errors),
      ).toEqual(['BAD_USER_INPUT']);
      expect(await fileItems(tenant)).toEqual(before);
    });

    it('a fractional size is refused by the Int type and records nothing', async () => {
      const before = await fileItems(tenant);
      const response = await graphql(createUploadMutation, { input: { name: 'half.bin', contentType: 'application/octet-stream', size: 1.5, sha256: sha } }, tenantHeaders(tenant));
      expect(response.body.data ?? null).toBeNull();
      expect(response.body.errors?.[0]?.message).toContain('input.size');
      expect(await fileItems(tenant)).toEqual(before);
    });

    it('exactly 100 MB may be declared', async () => {
      const upload = await createUpload(tenant, { name: 'max.bin', contentType: 'application/octet-stream', size: 100 * 1024 * 1024, sha256: sha });
      expect(upload.file.size).toBe(100 * 1024 * 1024);
    });

    it("another library's file is not visible", async () => {
      const foreign = await uploadFile(other, Buffer.from('foreign'));
      expect((await gqlOk<{ file: { findOne: FileView | null } }>(tenant, fileQuery, { id: foreign.id })).file.findOne).toBeNull();
      await expectCode(tenant, completeMutation, { id: foreign.id }, 'FILE_NOT_FOUND');
    });
  });

  describe('only READY files of the library can be used', () => {
    let ready: FileView;
    let pending: FileView;
    let foreign: FileView;
    let assemblyId: string;
    let partId: string;

    beforeAll(async () => {
      ready = await uploadFile(tenant, Buffer.from('ready bytes'));
      pending = await uploadFile(tenant, Buffer.from('pending bytes'), { complete: false });
      foreign = await uploadFile(other, Buffer.from('other library'));
      const [assembly, part] = await createItems(tenant, [
        { name: 'File assembly', categoryId: 'pcba' },
        { name: 'File part', categoryId: 'mechanical' },
      ]);
      assemblyId = assembly!.id;
      partId = part!.id;
    });

    it('Component.file and imageFile resolve the READY files', async () => {
      const image = await uploadFile(tenant, Buffer.from('png'), { name: 'i.png', contentType: 'image/png' });
      const { component } = await gqlOk<{ component: { create: { fileId: string; imageFileId: string; file: FileView; imageFile: FileView }[] } }>(
        tenant,
        'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { fileId imageFileId file { id status name } imageFile { id status contentType } } } }',
        { inputs: [{ name: 'With files', categoryId: 'mechanical', fileId: ready.id, imageFileId: image.id }] },
      );
      expect(component.create[0]).toEqual({
        fileId: ready.id,
        imageFileId: image.id,
        file: { id: ready.id, status: 'READY', name: 'drawing.pdf' },
        imageFile: { id: image.id, status: 'READY', contentType: 'image/png' },
      });
    });

    const cases = (): [string, string, Record<string, unknown>, string][] => {
      const unknown = randomUUID();
      return [
        ['component.create fileId unknown', createMutation, { inputs: [{ name: 'x', categoryId: 'mechanical', fileId: unknown }] }, 'FILE_NOT_FOUND'],
        ['component.create fileId not a UUID', createMutation, { inputs: [{ name: 'x', categoryId: 'mechanical', fileId: 'file-1' }] }, 'FILE_NOT_FOUND'],
        ['component.create fileId pending', createMutation, { inputs: [{ name: 'x', categoryId: 'mechanical', fileId: pending.id }] }, 'FILE_NOT_READY'],
        ['component.create imageFileId pending', createMutation, { inputs: [{ name: 'x', categoryId: 'mechanical', imageFileId: pending.id }] }, 'FILE_NOT_READY'],
        ['component.create fileId of another library', createMutation, { inputs: [{ name: 'x', categoryId: 'mechanical', fileId: foreign.id }] }, 'FILE_NOT_FOUND'],
        ['component.update fileId unknown', updateMutation, { inputs: [{ id: partId, fileId: unknown }] }, 'FILE_NOT_FOUND'],
        ['component.update imageFileId pending', updateMutation, { inputs: [{ id: partId, imageFileId: pending.id }] }, 'FILE_NOT_READY'],
        ['item.create fileId pending', itemCreateMutation, { inputs: [{ name: 'x', categoryId: 'pcba', fileId: pending.id }] }, 'FILE_NOT_READY'],
        [
          'item.create document from an unknown file',
          itemCreateMutation,
          {
            inputs: [
              {
                name: 'x',
                categoryId: 'pcba',
                documents: [
                  { fileId: ready.id, name: 'ok' },
                  { fileId: unknown, name: 'd' },
                ],
              },
            ],
          },
          'FILE_NOT_FOUND',
        ],
        ['item.create document from a pending file', itemCreateMutation, { inputs: [{ name: 'x', categoryId: 'pcba', documents: [{ fileId: pending.id, name: 'd' }] }] }, 'FILE_NOT_READY'],
        ['item.update document from a pending file', itemUpdateMutation, { inputs: [{ id: assemblyId, name: 'renamed', documents: [{ fileId: pending.id, name: 'd' }] }] }, 'FILE_NOT_READY'],
        ['item.update document from a file of another library', itemUpdateMutation, { inputs: [{ id: assemblyId, documents: [{ fileId: foreign.id, name: 'd' }] }] }, 'FILE_NOT_FOUND'],
        ['item.update fileId unknown', itemUpdateMutation, { inputs: [{ id: assemblyId, fileId: unknown, children: [] }] }, 'FILE_NOT_FOUND'],
        ['item.update imageFileId pending', itemUpdateMutation, { inputs: [{ id: partId, imageFileId: pending.id }] }, 'FILE_NOT_READY'],
      ];
    };

    it('an unknown or incomplete file is FILE_NOT_FOUND / FILE_NOT_READY and nothing is written', async () => {
      for (const [name, query, variables, code] of cases()) {
        const before = await itemWrites(tenant);
        const response = await graphql(query, variables, tenantHeaders(tenant));
        expect([name, response.body.errors?.map((e) => e.extensions?.code)], JSON.stringify(response.body.errors)).toEqual([name, [code]]);
        expect(response.body.data ?? null).toBeNull();
        expect(await itemWrites(tenant), name).toEqual(before);
      }
    });

    it('once the pending file is completed it can be used', async () => {
      const bytes = Buffer.from('pending bytes');
      const uploaded = await gqlOk<{ file: { findOne: FileView } }>(tenant, fileQuery, { id: pending.id });
      expect(uploaded.file.findOne.status).toBe('PENDING');
      expect(sha256Hex(bytes)).toBe(pending.sha256);
      await completeUpload(tenant, pending.id);
      const [updated] = await gqlOk<{ item: { update: { fileId: string; documents: { document: { fileId: string } }[] }[] } }>(
        tenant,
        'mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { fileId documents { document { fileId } } } } }',
        { inputs: [{ id: assemblyId, fileId: pending.id, documents: [{ fileId: pending.id, name: 'now ready' }] }] },
      ).then((d) => d.item.update);
      expect(updated).toEqual({ fileId: pending.id, documents: [{ document: { fileId: pending.id } }] });
    });
  });
});
