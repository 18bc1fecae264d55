import type { GroupBy } from '../port.js';
import type { FieldName, Row } from './rows.js';

export const groupFields: Record<GroupBy, FieldName[]> = {
  CATEGORY: ['categoryId', 'categoryName'],
  STATUS: ['statusId', 'statusName'],
  TYPE: ['categoryType'],
  MODIFIED_BY: ['updatedBy'],
  LABEL: ['labels'],
};

/** The groups a row belongs to: exactly one, except LABEL (one per label; "" for none). */
export function groupsOf(row: Row, by: GroupBy): { key: string; label: string }[] {
  switch (by) {
    case 'CATEGORY':
      return [{ key: row.categoryId ?? '', label: row.categoryName ?? '' }];
    case 'STATUS':
      return [{ key: row.statusId ?? '', label: row.statusName ?? '' }];
    case 'TYPE':
      return [{ key: row.categoryType ?? '', label: row.categoryType ?? '' }];
    case 'MODIFIED_BY':
      return [{ key: row.updatedBy ?? '', label: row.updatedBy ?? '' }];
    case 'LABEL':
      return row.labels?.length ? row.labels.map((label) => ({ key: label, label })) : [{ key: '', label: '' }];
  }
}
