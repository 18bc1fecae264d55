import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { categoryTypes, classifications } from '../model/vocabulary.js';
import type { Store } from './client.js';
import {
  batchGetItems,
  conditionalWrites,
  getItem,
  listKeysWithPrefix,
  parseItem,
  queryAll,
  queryNewestFirst,
  type ConditionFailure,
  type Key,
  type WriteItem,
  queryPrefix,
  queryPrefixPage,
} from './items.js';
import { libraryPartition } from './library.js';
import { committedWriteIds } from './pendingWrite.js';

export const componentKey = (orgId: string, libraryId: string, componentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `C#${componentId}` });
export const componentHistoryKey = (orgId: string, libraryId: string, componentId: string, version: number) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `H#${componentId}#${String(version).padStart(10, '0')}`,
});
/** A CPN is unique in its library and never reused: the item stays (marked deleted) when its component goes. */
export const cpnKey = (orgId: string, libraryId: string, normalizedCpn: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `CPN#${normalizedCpn}` });
export const counterKey = (orgId: string, libraryId: string, element: string, scopeKey: string) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `CTR#${element}#${scopeKey}`,
});
export const pinKey = (orgId: string, libraryId: string, kind: 'PIN' | 'BOOKMARK', userId: string, componentId: string) => ({
  PK: libraryPartition(orgId, libraryId),
  SK: `${kind}#${userId}#${componentId}`,
});

export const componentRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  name: z.string(),
  description: z.string().nullable(),
  categoryId: z.string(),
  /** Copied from the categories configuration (kept in sync when it changes) so reads need one item. */
  category: z.object({ name: z.string(), type: z.enum(categoryTypes), prefix: z.string() }),
  statusId: z.string(),
  status: z.object({ name: z.string(), color: z.string(), mapsTo: z.enum(classifications) }),
  revisionValue: z.string(),
  state: z.enum(['RELEASED', 'MODIFIED']),
  version: z.number().int().positive(),
  cpn: z.string(),
  eid: z.string().nullable(),
  labels: z.array(z.string()),
  attributeValues: z.record(z.string(), z.unknown()),
  documentFormats: z.array(z.string()).nullable(),
  isArchived: z.boolean(),
  notRevisionManaged: z.boolean(),
  lastReleasedNotRevisionManaged: z.boolean().nullable(),
  fileId: z.string().nullable(),
  imageFileId: z.string().nullable(),
  originIntegrationId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: z.string(),
  updatedBy: z.string(),
  /**
   * The change order that holds the component (from submission until it resolves): nobody edits or deletes
   * it outside that change order. Every write of the component is conditioned on it (componentVersionPut).
   */
  lockedBy: z.string().nullable().default(null),
  /**
   * Principals linked to the component (creation links the creator; linkComponent adds, unlinkComponent
   * removes): a managed attribute is written only by a linked manager (lib/model/attributeAccess.ts).
   */
  links: z.array(z.string()).default([]),
  /**
   * What search filters of the component's sourcing (lib/sourcing/writes.ts keeps it with each sourcing
   * write, in the same transaction): its MPNs (normalized: `normalizeMpn`) and manufacturer ids.
   */
  sourcingIndex: z.object({ mpns: z.array(z.string()), manufacturerIds: z.array(z.string()) }).optional(),
  /** Present while the large item write that created the component may not have committed (pendingWrite.ts). */
  writeId: z.string().nullish(),
  /**
   * The released version a large release (over `maxReleaseInOneCommit` components) marked the component with
   * before its commit: readers see `next` once the write `writeId` says COMMITTED and the component as it is
   * until then (`visibleComponents`); settling puts `next` in its place, an abort removes the mark. Never in a
   * record a reader returns.
   */
  pendingRelease: z.object({ writeId: z.string(), next: z.record(z.string(), z.unknown()) }).optional(),
});
export type ComponentRecord = z.infer<typeof componentRecord>;

/** An MPN as search and the MPN index compare it: trimmed, inner whitespace removed, upper case. */
export const normalizeMpn = (mpn: string) => mpn.trim().replace(/\s+/g, '').toUpperCase();

export const historyChange = z.object({ field: z.string(), from: z.unknown(), to: z.unknown() });
export type HistoryChange = z.infer<typeof historyChange>;

