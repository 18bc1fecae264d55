import { describe, expect, it } from 'vitest';
import { columnsOf, decodeColumn, encodeColumnParts, metaColumns, storedColumns, type ColumnName } from '../../lib/search/table/columns.js';
import type { Row, RowFields } from '../../lib/search/table/rows.js';
import { searchRow } from '../support/searchRows.js';

function row(n: number): RowFields {
  return searchRow(n, {
    description: null,
    cpn: `100-${n}`,
    eid: null,
    revisionValue: ['A', 'B', '1.Z'][n % 3]!,
    state: n % 4 ? 'MODIFIED' : 'RELEASED',
    statusId: `s${n % 5}`,
    statusName: `Status ${n % 5}`,
    statusMapsTo: n % 2 ? 'DESIGN' : 'PRODUCTION',
    categoryId: `c${n % 7}`,
    categoryName: `Category ${n % 7}`,
    categoryType: n % 3 ? 'PART' : 'ASSEMBLY',
    labels: [[], ['rohs'], ['reach', 'rohs'], ['rohs', 'reach'], ['ü-label']][n % 5]!,
    isArchived: n % 6 === 0,
    notRevisionManaged: n % 9 === 0,
    createdAt: 1_700_000_000_000 + n,
    updatedAt: 1_700_000_000_000 + n,
    createdBy: `u${n % 3}`,
    updatedBy: `u${n % 4}`,
    ...(n % 11 === 0 ? { mpns: ['RC0603', 'X7R'].slice(0, 1 + (n % 2)), manufacturerIds: ['m1'] } : { mpns: [], manufacturerIds: [] }),
  });
}

const fieldsOf = ({ block: _b, index: _i, ...fields }: Row) => fields;

function decoded(rows: RowFields[], columns: Iterable<ColumnName>): Row[] {
  const out: Row[] = rows.map((_, index) => ({ block: 0, index }));
  for (const column of columns) for (const part of encodeColumnParts(column, rows)) decodeColumn(column, part.data, out.slice(part.start));
  return out;
}

describe('the split column groups', () => {
  it('decode what they encode, and what the m group decodes', () => {
    const rows = Array.from({ length: 500 }, (_, n) => row(n));
    const split = decoded(rows, metaColumns);
    const legacy = decoded(rows, ['m']);
    expect(split.map(fieldsOf)).toEqual(legacy.map(fieldsOf));
    const whole = decoded(rows, storedColumns);
    expect(whole.map(fieldsOf)).toEqual(rows);
  });

  it('leave the manufacturer lists unset for a part without any, as m does', () => {
    const rows = Array.from({ length: 10 }, (_, n) => ({ ...row(n + 1), mpns: [], manufacturerIds: [] }));
    expect(decoded(rows, ['v']).every((r) => r.mpns === undefined && r.manufacturerIds === undefined)).toBe(true);
    expect(decoded(rows, ['m']).every((r) => r.mpns === undefined && r.manufacturerIds === undefined)).toBe(true);
  });

  it('are read only for the fields a filter names', () => {
    expect([...columnsOf(['categoryType', 'statusMapsTo', 'labels', 'isArchived'])].sort()).toEqual(['f', 'l', 's', 'y']);
    expect([...columnsOf(['isArchived'])]).toEqual(['f']);
    expect([...columnsOf(['categoryId', 'categoryName'])]).toEqual(['k']);
    expect([...columnsOf(['createdBy', 'updatedBy'])]).toEqual(['w']);
  });
});
