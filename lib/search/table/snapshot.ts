import type { Store } from '../../store/client.js';
import { committedWriteIds } from '../../store/pendingWrite.js';
import { decodeColumn, idPartRows, metaColumns, type ColumnName } from './columns.js';
import { rowFieldsOf, type Row } from './rows.js';
import type { NameMatcher } from './evaluate.js';
import { coveringTrigrams, decodePiece, matchingRows, mergePostings, minIndexedRows, trigramBucket, type Postings } from './nameIndex.js';
import {
  blockPartKeys,
  columnPartKey,
  hasNameIndex,
  nameIndexKeys,
  nameIndexStart,
  readColumn,
  readDeltas,
  readManifest,
  readParts,
  textIndexOf,
  type BlockEntry,
  type Delta,
  type LibraryRef,
  type Manifest,
  type StoredPart,
  type TextField,
} from './storage.js';

/** A block written before the name index that is large enough to have one (compaction adds it). */
/** The least a stored part costs to read (eventually consistent: half a unit per 4 KB, at least half a unit). */
const minPartRcu = 0.5;

/**
 * Whether reading these buckets of a block's index costs no more than reading the block's name (or CPN)
 * column, estimated at 4 bytes a row compressed (the bench's shuffled library stores 5 a name at 1,000-row
 * blocks, about 1 at 64,000 in its periodic order): each bucket costs at least half a read unit.
 */
export const indexWorthReading = (block: Pick<BlockEntry, 'rows'>, buckets: number) => buckets * minPartRcu <= Math.max(minPartRcu, (block.rows * 4) / 8192);

export const lacksNameIndex = (block: BlockEntry) => !block.names && block.rows >= minIndexedRows;

/** Blocks written before the `p` column hold their CPNs in `c`: reading CPNs reads both. */
function withLegacy(columns: Iterable<ColumnName>): ColumnName[] {
  const wanted = new Set(columns);
  if (wanted.has('p')) wanted.add('c');
  return [...wanted];
}

/** A part the manifest names is gone: a compaction replaced the block after this snapshot read the manifest. */
export class MissingPartError extends Error {}

/** Parts of no block in the manifest, older than this, are left by a failed compaction and may be deleted. */
const orphanAgeMs = 10 * 60 * 1000;

/**
 * A snapshot reads the deltas (eventually consistent) and the manifest (strongly consistent) in parallel.
 * That is safe because a compaction takes its lease (in the manifest item) at least this long before it
 * deletes a delta it folded: a reader that saw no lease and finished both reads within this window cannot
 * have missed the commit of a delta it no longer saw; otherwise it reads the manifest again, after the deltas.
 */
export const consistencyWindowMs = 250;

/**
 * What one search sees of a library: the outstanding deltas, a manifest that holds every delta folded
 * and deleted before the deltas were read (see consistencyWindowMs), and the column groups read so far.
 * Columns are read on demand and kept, so the several reads of one request (vocabulary, then results)
 * share them.
 *
 * Merging: a delta always holds the newest state of its component (compactions commit in order, and a
 * delta is deleted only while unchanged), so its block row, if any, is superseded. The row is found by
 * CPN and createdAt (CPNs are never reused), or by id when that does not settle it (tombstones, a delta
 * that arrived after a later one was folded); only rows created before the watermark can be in a block.
 */
export class LibrarySnapshot {
  private readonly blockRows: Row[][];
  private readonly live: Uint8Array[];
  /** Column groups read or being read: concurrent searches of one request share each read. */
  private readonly loading = new Map<ColumnName, Promise<void>>();
  private located: Promise<void> | undefined;
  /** Block rows that outstanding deltas supersede, by component id. */
  readonly locations = new Map<string, { block: number; index: number }>();
  /** Ids had to be read to place some deltas: compaction should run soon. */
  usedIdFallback = false;
  readonly orphans: StoredPart[] = [];
  /** A name condition read the names of a block that should have a name index: compaction adds it. */
  readUnindexedNames = false;
  /** Decoded index buckets, by `<field>#<block>#<bucket>` (each read once per snapshot), and the reads under way. */
  private readonly buckets = new Map<string, Map<string, Postings>>();
  private readonly bucketReads = new Map<string, Promise<void>>();
  /** Blocks whose name or CPN parts were read by key (blocks without that index), by `<column>#<block>`. */
  private readonly namedBlocks = new Map<string, Promise<void>>();

