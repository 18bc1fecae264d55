import type { SearchProjection } from '../entries.js';

/** The fields of a searchable row: the projection, with dates as epoch milliseconds (numeric compare and sort). */
export interface RowFields extends Omit<SearchProjection, 'version' | 'createdAt' | 'updatedAt'> {
  createdAt: number;
  updatedAt: number;
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
