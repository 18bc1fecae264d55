import { expect } from 'vitest';
import { gqlOk, type GraphQLResponse, type Tenant } from '../support/api.js';
// Moved to test/support; named here too for test files written against this module.
export { expectCode } from '../support/errors.js';
export { completeUpload, createUpload, putBytes, sha256Hex, uploadFile, type FileUpload, type FileView } from '../support/files.js';
export { historyOf, type HistoryEntry } from '../support/history.js';
import { libraryPartition, partitionItems } from './componentHelpers.js';

/** BOM line fields as read. */
export const linkFields = `
  id assemblyId childId quantity refDes itemNumber notes childHistoryId isPinned createdByIntegrationId createdAt
  child { id name description version }
`;

/** What the item tests read of a component. */
export const itemFields = `
  id name description version cpn fileId imageFileId
  category { id type }
  children { ${linkFields} }
  documents { id documentId createdAt document { id name version fileId category { id type } } }
`;

export const itemCreateMutation = `mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { ${itemFields} } } }`;
export const itemUpdateMutation = `mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { ${itemFields} } } }`;
export const updateBomMutation = `mutation($input: UpdateBomInput!) { assemblies { updateBOM(input: $input) { ${itemFields} } } }`;
export const itemQuery = `query($id: ID!) { component { findOne(id: $id) { ${itemFields} } } }`;

export interface Link {
  id: string;
  assemblyId: string;
  childId: string;
  quantity: number | null;
  refDes: string | null;
  itemNumber: string | null;
  notes: string | null;
  childHistoryId: string | null;
  isPinned: boolean;
  createdByIntegrationId: string | null;
  createdAt: string;
  child: { id: string; name: string; description: string | null; version: number } | null;
}

export interface DocumentLink {
  id: string;
  documentId: string;
  createdAt: string;
  document: { id: string; name: string; version: number; fileId: string | null; category: { id: string; type: string } } | null;
}

export interface Item {
  id: string;
  name: string;
  description: string | null;
  version: number;
  cpn: string;
  fileId: string | null;
  imageFileId: string | null;
  category: { id: string; type: string };
  children: Link[];
  documents: DocumentLink[];
}

export async function createItems(tenant: Tenant, inputs: Record<string, unknown>[]): Promise<Item[]> {
  return (await gqlOk<{ item: { create: Item[] } }>(tenant, itemCreateMutation, { inputs })).item.create;
}

export async function updateItems(tenant: Tenant, inputs: Record<string, unknown>[]): Promise<Item[]> {
  return (await gqlOk<{ item: { update: Item[] } }>(tenant, itemUpdateMutation, { inputs })).item.update;
}

export async function readItem(tenant: Tenant, id: string): Promise<Item | null> {
  return (await gqlOk<{ component: { findOne: Item | null } }>(tenant, itemQuery, { id })).component.findOne;
}

/** Mechanical parts (no required attributes), created by item.create in calls of at most 10. */
export async function createParts(tenant: Tenant, names: string[], extra: Record<string, unknown> = {}): Promise<Item[]> {
  const created: Item[] = [];
  for (let start = 0; start < names.length; start += 10) {
    created.push(
      ...(await createItems(
        tenant,
        names.slice(start, start + 10).map((name) => ({ name, categoryId: 'mechanical', ...extra })),
      )),
    );
  }
  return created;
}

export async function createAssembly(tenant: Tenant, name: string, children?: Record<string, unknown>[], categoryId = 'pcba'): Promise<Item> {
  return (await createItems(tenant, [{ name, categoryId, ...(children ? { children } : {}) }]))[0]!;
}

/** The BOM as the comparable line fields, in order. */
export function lineSummary(links: Link[]) {
  return links.map((l) => ({ childId: l.childId, quantity: l.quantity, refDes: l.refDes, itemNumber: l.itemNumber, notes: l.notes, childHistoryId: l.childHistoryId }));
}

export interface BomSnapshot {
  bomVersion: number;
  createdAt: string;
  createdBy: { id: string } | null;
  actingIntegrationId: string | null;
  lines: Link[];
}

export async function bomHistoryOf(tenant: Tenant, id: string, first?: number): Promise<BomSnapshot[]> {
  const data = await gqlOk<{ component: { findOne: { bomHistory: BomSnapshot[] } } }>(
    tenant,
    `query($id: ID!, $first: Int) { component { findOne(id: $id) { bomHistory(first: $first) { bomVersion createdAt createdBy { id } actingIntegrationId lines { ${linkFields} } } } } }`,
    { id, ...(first ? { first } : {}) },
  );
  return data.component.findOne.bomHistory;
}

/**
 * Everything an item write can touch in the library partition: components, history, CPN claims and counters,
 * search entries, BOMs and BOM snapshots, document links and commit records.
 */
export async function itemWrites(tenant: Tenant): Promise<Record<string, unknown>[]> {
  // Search entries live in the library's search partition (lib/store/README.md), beside the library's own.
  const [library, search] = await Promise.all([
    partitionItems(libraryPartition(tenant), ['C#', 'H#', 'CPN#', 'CTR#', 'BOM#', 'BOMH#', 'DOCS#', 'USEDBY#', 'WRITE#']),
    partitionItems(`${libraryPartition(tenant)}#SEARCH`, ['SD#']),
  ]);
  return [...library, ...search];
}

export function capacityOf(response: GraphQLResponse): { requests: number; readCapacityUnits: number; writeCapacityUnits: number } {
  const header = response.headers.get('x-plm-consumed-capacity');
  expect(header, 'x-plm-consumed-capacity header').toBeTruthy();
  return JSON.parse(header!);
}