export const componentHistoryRecord = z.object({
  componentId: z.string().uuid(),
  version: z.number().int().positive(),
  action: z.enum(['CREATE', 'UPDATE', 'RELEASE']),
  at: z.string(),
  by: z.string(),
  actingIntegrationId: z.string().nullable(),
  changes: z.array(historyChange),
  /** A RELEASE record's moment of effect (its change order's effectivity): the release time, or a later date. */
  effectiveAt: z.string().nullish(),
  /** Present while the large write (item write or release) that wrote the record may not have committed. */
  writeId: z.string().nullish(),
});
export type ComponentHistoryRecord = z.infer<typeof componentHistoryRecord>;

/**
 * The condition that keeps a component's lock as it was read: a write of a component read unlocked fails if
 * a change order locked it meanwhile (and the other way round). Combined with the version condition.
 */
function lockCondition(lockedBy: string | null): { expression: string; values: Record<string, unknown> } {
  return lockedBy === null
    ? { expression: '(attribute_not_exists(lockedBy) OR lockedBy = :unlocked)', values: { ':unlocked': null } }
    : { expression: 'lockedBy = :lockedBy', values: { ':lockedBy': lockedBy } };
}

export function componentItem(record: ComponentRecord) {
  const { pendingRelease: _mark, ...rest } = record;
  return { ...componentKey(record.organizationId, record.libraryId, record.id), entity: 'Component', ...rest };
}

/** `writeId` marks the items of a large write (pendingWrite.ts): invisible until that write commits. */
const pendingMark = (writeId: string | undefined) => (writeId ? { writeId } : {});