  private constructor(
    private readonly store: Store,
    readonly library: LibraryRef,
    readonly manifest: Manifest,
    /** Visible deltas: pending ones of uncommitted item writes are left out. */
    readonly deltas: Delta[],
  ) {
    this.blockRows = manifest.blocks.map((block, b) => Array.from({ length: block.rows }, (_, index) => ({ block: b, index })));
    this.live = manifest.blocks.map((block) => {
      const live = new Uint8Array(block.rows).fill(1);
      for (const index of block.dead) live[index] = 0;
      return live;
    });
  }

  /**
   * Reads the deltas, the manifest and the column groups a search is known to need, all at once (see
   * consistencyWindowMs for why the deltas need not be read first): the manifest is read again, after the
   * deltas, when a compaction holds the lease or the reads took longer than the window.
   */
  static async read(store: Store, library: LibraryRef, columns: Iterable<ColumnName>): Promise<LibrarySnapshot> {
    const wanted = withLegacy(columns);
    const started = performance.now();
    const [deltas, first, parts] = await Promise.all([readDeltas(store, library), readManifest(store, library), Promise.all(wanted.map((column) => readColumn(store, library, column)))]);
    const manifest = first.lease || performance.now() - started > consistencyWindowMs ? await readManifest(store, library) : first;
    const pending = deltas.filter((d) => d.writeId);
    const committed = pending.length
      ? await committedWriteIds(
          store,
          library.organizationId,
          library.libraryId,
          pending.map((d) => d.writeId!),
        )
      : new Set<string>();
    const snapshot = new LibrarySnapshot(
      store,
      library,
      manifest,
      deltas.filter((d) => !d.writeId || committed.has(d.writeId)),
    );
    wanted.forEach((column, c) => {
      snapshot.accept(column, parts[c]!);
      snapshot.loading.set(column, Promise.resolve());
    });
    return snapshot;
  }

  get totalBlockRows(): number {
    return this.manifest.blocks.reduce((sum, block) => sum + block.rows, 0);
  }

  /** Reads the column groups not read yet (one Query each, in parallel), then places the deltas. */
  async ensure(columns: Iterable<ColumnName>): Promise<void> {
    await this.load(columns);
    this.located ??= this.locateDeltas();
    await this.located;
  }

  private async load(requested: Iterable<ColumnName>): Promise<void> {
    const columns = withLegacy(requested);
    // Blocks written before the split groups hold them all in `m`: read it too while any block has it.
    if (columns.some((column) => metaColumns.has(column)) && this.manifest.blocks.some((block) => block.parts.m.length > 0)) columns.push('m');
    for (const column of columns) {
      if (!this.loading.has(column) && this.manifest.blocks.length > 0)
        this.loading.set(
          column,
          readColumn(this.store, this.library, column).then((parts) => this.accept(column, parts)),
        );
    }
    await Promise.all(columns.map((column) => this.loading.get(column)));
  }

  /** Decodes the parts of one column group that the manifest names; the others are orphans or newer. */
  private accept(column: ColumnName, parts: StoredPart[]): void {
    const blockIndex = new Map(this.manifest.blocks.map((block, b) => [block.id, b]));
    const byKey = new Map<string, StoredPart>();
    const now = Date.now();
    for (const part of parts) {
      if (blockIndex.has(part.blockId)) byKey.set(`${part.blockId}#${part.start}`, part);
      else if (now - Date.parse(part.createdAt) > orphanAgeMs) this.orphans.push(part);
    }
    this.manifest.blocks.forEach((block, b) => {
      for (const start of block.parts[column] ?? []) {
        const part = byKey.get(`${block.id}#${start}`);
        if (!part) throw new MissingPartError(`search index part ${column}/${block.id}/${start} is gone`);
        this.decode(b, column, start, part.data);
      }
    });
  }

  private decode(block: number, column: ColumnName, start: number, data: Uint8Array): void {
    const rows = this.blockRows[block]!;
    const parts = this.manifest.blocks[block]!.parts[column] ?? [];
    const next = parts[parts.indexOf(start) + 1] ?? rows.length;
    decodeColumn(column, data, rows.slice(start, next));
  }

