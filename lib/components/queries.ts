import { InvalidInputError } from '../errors.js';
import type { LibraryRef } from '../model/scope.js';
import type { Store } from '../store/client.js';
import type { Key } from '../store/items.js';
import { componentFromItem, componentKey, getComponent, getComponents, type ComponentRecord } from '../store/component.js';
import { listComponentHistory, type ComponentHistoryRecord } from '../store/componentHistory.js';

/**
 * An item read ahead with the request's context (RequestAccess.readAhead): the item, null when it was read
 * and is not there, undefined when it was not read ahead.
 */
export type ReadAhead = (key: Key) => Promise<Record<string, unknown> | null | undefined>;

/** The item a component.findOne reads, so that it can ride in the request context's read (functions/graphql/readAhead.ts). */
export function componentReadAheadKey(ref: LibraryRef, id: string): Key {
  return componentKey(ref.organizationId, ref.libraryId, id);
}

export async function findComponent(store: Store, orgId: string, libraryId: string, id: string, readAhead?: ReadAhead): Promise<ComponentRecord | undefined> {
  const ahead = await readAhead?.(componentReadAheadKey({ organizationId: orgId, libraryId }, id));
  if (ahead === null) return undefined;
  if (ahead) return componentFromItem(store, ahead);
  return getComponent(store, orgId, libraryId, id);
}

export function componentHistory(store: Store, record: ComponentRecord, limit: number): Promise<ComponentHistoryRecord[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidInputError('history first must be 1 to 1000', { field: 'first' });
  return listComponentHistory(store, record.organizationId, record.libraryId, record.id, limit);
}

/** One attribute value of a component, with the category that defines its name and unit. */
export interface AttributeValueView {
  attributeId: string;
  value: unknown;
  categoryId: string;
}

export function attributeValuesOf(record: ComponentRecord): AttributeValueView[] {
  return Object.entries(record.attributeValues).map(([attributeId, value]) => ({ attributeId, value, categoryId: record.categoryId }));
}

/** Components of a library by id (one BatchGetItem per 100); ids that are not components are absent. */
export function componentsByIds(store: Store, ref: LibraryRef, ids: string[]): Promise<Map<string, ComponentRecord>> {
  return getComponents(store, ref.organizationId, ref.libraryId, ids);
}
