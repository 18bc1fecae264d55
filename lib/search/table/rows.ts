import type { SearchProjection } from '../entries.js';

/** The fields of a searchable row. Dates are epoch milliseconds, so comparing and sorting are numeric. */
export interface RowFields {
  id: string;
  name: string;
  description: string | null;
  cpn: string;
  eid: string | null;
  revisionValue: string;
  state: 'RELEASED' | 'MODIFIED';
  statusId: string;
  statusName: string;
  statusMapsTo: string;
  categoryId: string;
  categoryName: string;
  categoryType: string;
  labels: string[];
  isArchived: boolean;
  notRevisionManaged: boolean;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  updatedBy: string;
}

export type FieldName = keyof RowFields;

/**
 * One component as the in-table engine sees it: the fields of the columns read for this search, and
 * where it lives (a block row, or block -1 for an outstanding delta). Ids of block rows are read only for
 * the rows that need them (the page, ties at its edges).
 */
export interface Row extends Partial<RowFields> {
  block: number;
  index: number;
}

export function rowFieldsOf(projection: SearchProjection): RowFields {
  const { version: _version, createdAt, updatedAt, ...rest } = projection;
  return { ...rest, createdAt: Date.parse(createdAt), updatedAt: Date.parse(updatedAt) };
}