  /**
   * How `contains` needles (lowercased, at least 3 code units) on names or CPNs match this snapshot's rows:
   * block rows of blocks with that field's index by their postings (only the buckets of the needles'
   * trigrams are read); other block rows by their values (read for those blocks only, or the whole column
   * when no block has an index, or when it is read anyway); outstanding deltas by their values.
   */
  async nameMatcher(needles: Iterable<string>, field: TextField = 'name'): Promise<NameMatcher> {
    const wanted = [...new Set(needles)];
    const blocks = this.manifest.blocks;
    const column = field === 'name' ? 'n' : 'p';
    const indexed = (block: BlockEntry) => hasNameIndex(block, field);
    const direct = (row: Row, needle: string) => {
      const value = field === 'name' ? row.name : row.cpn;
      return value !== undefined && value !== null && value.toLowerCase().includes(needle);
    };
    // Only names get an index added to older blocks (compaction, from `n`).
    const flagUnindexed = (unindexed: BlockEntry[]) => {
      if (field === 'name' && unindexed.some((block) => lacksNameIndex(block))) this.readUnindexedNames = true;
    };
    const grams = [...new Set(wanted.flatMap((needle) => coveringTrigrams(needle).map(({ gram }) => gram)))];
    const bucketOf = (block: BlockEntry, gram: string) => trigramBucket(gram, textIndexOf(block, field)!.buckets);
    const bucketsOf = (block: BlockEntry) => [...new Set(grams.map((gram) => bucketOf(block, gram)))];
    // A block's index is read only where its buckets cost less than its column: many needles (or long ones)
    // touch many buckets, each at least half a read unit, and past the column's cost reading it is cheaper.
    const useIndex = blocks.map((block) => indexed(block) && indexWorthReading(block, bucketsOf(block).length));
    if (wanted.length === 0 || this.loading.has(column) || useIndex.every((use) => !use)) {
      flagUnindexed(blocks);
      await this.load([column]);
      return { contains: direct };
    }
    const unindexed = blocks.flatMap((_, b) => (useIndex[b] ? [] : [b]));
    flagUnindexed(unindexed.map((b) => blocks[b]!));
    const needed = blocks.flatMap((block, b) => (useIndex[b] ? bucketsOf(block).map((bucket) => ({ block: b, bucket })) : []));
    await Promise.all([...unindexed.map((b) => this.loadBlockValues(b, column)), this.loadBuckets(needed, field)]);
    const matches = new Map<string, Set<number>[]>(wanted.map((needle) => [needle, []]));
    blocks.forEach((block, b) => {
      if (!useIndex[b]) return;
      const postingsOf = (gram: string) => this.buckets.get(`${field}#${b}#${bucketOf(block, gram)}`)!.get(gram);
      for (const needle of wanted) matches.get(needle)![b] = matchingRows(needle, postingsOf);
    });
    return {
      contains: (row, needle) => {
        if (row.block < 0 || !useIndex[row.block]) return direct(row, needle);
        return matches.get(needle)?.[row.block]?.has(row.index) ?? direct(row, needle);
      },
    };
  }

  /** Reads these buckets of blocks' indexes of a field that are not read yet, all in one BatchGetItem, and decodes them (pieces merged per trigram). */
  private async loadBuckets(wanted: { block: number; bucket: number }[], field: TextField): Promise<void> {
    const keyOf = ({ block, bucket }: { block: number; bucket: number }) => `${field}#${block}#${bucket}`;
    const missing = wanted.filter((at) => !this.buckets.has(keyOf(at)) && !this.bucketReads.has(keyOf(at)));
    if (missing.length > 0) {
      const keysOf = ({ block, bucket }: { block: number; bucket: number }) => nameIndexKeys(this.library, this.manifest.blocks[block]!, [bucket], field);
      const read = readParts(this.store, missing.flatMap(keysOf)).then((parts) => {
        const byKey = new Map(parts.map((part) => [`${part.blockId}#${part.start}`, part]));
        for (const at of missing) {
          const index = textIndexOf(this.manifest.blocks[at.block]!, field)!;
          const lists = new Map<string, Postings[]>();
          for (let piece = 0; piece < (new Map(index.split).get(at.bucket) ?? 1); piece++) {
            const part = byKey.get(`${index.id}#${nameIndexStart(at.bucket, piece)}`);
            if (!part) throw new MissingPartError(`search index ${field} bucket ${index.id}/${at.bucket}/${piece} is gone`);
            for (const [gram, postings] of decodePiece(part.data)) lists.set(gram, [...(lists.get(gram) ?? []), postings]);
          }
          this.buckets.set(keyOf(at), new Map([...lists].map(([gram, pieces]) => [gram, mergePostings(pieces)])));
        }
      });
      for (const at of missing) this.bucketReads.set(keyOf(at), read);
    }
    await Promise.all(wanted.map((at) => this.bucketReads.get(keyOf(at))));
  }

  /**
   * The names or CPNs of one block (its parts of that column, by key), for a block without that index.
   * Blocks written before `p` hold their CPNs in `c`.
   */
  private loadBlockValues(block: number, requested: 'n' | 'p'): Promise<void> {
    const entry = this.manifest.blocks[block]!;
    const column: ColumnName = requested === 'p' && entry.parts.p.length === 0 ? 'c' : requested;
    let loaded = this.namedBlocks.get(`${column}#${block}`);
    if (!loaded) {
      const keys = blockPartKeys(this.library, entry, [column]);
      loaded = readParts(this.store, keys).then((parts) => {
        if (parts.length !== keys.length) throw new MissingPartError(`search index ${column} parts of ${entry.id} are gone`);
        for (const part of parts) this.decode(block, column, part.start, part.data);
      });
      this.namedBlocks.set(`${column}#${block}`, loaded);
    }
    return loaded;
  }

