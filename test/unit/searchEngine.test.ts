import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultRevisionScheme, type RevisionScheme } from '../../lib/config/revisionScheme.js';
import { decodeCursor } from '../../lib/search/cursor.js';
import { dateInterval, parseDateOperand, validateFilter } from '../../lib/search/filter.js';
import { columnNames, decodeColumn, encodeColumnParts, idPartRows } from '../../lib/search/table/columns.js';
import { compileFilter, likePattern } from '../../lib/search/table/evaluate.js';
import { mergeCandidates } from '../../lib/search/table/compaction.js';
import type { BlockEntry } from '../../lib/search/table/storage.js';
import { brotliCompressSync } from 'node:zlib';
import { pageRows } from '../../lib/search/table/paging.js';
import type { Row, RowFields } from '../../lib/search/table/rows.js';
import { searchRow as rowFields } from '../support/searchRows.js';

const asRow = (fields: RowFields, index: number): Row => ({ ...fields, block: 0, index });

describe('column blocks', () => {
  it('decode what they encode, every column', () => {
    const rows = Array.from({ length: 450 }, (_, n) => rowFields(n, { labels: n % 5 ? ['a', 'b'] : [], state: n % 4 ? 'MODIFIED' : 'RELEASED', isArchived: n % 7 === 0 }));
    const decoded: Row[] = rows.map((_, index) => ({ block: 0, index }));
    for (const column of columnNames) {
      for (const part of encodeColumnParts(column, rows)) decodeColumn(column, part.data, decoded.slice(part.start));
    }
    expect(decoded.map(({ block: _b, index: _i, ...fields }) => fields)).toEqual(rows);
  });

  it('read the CPNs of blocks written before the p column from their c column', () => {
    const rows = Array.from({ length: 3 }, (_, n) => rowFields(n));
    const legacy = brotliCompressSync(Buffer.from(JSON.stringify({ at: [rows[0]!.createdAt, 1000, 1000], cpn: rows.map((r) => r.cpn) })));
    const decoded: Row[] = rows.map((_, index) => ({ block: 0, index }));
    decodeColumn('c', legacy, decoded);
    expect(decoded.map((r) => [r.createdAt, r.cpn])).toEqual(rows.map((r) => [r.createdAt, r.cpn]));
  });

  it('store ids in parts of a fixed number of rows, and split a column that would not fit in one item', () => {
    const rows = Array.from({ length: 450 }, (_, n) => rowFields(n));
    expect(encodeColumnParts('i', rows).map((p) => p.start)).toEqual([0, idPartRows, 2 * idPartRows]);
    const parts = encodeColumnParts(
      'd',
      rows.map((r) => ({ ...r, description: randomBytes(7_500).toString('base64') })),
    );
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.data.length <= 300_000)).toBe(true);
  });
});

