import { brotliCompressSync } from 'node:zlib';
import { projectionOf } from '../entries.js';
import type { ComponentRecord } from '../../store/component.js';
import { maxBlockRows, packBlocks } from './compaction.js';
import { rowFieldsOf } from './rows.js';
import { columnPartKey, manifestKey, type BlockEntry, type LibraryRef } from './storage.js';

/**
 * The search index of a library loaded in bulk (an import into an empty library): the blocks built
 * directly from the components, as compaction would build them, instead of one delta per component folded
 * later. Returns the column parts (written with the other items, invisible until a manifest names them) and
 * the manifest Put that makes them the index: the import puts it in its commit transaction, on condition
 * that the library has no index yet.
 */
export function bulkIndexItems(library: LibraryRef, components: ComponentRecord[]): { parts: Record<string, unknown>[]; manifestPut: Record<string, unknown> } {
  const rows = components.map((component) => rowFieldsOf(projectionOf(component))).sort((a, b) => a.createdAt - b.createdAt);
  const packed = packBlocks(rows, maxBlockRows);
  const createdAt = new Date().toISOString();
  const parts = packed.parts.map((part) => ({
    ...columnPartKey(library.organizationId, library.libraryId, part.column, part.blockId, part.start),
    entity: 'SearchColumn',
    data: part.data,
    createdAt,
  }));
  const watermark = rows.reduce((max, row) => Math.max(max, row.createdAt), 0);
  return { parts, manifestPut: { Put: { ...bulkManifestItem(library, watermark, packed.blocks), ConditionExpression: 'attribute_not_exists(version)' } } };
}

/** The first manifest of a library indexed in bulk: version 1, naming these blocks. */
export function bulkManifestItem(library: LibraryRef, watermark: number, blocks: BlockEntry[]): { Item: Record<string, unknown> } {
  const data = brotliCompressSync(Buffer.from(JSON.stringify({ watermark, blocks })));
  return { Item: { ...manifestKey(library.organizationId, library.libraryId), entity: 'SearchManifest', version: 1, data, updatedAt: new Date().toISOString() } };
}
