import * as z from 'zod';
import { categoryTypes, classifications } from '../model/vocabulary.js';
import type { Store } from './client.js';
import { batchGetItems, conditionalWrites, getItem, parseItem, queryPrefix, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';
import { committedOnly, committedWriteIds } from './pendingWrite.js';

/**
 * The component item (`C#<componentId>`), its reads and the marks of a large release: what a reader sees of
 * a component. Its writes are in componentWrites.ts, its history in componentHistory.ts.
 */

export const componentKey = (orgId: string, libraryId: string, componentId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `C#${componentId}` });

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

export function componentItem(record: ComponentRecord) {
  const { pendingRelease: _mark, ...rest } = record;
  return { ...componentKey(record.organizationId, record.libraryId, record.id), entity: 'Component', ...rest };
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