describe('filter evaluation', () => {
  it.each([
    ['res%', 'Resistor 10k', true],
    ['RES%', 'resistor', true],
    ['%10_', 'Resistor 10k', true],
    ['%10_', 'Resistor 10', false],
    ['r_s', 'res', true],
    ['r_s', 'rs', false],
    ['a.b', 'aXb', false],
    ['a.b', 'a.b', true],
    ['(x)*[y]', '(x)*[y]', true],
    ['%line two%', 'line one\nline two', true],
  ])('like %s on %s: %s', (pattern, value, expected) => {
    expect(likePattern(pattern).test(value)).toBe(expected);
  });

  it('treats a missing value as matching no positive operator and every negative one', () => {
    const row = asRow(rowFields(2, { description: null, eid: null }), 0);
    const holds = (description: object) => compileFilter({ advanced: { and: [{ description }] } }, {}).test(row);
    expect([holds({ contains: 'x' }), holds({ like: '%' }), holds({ doesNotContain: 'x' }), holds({ notLike: '%' })]).toEqual([false, false, true, true]);
  });

  it('matches labels by name: positive operators when some label matches, negative ones when none does', () => {
    const tagged = asRow(rowFields(1, { labels: ['RoHS', 'reach'] }), 0);
    const bare = asRow(rowFields(2, { labels: [] }), 1);
    const test = (name: object) => [tagged, bare].map(compileFilter({ advanced: { and: [{ labels: { name } }] } }, {}).test);
    expect(test({ eq: 'reach' })).toEqual([true, false]);
    expect(test({ neq: 'reach' })).toEqual([false, true]);
    expect(test({ contains: 'ROHS' })).toEqual([true, false]);
    expect(test({ notIn: ['x', 'RoHS'] })).toEqual([false, true]);
  });

  it('leaves archived components out unless a condition names isArchived', () => {
    const rows = [asRow(rowFields(1), 0), asRow(rowFields(2, { isArchived: true }), 1)];
    expect(rows.filter(compileFilter({}, {}).test).map((r) => r.index)).toEqual([0]);
    expect(rows.filter(compileFilter({ advanced: { and: [{ isArchived: { eq: true } }] } }, {}).test).map((r) => r.index)).toEqual([1]);
    expect(rows.filter(compileFilter({ simple: { isArchived: false } }, {}).test).map((r) => r.index)).toEqual([0]);
  });

  it('needs every and condition and, when given, one or condition', () => {
    const rows = [1, 2, 3, 4].map((n) => asRow(rowFields(n, { statusId: n < 3 ? 'design' : 'production' }), n));
    const filter = { and: [{ status: { id: { eq: 'design' } } }], or: [{ name: { eq: 'Part 2' } }, { name: { eq: 'Part 3' } }] };
    expect(rows.filter(compileFilter({ advanced: filter }, {}).test).map((r) => r.index)).toEqual([2]);
  });

  it('orders revisions by the scheme for lt and gt', () => {
    const scheme: RevisionScheme = {
      delimiter: '.',
      segments: [
        { type: 'INTEGER', min: 1, padWidth: 0 },
        { type: 'LETTERS', excludedLetters: [] },
      ],
      rules: [],
    };
    const values = ['1.A', '1.Z', '1.AA', '2.A', '10.B', ''];
    const rows = values.map((revisionValue, i) => asRow(rowFields(i, { revisionValue }), i));
    const matching = (value: object) => rows.filter(compileFilter({ advanced: { and: [{ revision: { value } }] } }, { revisionScheme: scheme }).test).map((r) => r.revisionValue);
    expect(matching({ gt: '1.Z' })).toEqual(['1.AA', '2.A', '10.B']);
    expect(matching({ lt: '2.A' })).toEqual(['1.A', '1.Z', '1.AA', '']);
    expect(matching({ gt: '1.A', lt: '10.B' })).toEqual(['1.Z', '1.AA', '2.A']);
    expect(() => validateFilter({ advanced: { and: [{ revision: { value: { gt: '1.a' } } }] } }, scheme)).toThrow(/does not match the library scheme/);
    expect(matching({ in: ['1.AA', 'B'] })).toEqual(['1.AA']);
    const letters = ['B', 'Z', 'AA', 'A', ''].map((revisionValue, i) => asRow(rowFields(i, { revisionValue }), i));
    const above = compileFilter({ advanced: { and: [{ revision: { value: { gt: 'Y' } } }] } }, { revisionScheme: defaultRevisionScheme }).test;
    expect(letters.filter(above).map((r) => r.revisionValue)).toEqual(['Z', 'AA']);
  });
});

describe('date operands', () => {
  const day = Date.parse('2025-03-01T00:00:00.000Z');
  const at = Date.parse('2025-03-01T12:00:00.000Z');
  it.each([
    ['before', '2025-03-01', [-Infinity, day]],
    ['after', '2025-03-01', [day + 86_400_000, Infinity]],
    ['on', '2025-03-01', [day, day + 86_400_000]],
    ['rangeStart', '2025-03-01', [day, Infinity]],
    ['rangeEnd', '2025-03-01', [-Infinity, day + 86_400_000]],
    ['before', '2025-03-01T12:00:00Z', [-Infinity, at]],
    ['after', '2025-03-01T12:00:00Z', [at + 1, Infinity]],
    ['on', '2025-03-01T12:00:00+02:00', [day, day + 86_400_000]],
    ['rangeStart', '2025-03-01T12:00:00.000Z', [at, Infinity]],
    ['rangeEnd', '2025-03-01T12:00:00.000Z', [-Infinity, at + 1]],
  ] as const)('%s %s', (operator, value, interval) => {
    expect(dateInterval(operator, parseDateOperand(value, operator))).toEqual(interval);
  });

  it.each(['2025-02-30', '2025-3-1', 'yesterday', '2025-03-01T10:00'])('refuses %s', (value) => {
    expect(() => parseDateOperand(value, 'createdAt.on')).toThrow(/createdAt.on/);
  });
});

