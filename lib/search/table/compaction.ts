import { randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../../store/client.js';
import { columnNames, decodeColumn, encodeColumnParts, storedColumns, type ColumnName } from './columns.js';
import { encodeNameIndex, minIndexedRows } from './nameIndex.js';
import { rowFieldsOf, type Row, type RowFields } from './rows.js';
import { consistencyWindowMs, lacksNameIndex, type LibrarySnapshot } from './snapshot.js';
import {
  acquireLease,
  blockPartKeys,
  columnPartKey,
  commitManifest,
  deleteDeltas,
  deleteKeys,
  readManifest,
  readNameIndexParts,
  readParts,
  releaseLease,
  writeParts,
  nameIndexStart,
  type BlockEntry,
  type LibraryRef,
  textIndexColumn,
  type NameIndexEntry,
  type TextField,
  type StoredPart,
} from './storage.js';

/**
 * Outstanding deltas a search reads before it folds them: 64 entries, or 96 KB of them uncompressed
 * (long descriptions), about 5 RCU of deltas at most.
 */
export const compactionThreshold = { deltas: 64, bytes: 96 * 1024 };
/** Rows per block as a compaction first writes it: a compaction rewrites the tail block and a few sparse ones. */
export const blockRows = 1000;
/**
 * Blocks merge as they fill, so a search reads few items however large the library (every stored part is
 * at least one read unit): 8 blocks of fewer than 8,000 live rows (not the tail) become one, and 8 of
 * 8,000 to 64,000 become one of up to 64,000 and more. A bulk load (bulkLoad.ts) writes blocks of maxBlockRows.
 */
export const mergeFanIn = 8;
export const mergeTiers = [8_000, 64_000];
export const maxBlockRows = 64_000;
/** Deltas folded per compaction, so one run stays short even after a configuration sync touched every component. */
const maxFoldedPerRun = 10_000;
const leaseMs = 60_000;
/** A block this sparse (rows superseded since it was written) is rewritten, at most two per run. */
const sparseBlock = 0.3;
const maxSparseRewrites = 2;

export function needsCompaction(snapshot: LibrarySnapshot): boolean {
  const bytes = snapshot.deltas.reduce((sum, d) => sum + d.bytes, 0);
  return snapshot.deltas.length >= compactionThreshold.deltas || bytes >= compactionThreshold.bytes || snapshot.usedIdFallback || snapshot.orphans.length > 0 || snapshot.readUnindexedNames;
}

async function readBlockNames(store: Store, library: LibraryRef, block: BlockEntry): Promise<(string | undefined)[]> {
  const rows: Row[] = Array.from({ length: block.rows }, (_, index) => ({ block: 0, index }));
  const parts = await readParts(store, blockPartKeys(library, block, ['n']));
  const byStart = new Map(parts.map((part) => [part.start, part]));
  const starts = block.parts.n;
  starts.forEach((start, i) => {
    const part = byStart.get(start);
    if (!part) throw new Error(`search index part n/${block.id}/${start} is missing`);
    decodeColumn('n', part.data, rows.slice(start, starts[i + 1] ?? block.rows));
  });
  return rows.map((row) => row.name);
}

export type CompactionOutcome = 'committed' | 'busy' | 'stale' | 'lost';

async function readBlockRows(store: Store, library: LibraryRef, block: BlockEntry, dead: Set<number>): Promise<RowFields[]> {
  const rows: Row[] = Array.from({ length: block.rows }, (_, index) => ({ block: 0, index }));
  const parts = await readParts(store, blockPartKeys(library, block, columnNames));
  const byKey = new Map(parts.map((part) => [`${part.column}#${part.start}`, part]));
  for (const column of columnNames) {
    const starts = block.parts[column] ?? [];
    starts.forEach((start, i) => {
      const part = byKey.get(`${column}#${start}`);
      if (!part) throw new Error(`search index part ${column}/${block.id}/${start} is missing`);
      decodeColumn(column, part.data, rows.slice(start, starts[i + 1] ?? block.rows));
    });
  }
  return rows.filter((row) => !dead.has(row.index)) as RowFields[];
}

/**
 * The blocks (by index) one merge folds into one: the first tier (mergeTiers) with mergeFanIn blocks whose
 * live rows are below its limit and at least the tier below's, none of them the tail or rewritten anyway.
 */
export function mergeCandidates(blocks: BlockEntry[], dead: Set<number>[], rewrite: Set<number>): number[] {
  const live = (b: number) => blocks[b]!.rows - dead[b]!.size;
  for (let tier = 0; tier < mergeTiers.length; tier++) {
    const floor = tier === 0 ? 0 : mergeTiers[tier - 1]!;
    const inTier = blocks.map((_, b) => b).filter((b) => b < blocks.length - 1 && !rewrite.has(b) && live(b) >= floor && live(b) < mergeTiers[tier]!);
    if (inTier.length >= mergeFanIn) return inTier.slice(0, mergeFanIn);
  }
  return [];
}

/** A block's name index as parts to write and the manifest's record of it (nameIndex.ts). */
export function nameIndexParts(indexId: string, names: readonly (string | null | undefined)[], field: TextField = 'name'): { names: NameIndexEntry; parts: Omit<StoredPart, 'createdAt'>[] } {
  // A block whose names cannot be indexed (nameIndex.ts) is recorded with 0 buckets: its names are read.
  const index = encodeNameIndex(names) ?? { buckets: 0, parts: [] };
  const pieces = new Map<number, number>();
  for (const part of index.parts) pieces.set(part.bucket, Math.max(pieces.get(part.bucket) ?? 0, part.piece + 1));
  return {
    names: { id: indexId, buckets: index.buckets, split: [...pieces].filter(([, count]) => count > 1) },
    parts: index.parts.map((part) => ({ column: textIndexColumn[field], blockId: indexId, start: nameIndexStart(part.bucket, part.piece), data: part.data })),
  };
}

/**
 * New blocks of at most `size` rows, each column stored in parts (columns.ts), and a name index when large
 * enough. `columns` other than storedColumns only to write blocks as older versions did (tests).
 */
export function packBlocks(rows: RowFields[], size = blockRows, columns: readonly ColumnName[] = storedColumns): { blocks: BlockEntry[]; parts: Omit<StoredPart, 'createdAt'>[] } {
  const blocks: BlockEntry[] = [];
  const parts: Omit<StoredPart, 'createdAt'>[] = [];
  for (let start = 0; start < rows.length; start += size) {
    const slice = rows.slice(start, start + size);
    const id = randomBytes(6).toString('hex');
    const starts = Object.fromEntries(columnNames.map((column) => [column, []])) as unknown as Record<ColumnName, number[]>;
    for (const column of columns) {
      const encoded = encodeColumnParts(column, slice);
      starts[column] = encoded.map((part) => part.start);
      parts.push(...encoded.map((part) => ({ column, blockId: id, start: part.start, data: part.data })));
    }
    const block: BlockEntry = { id, rows: slice.length, dead: [], parts: starts };
    if (slice.length >= minIndexedRows) {
      const index = nameIndexParts(
        id,
        slice.map((row) => row.name),
      );
      block.names = index.names;
      parts.push(...index.parts);
      const cpns = nameIndexParts(
        id,
        slice.map((row) => row.cpn),
        'cpn',
      );
      block.cpns = cpns.names;
      parts.push(...cpns.parts);
    }
    blocks.push(block);
  }
  return { blocks, parts };
}

/**
 * Folds the snapshot's deltas into blocks. Under a lease (so concurrent searches do not all compact), it
 * writes new blocks under fresh ids (the tail block with the new rows, and sparse blocks rewritten), then
 * commits the manifest conditionally on the version it read. Only then are the replaced blocks and the
 * folded deltas deleted, each delta only if no write replaced it meanwhile. A run that fails at any step
 * leaves the previous manifest in force and everything it names in place.
 */
export async function compact(store: Store, snapshot: LibrarySnapshot): Promise<CompactionOutcome> {
  const { library, manifest } = snapshot;
  const owner = randomUUID();
  if (!(await acquireLease(store, library, owner, Date.now(), leaseMs))) return 'busy';
  const leasedAt = performance.now();
  let committed = false;
  try {
    if ((await readManifest(store, library)).version !== manifest.version) return 'stale';
    const folded = [...snapshot.deltas].sort((a, b) => a.at.localeCompare(b.at)).slice(0, maxFoldedPerRun);
    const dead = manifest.blocks.map((block) => new Set(block.dead));
    for (const delta of folded) {
      const at = snapshot.locations.get(delta.componentId);
      if (at) dead[at.block]!.add(at.index);
    }
    const rewrite = new Set<number>();
    const tail = manifest.blocks.length - 1;
    if (tail >= 0 && manifest.blocks[tail]!.rows - dead[tail]!.size < blockRows) rewrite.add(tail);
    manifest.blocks
      .map((block, b) => ({ b, sparse: dead[b]!.size / block.rows }))
      .filter(({ b, sparse }) => !rewrite.has(b) && sparse >= sparseBlock)
      .sort((x, y) => y.sparse - x.sparse)
      .slice(0, maxSparseRewrites)
      .forEach(({ b }) => rewrite.add(b));
    const merged = mergeCandidates(manifest.blocks, dead, rewrite);
    const [kept, mergedRows] = await Promise.all([
      Promise.all([...rewrite].sort((x, y) => x - y).map((b) => readBlockRows(store, library, manifest.blocks[b]!, dead[b]!))).then((rows) => rows.flat()),
      Promise.all(merged.map((b) => readBlockRows(store, library, manifest.blocks[b]!, dead[b]!))).then((rows) => rows.flat()),
    ]);
    for (const b of merged) rewrite.add(b);
    // A block written before the name index gets one, built from its names (its other parts stay as they
    // are), under a fresh id: a compaction that loses deletes only what it wrote. A block that also predates
    // the split groups (it holds `m`) is written anew instead, as a sparse rewrite is: its live rows in the
    // split groups with both indexes, under a fresh block id, in the same commit (its `m` would otherwise be
    // read whole by every status, category, label or flag filter until a merge takes the block).
    const upgrade = manifest.blocks.findIndex((block, b) => !rewrite.has(b) && lacksNameIndex(block));
    const resplit = upgrade >= 0 && manifest.blocks[upgrade]!.parts.m.length > 0;
    const upgraded = upgrade >= 0 && !resplit ? nameIndexParts(randomBytes(6).toString('hex'), await readBlockNames(store, library, manifest.blocks[upgrade]!)) : undefined;
    const resplitRows = resplit ? await readBlockRows(store, library, manifest.blocks[upgrade]!, dead[upgrade]!) : [];
    if (resplit) rewrite.add(upgrade);
    const added = folded.flatMap((delta) => (!delta.deleted && delta.projection ? [rowFieldsOf(delta.projection)] : []));
    const mergedPack = packBlocks(mergedRows, Math.max(1, mergedRows.length));
    const resplitPack = packBlocks(resplitRows, Math.max(1, resplitRows.length));
    const tailPack = packBlocks([...kept, ...added]);
    const packed = {
      blocks: [...mergedPack.blocks, ...resplitPack.blocks, ...tailPack.blocks],
      parts: [...mergedPack.parts, ...resplitPack.parts, ...tailPack.parts, ...(upgraded?.parts ?? [])],
    };
    await writeParts(store, library, packed.parts);
    const next = {
      watermark: added.reduce((max, row) => Math.max(max, row.createdAt), manifest.watermark),
      blocks: [
        ...manifest.blocks.flatMap((block, b) => (rewrite.has(b) ? [] : [{ ...block, dead: [...dead[b]!].sort((x, y) => x - y), ...(b === upgrade && upgraded ? { names: upgraded.names } : {}) }])),
        ...packed.blocks,
      ],
    };
    committed = await commitManifest(store, library, manifest, next, owner);
    if (!committed) {
      await deleteKeys(
        store,
        packed.parts.map((part) => columnPartKey(library.organizationId, library.libraryId, part.column, part.blockId, part.start)),
      );
      return 'lost';
    }
    // An orphan block's name index is under its block id (a new block's index id); found by its own Query.
    const orphanBlocks = [...new Set(snapshot.orphans.map((part) => part.blockId))];
    const orphanIndexParts = (await Promise.all(orphanBlocks.flatMap((blockId) => [readNameIndexParts(store, library, blockId), readNameIndexParts(store, library, blockId, 'cpn')]))).flat();
    await deleteKeys(store, [
      ...[...rewrite].flatMap((b) => blockPartKeys(library, manifest.blocks[b]!)),
      ...[...snapshot.orphans, ...orphanIndexParts].map((part) => columnPartKey(library.organizationId, library.libraryId, part.column, part.blockId, part.start)),
    ]);
    // Readers that saw no lease must have finished their parallel reads before any folded delta goes.
    const wait = consistencyWindowMs - (performance.now() - leasedAt);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await deleteDeltas(store, library, folded);
    return 'committed';
  } finally {
    if (!committed) await releaseLease(store, library, owner);
  }
}
