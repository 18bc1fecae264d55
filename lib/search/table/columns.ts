import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { FieldName, Row, RowFields } from './rows.js';
import { VarintReader, VarintWriter } from './varint.js';

/**
 * Column groups of a block. A search reads only the groups its conditions, its order and its merge need,
 * so cost follows what is filtered, not the whole projection:
 *   s  status (id, name, mapsTo)     k  category (id, name, type)     y  category type alone (a few values:
 *      what type filters and the TYPE grouping read, at a fraction of k)
 *   f  flags: archived, NRM, released (state)
 *   l  labels                        r  revision                      w  createdBy, updatedBy
 *   v  MPNs and manufacturers (each dictionary-coded: the dictionary, then one varint a row)
 *   c  createdAt (epoch ms, delta-coded): the default order, and what places a delta's block row (with ids)
 *   p  CPN                u  updatedAt       n  name               d  description        e  eid
 *   i  ids (16 bytes each, uncompressed: random bytes do not compress)
 *   m  (blocks written before s, k, f, l, r, w and v) all of those in one group: a block that has it is read
 *      whole for any of them (snapshot.ts); compaction rewrites such blocks in the split groups.
 * Blocks written before `p` existed hold the CPNs in `c` ({ at, cpn }); reading `p` reads `c` for them.
 */
export const columnNames = ['m', 'c', 'p', 'u', 'n', 'd', 'e', 'i', 's', 'k', 'y', 'f', 'l', 'r', 'w', 'v'] as const;
export type ColumnName = (typeof columnNames)[number];

/** The column groups new blocks are written in (not `m`, which only older blocks hold). */
export const storedColumns: readonly ColumnName[] = columnNames.filter((column) => column !== 'm');

/** The groups `m` held: a block written with `m` answers any of them from it. */
export const metaColumns: ReadonlySet<ColumnName> = new Set(['s', 'k', 'y', 'f', 'l', 'r', 'w', 'v']);

const columnOfField: Record<FieldName, ColumnName> = {
  statusId: 's',
  statusName: 's',
  statusMapsTo: 's',
  categoryId: 'k',
  categoryName: 'k',
  categoryType: 'y',
  state: 'f',
  revisionValue: 'r',
  labels: 'l',
  mpns: 'v',
  manufacturerIds: 'v',
  isArchived: 'f',
  notRevisionManaged: 'f',
  createdBy: 'w',
  updatedBy: 'w',
  createdAt: 'c',
  updatedAt: 'u',
  name: 'n',
  description: 'd',
  cpn: 'p',
  eid: 'e',
  id: 'i',
};

export function columnsOf(fields: Iterable<FieldName>): Set<ColumnName> {
  return new Set([...fields].map((field) => columnOfField[field]));
}

/** Rows per part of the id column: a part is 3.2 KB, one 0.5 RCU read, so a page's ids cost little. */
export const idPartRows = 200;

const compress = (json: unknown) => brotliCompressSync(Buffer.from(JSON.stringify(json)), { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } });
const decompress = (data: Uint8Array) => JSON.parse(brotliDecompressSync(data).toString('utf8')) as unknown;

class Dictionary<T> {
  readonly values: T[] = [];
  private readonly index = new Map<string, number>();
  add(value: T): number {
    const key = JSON.stringify(value);
    let at = this.index.get(key);
    if (at === undefined) {
      at = this.values.length;
      this.values.push(value);
      this.index.set(key, at);
    }
    return at;
  }
}

interface MetaColumn {
  s: [string, string, string][];
  k: [string, string, string][];
  r: string[];
  u: string[];
  l: string[];
  st: number[];
  ca: number[];
  rv: number[];
  cb: number[];
  ub: number[];
  f: number[];
  lb: number[][];
  /** MPNs and manufacturer ids: dictionaries and per-row lists (absent when no row of the block has any). */
  p?: string[];
  v?: string[];
  mp?: number[][];
  mf?: number[][];
}

const archivedFlag = 1;
const nrmFlag = 2;
const releasedFlag = 4;

