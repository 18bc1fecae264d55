import { libraryPartition } from '../store/library.js';
import type { ComponentRecord } from '../store/component.js';

/**
 * The searchable projection of one component: what filters, grouping and ordering read. Every component
 * write puts its entry in the same transaction (one small item), so search never misses a write and
 * concurrent writers never overwrite each other's entries.
 */
export interface SearchProjection {
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
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
  version: number;
}

export const searchEntryKey = (orgId: string, libraryId: string, componentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `SD#${componentId}` });

export function projectionOf(record: ComponentRecord): SearchProjection {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    cpn: record.cpn,
    eid: record.eid,
    revisionValue: record.revisionValue,
    state: record.state,
    statusId: record.statusId,
    statusName: record.status.name,
    statusMapsTo: record.status.mapsTo,
    categoryId: record.categoryId,
    categoryName: record.category.name,
    categoryType: record.category.type,
    labels: record.labels,
    isArchived: record.isArchived,
    notRevisionManaged: record.notRevisionManaged,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    createdBy: record.createdBy,
    updatedBy: record.updatedBy,
    version: record.version,
  };
}

/** The transaction Put of a component's search entry (table name added by the caller's transaction). */
export function searchEntryPut(tableName: string, record: ComponentRecord) {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...searchEntryKey(record.organizationId, record.libraryId, record.id),
        entity: 'SearchEntry',
        componentId: record.id,
        deleted: false,
        at: record.updatedAt,
        version: record.version,
        projection: projectionOf(record),
      },
    },
  };
}

/** The entry of a deleted component: a tombstone, so that compacted search data forgets it too. */
export function searchEntryTombstone(tableName: string, orgId: string, libraryId: string, componentId: string, at: string) {
  return {
    Put: {
      TableName: tableName,
      Item: { ...searchEntryKey(orgId, libraryId, componentId), entity: 'SearchEntry', componentId, deleted: true, at, version: 0, projection: null },
    },
  };
}
