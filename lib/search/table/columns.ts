import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { FieldName, Row, RowFields } from './rows.js';

/**
 * Column groups of a block. A search reads only the groups its conditions, its order and its merge need,
 * so cost follows what is filtered, not the whole projection:
 *   m  status, category, state, revision, labels, flags, createdBy, updatedBy, MPNs, manufacturers (dictionary-coded)
 *   c  createdAt (epoch ms, delta-coded): the default order, and what places a delta's block row (with ids)
 *   p  CPN                u  updatedAt       n  name               d  description        e  eid
 *   i  ids (16 bytes each, uncompressed: random bytes do not compress)
 * Blocks written before `p` existed hold the CPNs in `c` ({ at, cpn }); reading `p` reads `c` for them.
 */
export const columnNames = ['m', 'c', 'p', 'u', 'n', 'd', 'e', 'i'] as const;
export type ColumnName = (typeof columnNames)[number];

const columnOfField: Record<FieldName, ColumnName> = {
  statusId: 'm',
  statusName: 'm',
  statusMapsTo: 'm',
  categoryId: 'm',
  categoryName: 'm',
  categoryType: 'm',
  state: 'm',
  revisionValue: 'm',
  labels: 'm',
  mpns: 'm',
  manufacturerIds: 'm',
  isArchived: 'm',
  notRevisionManaged: 'm',
  createdBy: 'm',
  updatedBy: 'm',
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
  }
}

/** Sets the fields of one column part on the rows it covers (rows[0] is the part's first row). */
export function decodeColumn(column: ColumnName, data: Uint8Array, rows: Row[]): void {
  if (column === 'i') {
    rows.forEach((row, i) => (row.id = uuidOf(data.subarray(i * 16, i * 16 + 16))));
    return;
  }
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
