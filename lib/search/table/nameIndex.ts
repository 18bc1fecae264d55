import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { VarintReader, VarintWriter } from './varint.js';

/**
 * The name index of one block: positional trigram postings over the lowercased names (the same
 * `toLowerCase()` the evaluator matches with; positions in UTF-16 code units), so a name `contains` with a
 * needle of at least 3 code units reads a few buckets of postings instead of the whole name column, and
 * gets the exact rows whose lowercased name includes the needle.
 *
 * Trigrams are hashed into a fixed number of buckets per block (`buckets`, recorded in the manifest); each
 * bucket is one immutable item (brotli over varints), split into pieces when it would pass maxPartBytes.
 * A needle's trigrams at offsets 0, 3, 6, ... and length-3 cover every code unit of it: a row holds the
 * needle at position p exactly when it holds each of those trigrams at p + offset.
 */
export const minIndexedNeedle = 3;

/** Blocks smaller than this are not indexed: their name part is cheaper to read than three buckets. */
export const minIndexedRows = 4000;

/** At most this many buckets per block, of at most maxPieces pieces (the part key holds bucket * maxPieces + piece in 6 digits). */
export const maxBuckets = 1024;
export const maxPieces = 100;

/**
 * Postings per bucket a block aims at: about 2 KB compressed, so a bucket read costs little beyond the
 * postings of the trigram it is read for.
 */
const postingsPerBucket = 1500;

const maxPartBytes = 300_000;

export interface Postings {
  /** Row of each posting, ascending; a row holds the trigram at each of its positions. */
  rows: number[];
  /** Position (code units into the lowercased name) of each posting, ascending within a row. */
  positions: number[];
}

/** FNV-1a over the three code units: stable forever (it places stored postings). */
export function trigramBucket(gram: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < gram.length; i++) {
    hash ^= gram.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % buckets;
}

/** The bucket count of a block with this many postings: a power of two, up to maxBuckets. */
export function bucketCount(postings: number): number {
  let buckets = 1;
  while (buckets < maxBuckets && buckets * postingsPerBucket < postings) buckets *= 2;
  return buckets;
}

/** The trigrams of a lowercased needle at offsets 0, 3, 6, ... and length-3: together they cover it. */
export function coveringTrigrams(needle: string): { gram: string; offset: number }[] {
  if (needle.length < minIndexedNeedle) throw new Error('a needle of fewer than 3 code units has no trigram');
  const grams: { gram: string; offset: number }[] = [];
  for (let offset = 0; offset + 3 <= needle.length; offset += 3) grams.push({ gram: needle.slice(offset, offset + 3), offset });
  const last = needle.length - 3;
  if (grams[grams.length - 1]!.offset !== last) grams.push({ gram: needle.slice(last), offset: last });
  return grams;
}

type Entry = { gram: string; rows: number[]; positions: number[] };

/**
 * One piece: entries sorted by trigram; per entry its three code units, its count, then the row deltas
 * and the positions as separate streams (they compress better apart).
 */
