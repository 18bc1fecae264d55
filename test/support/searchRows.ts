import type { RowFields } from '../../lib/search/table/rows.js';

/** The id of the n-th test search row: a UUID whose last 12 digits are n. */
export const searchRowId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * The n-th search row of a test (the fields a block stores for one component), any field overridden:
 * descriptions, eids, labels and updatedBy vary with n; the rest is one design-status resistor.
 */
export function searchRow(n: number, overrides: Partial<RowFields> = {}): RowFields {
  return {
    id: searchRowId(n),
    name: `Part ${n}`,
    description: n % 2 ? `described ${n}` : null,
    cpn: `100-${String(n).padStart(5, '0')}`,
    eid: n % 3 ? null : `ERP-${n}`,
    revisionValue: 'A',
    state: 'MODIFIED',
    statusId: 'design',
    statusName: 'Design',
    statusMapsTo: 'DESIGN',
    categoryId: 'resistor',
    categoryName: 'Resistor',
    categoryType: 'PART',
    labels: n % 2 ? ['rohs'] : [],
    isArchived: false,
    notRevisionManaged: false,
    createdAt: Date.parse('2025-03-01T00:00:00.000Z') + n * 1000,
    updatedAt: Date.parse('2025-04-01T00:00:00.000Z') + n,
    createdBy: 'u-1',
    updatedBy: n % 2 ? 'u-1' : 'u-2',
    ...overrides,
  };
}
