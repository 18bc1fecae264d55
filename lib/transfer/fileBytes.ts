import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportProblem } from '../errors.js';
import { loadEffectiveAccess } from '../access/effective.js';
import type { BlobStorage } from '../files/port.js';
import type { Store } from '../store/client.js';
import { getFiles } from '../store/file.js';
import { getMembership } from '../store/membership.js';
import type { ExportedFile } from './format.js';

/**
 * Where an import finds the bytes of the files an export lists: the `files/` folder of an export directory
 * (CLI), or the file store of the library the bundle was exported from, in this deployment (API). Files are
 * read one at a time (at most `maxFileSize`, 100 MB, each): never every file in memory at once.
 */
export interface FileBytesSource {
  /** Problems of the listed files: bytes absent (FILE_MISSING), or not the listed size and SHA-256 (FILE_CORRUPT). */
  verify(files: ExportedFile[], at: (index: number) => string): Promise<ImportProblem[]>;
  /** The bytes of one file (the caller checks them again), or null when they are gone. */
  read(file: ExportedFile): Promise<Buffer | null>;
}

/** Problems found by parallel checks, in the order of the files. */
const inOrder = (found: [number, ImportProblem][]) => found.sort((a, b) => a[0] - b[0]).map(([, problem]) => problem);

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Runs `task` over the items, `parallel` at a time. */
export async function eachLimited<T>(items: T[], parallel: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await task(items[index]!, index);
      }
    }),
  );
}

const mismatch = (file: ExportedFile, found: { size: number; sha256: string }) =>
  `the bytes are ${found.size} bytes with SHA-256 ${found.sha256}, not the listed ${file.size} bytes with SHA-256 ${file.sha256}`;

/** An export directory's `files/<id>`: the checksum is computed while streaming each file from disk. */
export function directoryFileBytes(directory: string): FileBytesSource {
  const pathOf = (file: ExportedFile) => join(directory, 'files', file.id);
  return {
    async verify(files, at) {
      const found: [number, ImportProblem][] = [];
      await eachLimited(files, 4, async (file, index) => {
        const hash = createHash('sha256');
        let size = 0;
        try {
          for await (const chunk of createReadStream(pathOf(file)) as AsyncIterable<Buffer>) {
            size += chunk.length;
            hash.update(chunk);
          }
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          found.push([index, { path: at(index), code: 'FILE_MISSING', message: `files/${file.id} (${file.name}) is not in the export directory` }]);
          return;
        }
        const sha256 = hash.digest('hex');
        if (size !== file.size || sha256 !== file.sha256)
          found.push([index, { path: at(index), code: 'FILE_CORRUPT', message: `files/${file.id} (${file.name}): ${mismatch(file, { size, sha256 })}` }]);
      });
      return inOrder(found);
    },
    async read(file) {
      try {
        return await readFile(pathOf(file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
  };
}

/**
 * The file store of the library a bundle was exported from (`source` of its manifest), in this deployment:
 * the API's export is one JSON file, and its files stay where they are until an import copies them. The
 * importing user must be allowed to export that library (library.settings.update there), and a job started
 * with an API key copies only from that key's library, else FILES_NOT_ACCESSIBLE: a bundle names libraries by id, and naming one must not open its files. Each file
 * must still be there, READY, with the listed size and SHA-256.
 */
export function libraryFileBytes(
  store: Store,
  blobs: BlobStorage,
  source: { organizationId: string; libraryId: string } | null,
  importer: { userId: string; keyLibraryId: string | null },
  sourcePath: string,
): FileBytesSource {
  const storageKeys = new Map<string, string>();
  return {
    async verify(files, at) {
      if (files.length === 0) return [];
      if (!source) return [{ path: sourcePath, code: 'FILES_UNAVAILABLE', message: 'the bundle lists files but names no source library to copy them from' }];
      // An API key reaches its own library only: its owner's access elsewhere is not the key's.
      const keyAllows = importer.keyLibraryId === null || importer.keyLibraryId === source.libraryId;
      const membership = keyAllows ? await getMembership(store, source.organizationId, importer.userId, true) : undefined;
      const allowed = membership && (await loadEffectiveAccess(store, membership)).libraryPermissions(source.libraryId).has('library.settings.update');
      if (!allowed) {
        return [
          {
            path: sourcePath,
            code: 'FILES_NOT_ACCESSIBLE',
            message: 'the files of a bundle are copied from the library it was exported from; the importing user may not export that library (library.settings.update there)',
          },
        ];
      }
      const found: [number, ImportProblem][] = [];
      const records = await getFiles(
        store,
        source.organizationId,
        source.libraryId,
        files.map((f) => f.id),
      );
      await eachLimited(files, 8, async (file, index) => {
        const record = records.get(file.id);
        if (!record || record.status !== 'READY') {
          found.push([index, { path: at(index), code: 'FILE_MISSING', message: `file ${file.id} (${file.name}) is not in the source library's file store` }]);
          return;
        }
        const stored = await blobs.inspect(record.storageKey);
        if (!stored) found.push([index, { path: at(index), code: 'FILE_MISSING', message: `the bytes of file ${file.id} (${file.name}) are not in the file store` }]);
        else if (record.size !== file.size || record.sha256 !== file.sha256 || stored.size !== file.size || stored.sha256 !== file.sha256) {
          found.push([index, { path: at(index), code: 'FILE_CORRUPT', message: `file ${file.id} (${file.name}): ${mismatch(file, stored)}` }]);
        } else storageKeys.set(file.id, record.storageKey);
      });
      return inOrder(found);
    },
    async read(file) {
      const key = storageKeys.get(file.id);
      return key ? blobs.get(key) : null;
    },
  };
}