function encodeMeta(rows: RowFields[]): MetaColumn {
  const statuses = new Dictionary<[string, string, string]>();
  const categories = new Dictionary<[string, string, string]>();
  const revisions = new Dictionary<string>();
  const users = new Dictionary<string>();
  const labels = new Dictionary<string>();
  const mpns = new Dictionary<string>();
  const manufacturers = new Dictionary<string>();
  const sourced = rows.some((row) => (row.mpns?.length ?? 0) + (row.manufacturerIds?.length ?? 0) > 0);
  const column: MetaColumn = {
    s: statuses.values,
    k: categories.values,
    r: revisions.values,
    u: users.values,
    l: labels.values,
    st: [],
    ca: [],
    rv: [],
    cb: [],
    ub: [],
    f: [],
    lb: [],
    ...(sourced ? { p: mpns.values, v: manufacturers.values, mp: [], mf: [] } : {}),
  };
  for (const row of rows) {
    column.st.push(statuses.add([row.statusId, row.statusName, row.statusMapsTo]));
    column.ca.push(categories.add([row.categoryId, row.categoryName, row.categoryType]));
    column.rv.push(revisions.add(row.revisionValue));
    column.cb.push(users.add(row.createdBy));
    column.ub.push(users.add(row.updatedBy));
    column.f.push((row.isArchived ? archivedFlag : 0) | (row.notRevisionManaged ? nrmFlag : 0) | (row.state === 'RELEASED' ? releasedFlag : 0));
    column.lb.push(row.labels.map((label) => labels.add(label)));
    column.mp?.push((row.mpns ?? []).map((mpn) => mpns.add(mpn)));
    column.mf?.push((row.manufacturerIds ?? []).map((id) => manufacturers.add(id)));
  }
  return column;
}

function decodeMeta(column: MetaColumn, rows: Row[]): void {
  rows.forEach((row, i) => {
    const [statusId, statusName, statusMapsTo] = column.s[column.st[i]!]!;
    const [categoryId, categoryName, categoryType] = column.k[column.ca[i]!]!;
    const flags = column.f[i]!;
    Object.assign(row, {
      statusId,
      statusName,
      statusMapsTo,
      categoryId,
      categoryName,
      categoryType,
      revisionValue: column.r[column.rv[i]!]!,
      createdBy: column.u[column.cb[i]!]!,
      updatedBy: column.u[column.ub[i]!]!,
      isArchived: (flags & archivedFlag) !== 0,
      notRevisionManaged: (flags & nrmFlag) !== 0,
      state: flags & releasedFlag ? 'RELEASED' : 'MODIFIED',
      labels: column.lb[i]!.map((label) => column.l[label]!),
      ...(column.mp ? { mpns: column.mp[i]!.map((mpn) => column.p![mpn]!), manufacturerIds: column.mf![i]!.map((id) => column.v![id]!) } : {}),
    });
  });
}

/**
 * A dictionary-coded group: a JSON header (its dictionaries) and streams of one varint per row, brotli over
 * both. Symbols as bytes compress close to their entropy (a status of 5 values in about 2.4 bits a row).
 */
function packCoded(header: unknown, streams: number[][]): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const head = new VarintWriter();
  head.varint(json.length);
  const body = new VarintWriter();
  for (const stream of streams) for (const value of stream) body.varint(value);
  return brotliCompressSync(Buffer.concat([head.buffer(), json, body.buffer()]), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
}

/** The header of a dictionary-coded part, and its streams read on demand (`rows` varints each). */
function unpackCoded<H>(data: Uint8Array, rows: number): { header: H; streams: (count: number) => number[][] } {
  const raw = brotliDecompressSync(data);
  const head = new VarintReader(raw);
  const length = head.varint();
  const header = JSON.parse(raw.subarray(head.position, head.position + length).toString('utf8')) as H;
  const reader = new VarintReader(raw.subarray(head.position + length));
  return { header, streams: (count) => Array.from({ length: count }, () => Array.from({ length: rows }, () => reader.varint())) };
}

/** Lists (labels, MPNs) as a dictionary of values and a dictionary of the distinct lists: one symbol a row. */
function encodeLists(lists: string[][]): { values: string[]; sets: number[][]; rows: number[] } {
  const values = new Dictionary<string>();
  const sets = new Dictionary<number[]>();
  const rows = lists.map((list) => sets.add(list.map((value) => values.add(value))));
  return { values: values.values, sets: sets.values, rows };
}

const decodeLists = (values: string[], sets: number[][], rows: number[]) => rows.map((set) => sets[set]!.map((value) => values[value]!));

interface ListsHeader {
  values: string[];
  sets: number[][];
}