/** Puts a new component (its id is new: fails if the key exists). */
export function componentCreatePut(record: ComponentRecord, writeId?: string): WriteItem {
  return { Put: { Item: { ...componentItem(record), ...pendingMark(writeId) }, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/**
 * Puts a new version of a component, on condition that it is still at the version read and its lock is
 * still the one read (`lockedBy`: null for a component read unlocked, the change order that holds it).
 */
export function componentVersionPut(record: ComponentRecord, expected: { version: number; lockedBy: string | null }, onConditionFailed?: ConditionFailure): WriteItem {
  const lock = lockCondition(expected.lockedBy);
  return {
    // A component marked by a large release in flight is written by that release only (settling or aborting it).
    Put: {
      Item: componentItem(record),
      ConditionExpression: `version = :version AND ${lock.expression} AND attribute_not_exists(pendingRelease)`,
      ExpressionAttributeValues: { ':version': expected.version, ...lock.values },
    },
    ...(onConditionFailed ? { onConditionFailed } : {}),
  };
}

/** Locks a component for a change order (no version change: every write of a component is conditioned on its lock). */
export function componentLock(orgId: string, libraryId: string, componentId: string, changeOrderId: string): WriteItem {
  const unlocked = lockCondition(null);
  return {
    Update: {
      Key: componentKey(orgId, libraryId, componentId),
      UpdateExpression: 'SET lockedBy = :co',
      ConditionExpression: `attribute_exists(PK) AND ${unlocked.expression}`,
      ExpressionAttributeValues: { ':co': changeOrderId, ...unlocked.values },
    },
  };
}

/**
 * Locks a component for a change order in a large submit (its locks written in chunks before the order's
 * commit): also applies to a component this order locked already, so a chunk written twice is harmless.
 */
export function componentLockAgain(orgId: string, libraryId: string, componentId: string, changeOrderId: string): WriteItem {
  const unlocked = lockCondition(null);
  return {
    Update: {
      Key: componentKey(orgId, libraryId, componentId),
      UpdateExpression: 'SET lockedBy = :co',
      ConditionExpression: `attribute_exists(PK) AND (${unlocked.expression} OR lockedBy = :co)`,
      ExpressionAttributeValues: { ':co': changeOrderId, ...unlocked.values },
    },
  };
}

/**
 * Marks a component with its released version for a large release (see `pendingRelease`), on condition that
 * it is at the version read, held by the change order, and marked by no other release.
 */
export function componentReleaseMark(next: ComponentRecord, expected: { version: number; lockedBy: string }, writeId: string): WriteItem {
  const { pendingRelease: _mark, writeId: _write, ...plain } = next;
  return {
    Update: {
      Key: componentKey(next.organizationId, next.libraryId, next.id),
      UpdateExpression: 'SET pendingRelease = :mark',
      ConditionExpression: 'version = :version AND lockedBy = :lockedBy AND attribute_not_exists(pendingRelease)',
      ExpressionAttributeValues: { ':mark': { writeId, next: plain }, ':version': expected.version, ':lockedBy': expected.lockedBy },
    },
  };
}

/** The components of a large release still carrying its mark (strongly consistent), as stored. */
export async function componentsMarkedBy(store: Store, orgId: string, libraryId: string, componentIds: string[], writeId: string): Promise<ComponentRecord[]> {
  const items = await batchGetItems(
    store,
    componentIds.map((id) => componentKey(orgId, libraryId, id)),
    true,
  );
  return [...items.values()].map((item) => parseItem(componentRecord, item, 'component')).filter((c) => c.pendingRelease?.writeId === writeId);
}

/** After the commit: the marked released version takes the component's place (only while it carries this mark). */
function releaseMarkApply(marked: ComponentRecord): WriteItem {
  const mark = marked.pendingRelease!;
  const next = parseItem(componentRecord, mark.next, 'released component');
  return { Put: { Item: componentItem(next), ConditionExpression: 'pendingRelease.writeId = :writeId', ExpressionAttributeValues: { ':writeId': mark.writeId } } };
}

/** Puts each marked released version in place (`releaseMarkApply`), 100 to a transaction (`conditionalWrites`). */
export function applyReleaseMarks(store: Store, marked: ComponentRecord[]): Promise<void> {
  return conditionalWrites(store, marked.map(releaseMarkApply));
}

/** After an abort: the marks go (only this write's), 100 to a transaction (`conditionalWrites`). */
export function removeReleaseMarks(store: Store, orgId: string, libraryId: string, componentIds: string[], writeId: string): Promise<void> {
  return conditionalWrites(
    store,
    componentIds.map((componentId) => ({
      Update: {
        Key: componentKey(orgId, libraryId, componentId),
        UpdateExpression: 'REMOVE pendingRelease',
        ConditionExpression: 'pendingRelease.writeId = :writeId',
        ExpressionAttributeValues: { ':writeId': writeId },
      },
    })),
  );
}

/** Releases a component's lock held by this change order. */
export function componentUnlock(orgId: string, libraryId: string, componentId: string, changeOrderId: string): WriteItem {
  const held = lockCondition(changeOrderId);
  return {
    Update: {
      Key: componentKey(orgId, libraryId, componentId),
      UpdateExpression: 'SET lockedBy = :unlocked',
      ConditionExpression: held.expression,
      ExpressionAttributeValues: { ':unlocked': null, ...held.values },
    },
  };
}

/** Rewrites a component in place (same version), unless it changed or was locked since it was read. */
export function componentResyncPut(component: ComponentRecord, onConditionFailed: () => Error): WriteItem {
  return componentVersionPut(component, { version: component.version, lockedBy: component.lockedBy }, onConditionFailed);
}

/**
 * Puts a history record. `once`: fails if the record exists (a concurrent writer of the same version);
 * the first record of a new component is put without condition.
 */
export function componentHistoryPut(orgId: string, libraryId: string, record: ComponentHistoryRecord, options: { once: boolean; writeId?: string }): WriteItem {
  return {
    Put: {
      Item: { ...historyItem(orgId, libraryId, record), ...pendingMark(options.writeId) },
      ...(options.once ? { ConditionExpression: 'attribute_not_exists(PK)' } : {}),
    },
  };
}

/** Claims a CPN (normalized) for a new component: fails if any component, deleted ones included, ever had it. */
export function cpnClaimPut(
  orgId: string,
  libraryId: string,
  normalizedCpn: string,
  claim: { cpn: string; componentId: string; at: string },
  options: { writeId?: string; onConditionFailed?: ConditionFailure } = {},
): WriteItem {
  return {
    Put: {
      Item: { ...cpnKey(orgId, libraryId, normalizedCpn), entity: 'Cpn', cpn: claim.cpn, componentId: claim.componentId, deleted: false, createdAt: claim.at, ...pendingMark(options.writeId) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
    ...(options.onConditionFailed ? { onConditionFailed: options.onConditionFailed } : {}),
  };
}

/** Deletes a component at the version read, unless a change order locked it meanwhile; its CPN claim is marked deleted. */
export function componentDeleteItems(component: ComponentRecord, cpnKeyOfIt: Key, at: string): WriteItem[] {
  return [
    {
      Delete: {
        Key: componentKey(component.organizationId, component.libraryId, component.id),
        // A change order that locked the component meanwhile keeps it.
        ConditionExpression: `version = :version AND ${lockCondition(null).expression}`,
        ExpressionAttributeValues: { ':version': component.version, ...lockCondition(null).values },
      },
    },
    {
      Update: {
        Key: cpnKeyOfIt,
        UpdateExpression: 'SET deleted = :true, deletedAt = :at',
        // The claim was written with the component; never create a stray one.
        ConditionExpression: 'componentId = :id',
        ExpressionAttributeValues: { ':true': true, ':at': at, ':id': component.id },
      },
    },
  ];
}

export function historyItem(orgId: string, libraryId: string, record: ComponentHistoryRecord) {
  return { ...componentHistoryKey(orgId, libraryId, record.componentId, record.version), entity: 'ComponentHistory', ...record };
}

export async function getComponent(store: Store, orgId: string, libraryId: string, componentId: string, consistent = false): Promise<ComponentRecord | undefined> {
  const found = consistent
    ? await getComponentsByKeys(store, [componentKey(orgId, libraryId, componentId)], true)
    : [await getItem(store, componentKey(orgId, libraryId, componentId), componentRecord, 'component')].filter((r) => r !== undefined);
  return (await visibleComponents(store, found))[0];
}

/**
 * A component from its item as another read already brought it (the request context's BatchGetItem, which
 * reads a findOne's component ahead): parsed and resolved exactly as getComponent resolves what it reads.
 */
export async function componentFromItem(store: Store, item: Record<string, unknown>): Promise<ComponentRecord | undefined> {
  return (await visibleComponents(store, [parseItem(componentRecord, item, 'component')]))[0];
}

async function getComponentsByKeys(store: Store, keys: { PK: string; SK: string }[], consistent: boolean): Promise<ComponentRecord[]> {
  const found = await batchGetItems(store, keys, consistent);
  return visibleComponents(
    store,
    [...found.values()].map((item) => parseItem(componentRecord, item, 'component')),
  );
}

/**
 * Leaves out components created by a large item write that has not committed (or was abandoned).
 * Costs a read only while such components carry their writeId.
 */
async function visibleComponents(store: Store, records: ComponentRecord[]): Promise<ComponentRecord[]> {
  const first = records[0];
  return first ? resolveReleaseMarks(store, await committedOnly(store, first.organizationId, first.libraryId, records)) : records;
}

/**
 * A component marked by a large release reads as its released version once that release committed, as it
 * is otherwise: every component of the release or none. Costs a read only while marks are there; a reader
 * that meets a committed mark puts the released version in place (what settling does), so writers that
 * read it find the item they condition on.
 */
async function resolveReleaseMarks(store: Store, records: ComponentRecord[]): Promise<ComponentRecord[]> {
  const marked = records.filter((r) => r.pendingRelease);
  if (marked.length === 0) return records;
  const first = marked[0]!;
  const committed = await committedWriteIds(
    store,
    first.organizationId,
    first.libraryId,
    marked.map((r) => r.pendingRelease!.writeId),
  );
  const settle = marked.filter((r) => committed.has(r.pendingRelease!.writeId));
  await applyReleaseMarks(store, settle).catch(() => undefined);
  return records.map((record) => {
    const mark = record.pendingRelease;
    if (!mark) return record;
    if (committed.has(mark.writeId)) return parseItem(componentRecord, mark.next, 'released component');
    const { pendingRelease: _mark, ...plain } = record;
    return plain;
  });
}

/** Leaves out records that carry the write id of a large write that has not committed; a read only while some do. */
async function committedOnly<R extends { writeId?: string | null | undefined }>(store: Store, orgId: string, libraryId: string, records: R[]): Promise<R[]> {
  const pending = records.filter((r) => r.writeId);
  if (pending.length === 0) return records;
  const committed = await committedWriteIds(
    store,
    orgId,
    libraryId,
    pending.map((r) => r.writeId!),
  );
  return records.filter((r) => !r.writeId || committed.has(r.writeId));
}

/** Components by id, in one BatchGetItem per 100; missing ids are absent from the map. */
export async function getComponents(store: Store, orgId: string, libraryId: string, ids: string[], consistent = false): Promise<Map<string, ComponentRecord>> {
  const unique = [...new Set(ids)];
  const records = await getComponentsByKeys(
    store,
    unique.map((id) => componentKey(orgId, libraryId, id)),
    consistent,
  );
  return new Map(records.map((record) => [record.id, record]));
}

/** Every component of a library. The search work replaces this scan with a compact projection. */
export async function listComponents(store: Store, orgId: string, libraryId: string): Promise<ComponentRecord[]> {
  const records = await queryPrefix(store, libraryPartition(orgId, libraryId), 'C#', componentRecord, 'component');
  return visibleComponents(store, records);
}

/**
 * History of one component, newest first. A record of a large release that has not committed (the
 * component is still at the version before it) is left out; it costs a read only while one is there.
 */
export async function listComponentHistory(store: Store, orgId: string, libraryId: string, componentId: string, limit: number): Promise<ComponentHistoryRecord[]> {
  const records = await queryNewestFirst(store, libraryPartition(orgId, libraryId), `H#${componentId}#`, limit, componentHistoryRecord, 'component history');
  return committedOnly(store, orgId, libraryId, records);
}

/** The history records of a component from `version` to its current one, newest first (one Query). */
export function listComponentHistorySince(store: Store, current: ComponentRecord, version: number): Promise<ComponentHistoryRecord[]> {
  return queryAll(
    store,
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': libraryPartition(current.organizationId, current.libraryId),
        ':from': componentHistoryKey(current.organizationId, current.libraryId, current.id, version).SK,
        ':to': componentHistoryKey(current.organizationId, current.libraryId, current.id, current.version).SK,
      },
      ScanIndexForward: false,
    },
    componentHistoryRecord,
    'component history',
  );
}

/** Keys of all history items of a component, for permanent deletion. */
export function listComponentHistoryKeys(store: Store, orgId: string, libraryId: string, componentId: string): Promise<{ PK: string; SK: string }[]> {
  return listKeysWithPrefix(store, libraryPartition(orgId, libraryId), `H#${componentId}#`);
}

/** Allocates the next value of a CPN counter sequence atomically. Values are never handed out twice. */
export async function allocateCounter(store: Store, orgId: string, libraryId: string, element: string, scopeKey: string, min: number): Promise<number> {
  const result = await store.ddb.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: counterKey(orgId, libraryId, element, scopeKey),
      // The first allocation starts at min; after that each call adds one.
      UpdateExpression: 'SET entity = :entity, #value = if_not_exists(#value, :start) + :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':entity': 'CpnCounter', ':start': min - 1, ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return result.Attributes!.value as number;
}

/** Whether a CPN (normalized) is taken in the library, including by deleted components. */
export async function isCpnTaken(store: Store, orgId: string, libraryId: string, normalizedCpn: string): Promise<{ taken: boolean; componentId?: string }> {
  const item = await getItem(store, cpnKey(orgId, libraryId, normalizedCpn), z.object({ componentId: z.string() }).passthrough(), 'CPN');
  return item ? { taken: true, componentId: item.componentId } : { taken: false };
}

/** The CPNs of a library (for reusableGroupInstances). */
export function listCpns(store: Store, orgId: string, libraryId: string): Promise<{ cpn: string; componentId: string }[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'CPN#', z.object({ cpn: z.string(), componentId: z.string() }), 'CPN');
}

export function listPinnedIds(store: Store, orgId: string, libraryId: string, kind: 'PIN' | 'BOOKMARK', userId: string): Promise<{ componentId: string; at: string }[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), `${kind}#${userId}#`, z.object({ componentId: z.string(), at: z.string() }), 'pin');
}

/** Whether the library has claimed any CPN yet (one Query of at most one key). */
export async function libraryHasCpns(store: Store, orgId: string, libraryId: string): Promise<boolean> {
  const page = await queryPrefixPage(store, libraryPartition(orgId, libraryId), 'CPN#', 1, z.object({ PK: z.string() }), 'CPN key', { ProjectionExpression: 'PK' });
  return page.length > 0;
}