describe('paging', () => {
  // 120 rows, created in groups of 7 at the same millisecond: ties that straddle page edges.
  const rows = Array.from({ length: 120 }, (_, n) => asRow(rowFields(n, { createdAt: Date.parse('2025-01-01T00:00:00.000Z') + Math.floor(n / 7) * 1000 }), n));
  const withoutIds = () => rows.map(({ id: _id, ...row }) => row as Row);
  const idOf = new Map(rows.map((r) => [r.index, r.id!]));

  async function collect(order: { field: 'CREATED_AT' | 'NAME'; direction: 'ASC' | 'DESC' }, first: number) {
    const seen: string[] = [];
    const loaded: number[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await pageRows(withoutIds(), { order, first, after }, async (window) => {
        loaded.push(window.length);
        for (const row of window) row.id = idOf.get(row.index);
      });
      seen.push(...page.hits.map((h) => h.id));
      expect(page.totalCount).toBe(rows.length);
      if (!page.hasNextPage) break;
      after = page.hits.at(-1)!.cursor;
    }
    return { seen, loaded };
  }

  it('returns every row once, in (value, id) order, reading ids only around each page', async () => {
    const { seen, loaded } = await collect({ field: 'CREATED_AT', direction: 'DESC' }, 10);
    const expected = [...rows].sort((a, b) => b.createdAt! - a.createdAt! || (a.id! < b.id! ? 1 : -1)).map((r) => r.id);
    expect(seen).toEqual(expected);
    expect(Math.max(...loaded)).toBeLessThanOrEqual(10 + 2 * 7);
  });

  it('pages ascending by name the same way', async () => {
    const { seen } = await collect({ field: 'NAME', direction: 'ASC' }, 25);
    expect(seen).toEqual([...rows].sort((a, b) => (a.name!.toLowerCase() < b.name!.toLowerCase() ? -1 : 1)).map((r) => r.id));
  });

  it('issues cursors of the findAll format: base64url of [sort value, id]', async () => {
    const page = await pageRows(rows, { order: { field: 'CREATED_AT', direction: 'ASC' }, first: 1 }, async () => {});
    expect(decodeCursor(page.hits[0]!.cursor)).toEqual(['2025-01-01T00:00:00.000Z', rows[0]!.id]);
    await expect(pageRows(rows, { order: { field: 'CREATED_AT', direction: 'ASC' }, first: 1, after: 'nonsense' }, async () => {})).rejects.toThrow(/not a cursor/);
  });
});

describe('block merging', () => {
  const block = (rows: number): BlockEntry => ({ id: randomBytes(6).toString('hex'), rows, dead: [], parts: {} as BlockEntry['parts'] });
  const noDead = (blocks: BlockEntry[]) => blocks.map(() => new Set<number>());

  it('merges 8 blocks of the same size tier, never the tail nor a block rewritten anyway', () => {
    const blocks = Array.from({ length: 10 }, () => block(1000));
    expect(mergeCandidates(blocks, noDead(blocks), new Set([0]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(mergeCandidates(blocks.slice(0, 8), noDead(blocks.slice(0, 8)), new Set())).toEqual([]);
  });

  it('counts live rows, and merges the next tier when the first has too few', () => {
    const blocks = [...Array.from({ length: 8 }, () => block(8000)), block(1000), block(1000)];
    expect(mergeCandidates(blocks, noDead(blocks), new Set())).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const dead = noDead(blocks);
    dead[0] = new Set(Array.from({ length: 7500 }, (_, i) => i));
    // Block 0 has 500 live rows: tier 0 now, so tier 1 holds only 7.
    expect(mergeCandidates(blocks, dead, new Set())).toEqual([]);
    expect(mergeCandidates([...blocks.slice(0, 8), block(64_000), block(1000)], noDead(blocks), new Set())).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