function encodeGroup(column: ColumnName, rows: RowFields[]): Buffer {
  switch (column) {
    case 's': {
      const statuses = new Dictionary<[string, string, string]>();
      const symbols = rows.map((row) => statuses.add([row.statusId, row.statusName, row.statusMapsTo]));
      return packCoded(statuses.values, [symbols]);
    }
    case 'k': {
      const categories = new Dictionary<[string, string, string]>();
      const symbols = rows.map((row) => categories.add([row.categoryId, row.categoryName, row.categoryType]));
      return packCoded(categories.values, [symbols]);
    }
    case 'y': {
      const types = new Dictionary<string>();
      const symbols = rows.map((row) => types.add(row.categoryType));
      return packCoded(types.values, [symbols]);
    }
    case 'f':
      return packCoded(null, [rows.map((row) => (row.isArchived ? archivedFlag : 0) | (row.notRevisionManaged ? nrmFlag : 0) | (row.state === 'RELEASED' ? releasedFlag : 0))]);
    case 'r': {
      const revisions = new Dictionary<string>();
      const symbols = rows.map((row) => revisions.add(row.revisionValue));
      return packCoded(revisions.values, [symbols]);
    }
    case 'l': {
      const { values, sets, rows: symbols } = encodeLists(rows.map((row) => row.labels));
      return packCoded({ values, sets } satisfies ListsHeader, [symbols]);
    }
    case 'w': {
      const users = new Dictionary<string>();
      const created = rows.map((row) => users.add(row.createdBy));
      const updated = rows.map((row) => users.add(row.updatedBy));
      return packCoded(users.values, [created, updated]);
    }
    case 'v': {
      // As in `m`: absent lists when no row of the part has a manufacturer part.
      if (!rows.some((row) => (row.mpns?.length ?? 0) + (row.manufacturerIds?.length ?? 0) > 0)) return packCoded(null, []);
      const mpns = encodeLists(rows.map((row) => row.mpns ?? []));
      const manufacturers = encodeLists(rows.map((row) => row.manufacturerIds ?? []));
      return packCoded({ p: { values: mpns.values, sets: mpns.sets }, v: { values: manufacturers.values, sets: manufacturers.sets } }, [mpns.rows, manufacturers.rows]);
    }
    default:
      throw new Error(`column ${column} is not dictionary-coded`);
  }
}

function decodeGroup(column: ColumnName, data: Uint8Array, rows: Row[]): void {
  const one = <H>(count = 1) => {
    const { header, streams } = unpackCoded<H>(data, rows.length);
    return { header, streams: streams(count) };
  };
  switch (column) {
    case 's': {
      const { header, streams } = one<[string, string, string][]>();
      return rows.forEach((row, i) => {
        [row.statusId, row.statusName, row.statusMapsTo] = header[streams[0]![i]!]!;
      });
    }
    case 'k': {
      const { header, streams } = one<[string, string, string][]>();
      return rows.forEach((row, i) => {
        [row.categoryId, row.categoryName, row.categoryType] = header[streams[0]![i]!]!;
      });
    }
    case 'y': {
      const { header, streams } = one<string[]>();
      return rows.forEach((row, i) => void (row.categoryType = header[streams[0]![i]!]!));
    }
    case 'f': {
      const { streams } = one<null>();
      return rows.forEach((row, i) => {
        const flags = streams[0]![i]!;
        row.isArchived = (flags & archivedFlag) !== 0;
        row.notRevisionManaged = (flags & nrmFlag) !== 0;
        row.state = flags & releasedFlag ? 'RELEASED' : 'MODIFIED';
      });
    }
    case 'r': {
      const { header, streams } = one<string[]>();
      return rows.forEach((row, i) => void (row.revisionValue = header[streams[0]![i]!]!));
    }
    case 'l': {
      const { header, streams } = one<ListsHeader>();
      const labels = decodeLists(header.values, header.sets, streams[0]!);
      return rows.forEach((row, i) => void (row.labels = labels[i]!));
    }
    case 'w': {
      const { header, streams } = one<string[]>(2);
      return rows.forEach((row, i) => {
        row.createdBy = header[streams[0]![i]!]!;
        row.updatedBy = header[streams[1]![i]!]!;
      });
    }
    case 'v': {
      const coded = unpackCoded<{ p: ListsHeader; v: ListsHeader } | null>(data, rows.length);
      const header = coded.header;
      if (!header) return;
      const [mpnSets, manufacturerSets] = coded.streams(2);
      const mpns = decodeLists(header.p.values, header.p.sets, mpnSets!);
      const manufacturers = decodeLists(header.v.values, header.v.sets, manufacturerSets!);
      return rows.forEach((row, i) => {
        row.mpns = mpns[i]!;
        row.manufacturerIds = manufacturers[i]!;
      });
    }
  }
}