function encodePiece(entries: Entry[]): Buffer {
  const head = new VarintWriter();
  const rows = new VarintWriter();
  const positions = new VarintWriter();
  head.varint(entries.length);
  for (const entry of entries) {
    for (let i = 0; i < 3; i++) head.varint(entry.gram.charCodeAt(i));
    head.varint(entry.rows.length);
    let previous = 0;
    entry.rows.forEach((row, i) => {
      rows.varint(row - previous);
      previous = row;
      positions.varint(entry.positions[i]!);
    });
  }
  const h = head.buffer();
  const r = rows.buffer();
  const raw = Buffer.concat([h, r, positions.buffer()]);
  const lengths = new VarintWriter();
  lengths.varint(h.length);
  lengths.varint(r.length);
  // Quality 5, not 11: a piece is read whole and mostly costs the least a read costs (half a unit) whatever
  // its size, while 11 took 1.9 s for a 64,000-row block against 0.4 s (for 11 % fewer bytes); merges build
  // the index of up to 512,000 rows inside the search that triggers them.
  return brotliCompressSync(Buffer.concat([lengths.buffer(), raw]), { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
}

/** The entries of one stored piece (decodePiece(encodePiece(entries)) equals entries). */
export function decodePiece(data: Uint8Array): Map<string, Postings> {
  const raw = brotliDecompressSync(data);
  const lengths = new VarintReader(raw);
  const headLength = lengths.varint();
  const rowsLength = lengths.varint();
  const offset = lengths.position;
  const head = new VarintReader(raw.subarray(offset, offset + headLength));
  const rows = new VarintReader(raw.subarray(offset + headLength, offset + headLength + rowsLength));
  const positions = new VarintReader(raw.subarray(offset + headLength + rowsLength));
  const entries = new Map<string, Postings>();
  const count = head.varint();
  for (let e = 0; e < count; e++) {
    const gram = String.fromCharCode(head.varint(), head.varint(), head.varint());
    const n = head.varint();
    const postings: Postings = { rows: new Array(n), positions: new Array(n) };
    let row = 0;
    for (let i = 0; i < n; i++) {
      row += rows.varint();
      postings.rows[i] = row;
      postings.positions[i] = positions.varint();
    }
    entries.set(gram, postings);
  }
  return entries;
}

export interface NameIndexPart {
  bucket: number;
  piece: number;
  data: Buffer;
}

export interface EncodedNameIndex {
  buckets: number;
  /** Every bucket has piece 0 (empty buckets too: a missing part means a replaced block); some have more. */
  parts: NameIndexPart[];
}

/** Splits entries (by trigram, a large trigram by rows) until each piece is within maxPartBytes. */
function encodePieces(entries: Entry[], partBytes: number): Buffer[] {
  const data = encodePiece(entries);
  if (data.length <= partBytes) return [data];
  if (entries.length > 1) {
    const half = Math.ceil(entries.length / 2);
    return [...encodePieces(entries.slice(0, half), partBytes), ...encodePieces(entries.slice(half), partBytes)];
  }
  const [entry] = entries as [Entry];
  if (entry.rows.length < 2) return [data];
  const half = Math.ceil(entry.rows.length / 2);
  return [
    ...encodePieces([{ gram: entry.gram, rows: entry.rows.slice(0, half), positions: entry.positions.slice(0, half) }], partBytes),
    ...encodePieces([{ gram: entry.gram, rows: entry.rows.slice(half), positions: entry.positions.slice(half) }], partBytes),
  ];
}

/**
 * The name index of a block whose row i has name names[i] (null: never matches). `limits` are for tests:
 * the bucket count (default bucketCount of the postings) and the largest piece.
 */
export function encodeNameIndex(names: readonly (string | null | undefined)[], limits: { buckets?: number; partBytes?: number } = {}): EncodedNameIndex | null {
  const byGram = new Map<string, Entry>();
  let total = 0;
  names.forEach((name, row) => {
    if (name === null || name === undefined) return;
    const lowered = name.toLowerCase();
    for (let position = 0; position + 3 <= lowered.length; position++) {
      const gram = lowered.slice(position, position + 3);
      let entry = byGram.get(gram);
      if (!entry) byGram.set(gram, (entry = { gram, rows: [], positions: [] }));
      entry.rows.push(row);
      entry.positions.push(position);
      total++;
    }
  });
  const buckets = limits.buckets ?? bucketCount(total);
  const grouped: Entry[][] = Array.from({ length: buckets }, () => []);
  for (const entry of byGram.values()) grouped[trigramBucket(entry.gram, buckets)]!.push(entry);
  const parts: NameIndexPart[] = [];
  grouped.forEach((entries, bucket) => {
    entries.sort((a, b) => (a.gram < b.gram ? -1 : a.gram > b.gram ? 1 : 0));
    const pieces = encodePieces(entries, limits.partBytes ?? maxPartBytes);
    pieces.forEach((data, piece) => parts.push({ bucket, piece, data }));
  });
  // A bucket too large for its key space (pathological names): the block goes without an index and its
  // names are read instead.
  if (parts.some((part) => part.piece >= maxPieces)) return null;
  return { buckets, parts };
}

/** Merges the postings of one trigram from several pieces of its bucket (pieces in order). */
export function mergePostings(lists: Postings[]): Postings {
  if (lists.length === 1) return lists[0]!;
  return { rows: lists.flatMap((l) => l.rows), positions: lists.flatMap((l) => l.positions) };
}

const positionScale = 2 ** 24;

/**
 * The rows of a block whose lowercased name includes the needle (lowercased, at least 3 code units), from
 * the postings of its covering trigrams (undefined: the trigram occurs in no name of the block).
 */
export function matchingRows(needle: string, postingsOf: (gram: string) => Postings | undefined): Set<number> {
  const grams = coveringTrigrams(needle).map(({ gram, offset }) => ({ offset, postings: postingsOf(gram) }));
  const matches = new Set<number>();
  if (grams.some((g) => !g.postings || g.postings.rows.length === 0)) return matches;
  const anchor = grams.reduce((best, g) => (g.postings!.rows.length < best.postings!.rows.length ? g : best));
  const sets = new Map<Postings, Set<number>>();
  const others = grams
    .filter((g) => g !== anchor)
    .map(({ offset, postings }) => {
      let set = sets.get(postings!);
      if (!set) {
        set = new Set<number>();
        for (let i = 0; i < postings!.rows.length; i++) set.add(postings!.rows[i]! * positionScale + postings!.positions[i]!);
        sets.set(postings!, set);
      }
      return { offset, set };
    });
  const { rows, positions } = anchor.postings!;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (matches.has(row)) continue;
    const start = positions[i]! - anchor.offset;
    if (start < 0) continue;
    if (others.every(({ offset, set }) => set.has(row * positionScale + start + offset))) matches.add(row);
  }
  return matches;
}