  /** The deltas that may have a row in a block: tombstones, and components created before the watermark. */
  private deltasToPlace(): Delta[] {
    if (this.manifest.blocks.length === 0) return [];
    return this.deltas.filter((d) => d.deleted || !d.projection || Date.parse(d.projection.createdAt) <= this.manifest.watermark);
  }

  /**
   * Finds the block rows the deltas supersede. A component's createdAt never changes, so its row is one of
   * the live rows created at that same millisecond: their ids are read (the id parts that hold them, not the
   * column) and compared. Only tombstones written before they kept createdAt need the whole id column.
   */
  private async locateDeltas(): Promise<void> {
    const toPlace = this.deltasToPlace();
    const times = new Set<number>();
    const unresolved: Delta[] = [];
    for (const delta of toPlace) {
      const createdAt = delta.projection?.createdAt ?? delta.createdAt;
      if (createdAt) times.add(Date.parse(createdAt));
      else unresolved.push(delta);
    }
    if (times.size > 0) {
      await this.load(['c']);
      const candidates: Row[] = [];
      this.forEachLiveBlockRow((row) => {
        if (row.createdAt !== undefined && times.has(row.createdAt)) candidates.push(row);
      });
      await this.loadIds(candidates);
      const wantedIds = new Set(toPlace.map((d) => d.componentId));
      for (const row of candidates) if (wantedIds.has(row.id!)) this.locations.set(row.id!, { block: row.block, index: row.index });
    }
    if (unresolved.length > 0) {
      this.usedIdFallback = true;
      await this.load(['i']);
      const wantedIds = new Set(unresolved.map((d) => d.componentId));
      this.forEachLiveBlockRow((row) => {
        if (row.id !== undefined && wantedIds.has(row.id)) this.locations.set(row.id, { block: row.block, index: row.index });
      });
    }
  }

  private forEachLiveBlockRow(visit: (row: Row) => void): void {
    this.blockRows.forEach((rows, b) => {
      const live = this.live[b]!;
      for (let i = 0; i < rows.length; i++) if (live[i]) visit(rows[i]!);
    });
  }

  /** Every component of the library, once: live block rows not superseded, then the outstanding deltas. */
  rows(): Row[] {
    if (!this.located) throw new Error('LibrarySnapshot.rows() before ensure()');
    const superseded = this.blockRows.map(() => new Set<number>());
    for (const { block, index } of this.locations.values()) superseded[block]!.add(index);
    const rows: Row[] = [];
    this.forEachLiveBlockRow((row) => {
      if (!superseded[row.block]!.has(row.index)) rows.push(row);
    });
    this.deltas.forEach((delta, index) => {
      if (!delta.deleted && delta.projection) rows.push({ ...rowFieldsOf(delta.projection), block: -1, index });
    });
    return rows;
  }

  /** Reads the ids of these rows: the parts that hold them, or the whole id column when that is cheaper. */
  async loadIds(rows: Row[]): Promise<void> {
    const missing = rows.filter((row) => row.id === undefined && row.block >= 0);
    if (missing.length === 0) return;
    const parts = new Map<string, { block: number; start: number }>();
    for (const row of missing) {
      const start = Math.floor(row.index / idPartRows) * idPartRows;
      parts.set(`${row.block}#${start}`, { block: row.block, start });
    }
    // A part read alone costs 0.5 RCU; the whole column costs 0.5 RCU per 8 KB, 16 bytes per row.
    if (this.loading.has('i') || parts.size * 0.5 >= (this.totalBlockRows * 16) / 8192) return this.load(['i']);
    const wanted = [...parts.values()];
    const keys = wanted.map(({ block, start }) => columnPartKey(this.library.organizationId, this.library.libraryId, 'i', this.manifest.blocks[block]!.id, start));
    const found = new Map((await readParts(this.store, keys)).map((part) => [`${part.blockId}#${part.start}`, part]));
    for (const { block, start } of wanted) {
      const part = found.get(`${this.manifest.blocks[block]!.id}#${start}`);
      if (!part) throw new MissingPartError(`search index part i/${this.manifest.blocks[block]!.id}/${start} is gone`);
      this.decode(block, 'i', start, part.data);
    }
  }
}