function encodeTimes(values: number[]): number[] {
  return values.map((value, i) => (Number.isFinite(value) ? value : 0) - (i === 0 ? 0 : Number.isFinite(values[i - 1]!) ? values[i - 1]! : 0));
}

function decodeTimes(deltas: number[]): number[] {
  let previous = 0;
  return deltas.map((delta) => (previous += delta));
}

function uuidBytes(id: string): Buffer {
  const hex = id.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`search index: component id ${id} is not a UUID`);
  return Buffer.from(hex, 'hex');
}

function uuidOf(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The stored bytes of one column part for these rows (a contiguous range of a block). */
function encodeColumn(column: ColumnName, rows: RowFields[]): Buffer {
  switch (column) {
    case 'm':
      return compress(encodeMeta(rows));
    case 'c':
      return compress(encodeTimes(rows.map((r) => r.createdAt)));
    case 'p':
      return compress(rows.map((r) => r.cpn));
    case 'u':
      return compress(encodeTimes(rows.map((r) => r.updatedAt)));
    case 'n':
      return compress(rows.map((r) => r.name));
    case 'd':
      return compress(rows.map((r) => r.description));
    case 'e':
      return compress(rows.map((r) => r.eid));
    case 'i':
      return Buffer.concat(rows.map((r) => uuidBytes(r.id)));
    default:
      return encodeGroup(column, rows);
  }
}

/** Sets the fields of one column part on the rows it covers (rows[0] is the part's first row). */
export function decodeColumn(column: ColumnName, data: Uint8Array, rows: Row[]): void {
  if (column === 'i') {
    rows.forEach((row, i) => (row.id = uuidOf(data.subarray(i * 16, i * 16 + 16))));
    return;
  }
  if (metaColumns.has(column)) return decodeGroup(column, data, rows);
  const value = decompress(data);
  switch (column) {
    case 'm':
      return decodeMeta(value as MetaColumn, rows);
    case 'c': {
      if (Array.isArray(value)) return void decodeTimes(value as number[]).forEach((time, i) => (rows[i]!.createdAt = time));
      const { at, cpn } = value as { at: number[]; cpn: string[] };
      return void decodeTimes(at).forEach((time, i) => Object.assign(rows[i]!, { createdAt: time, cpn: cpn[i]! }));
    }
    case 'p':
      return void (value as string[]).forEach((cpn, i) => (rows[i]!.cpn = cpn));
    case 'u':
      return void decodeTimes(value as number[]).forEach((time, i) => (rows[i]!.updatedAt = time));
    case 'n':
      return void (value as string[]).forEach((name, i) => (rows[i]!.name = name));
    case 'd':
      return void (value as (string | null)[]).forEach((description, i) => (rows[i]!.description = description));
    case 'e':
      return void (value as (string | null)[]).forEach((eid, i) => (rows[i]!.eid = eid));
  }
}

/** Largest stored part: DynamoDB items stop at 400 KB; a column of long descriptions is split. */
const maxPartBytes = 300_000;

export interface ColumnPart {
  start: number;
  data: Buffer;
}

/** One column of a block as parts of at most maxPartBytes (ids: fixed parts of idPartRows rows). */
export function encodeColumnParts(column: ColumnName, rows: RowFields[]): ColumnPart[] {
  if (column === 'i') {
    const parts: ColumnPart[] = [];
    for (let start = 0; start < rows.length; start += idPartRows) parts.push({ start, data: encodeColumn('i', rows.slice(start, start + idPartRows)) });
    return parts;
  }
  const split = (start: number, slice: RowFields[]): ColumnPart[] => {
    const data = encodeColumn(column, slice);
    if (data.length <= maxPartBytes || slice.length === 1) return [{ start, data }];
    const half = Math.ceil(slice.length / 2);
    return [...split(start, slice.slice(0, half)), ...split(start + half, slice.slice(half))];
  };
  return split(0, rows);
}
