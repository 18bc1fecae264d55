import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { gqlOk, graphql, tenantHeaders, type GraphQLResponse, type Tenant } from '../support/api.js';
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
    created.push(...(await createItems(tenant, names.slice(start, start + 10).map((name) => ({ name, categoryId: 'mechanical', ...extra })))));
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

export interface HistoryEntry {
  id: string;
  version: number;
  action: string;
  changes: { field: string; from: unknown; to: unknown }[];
}

export async function historyOf(tenant: Tenant, id: string): Promise<HistoryEntry[]> {
  const data = await gqlOk<{ component: { findOne: { history: HistoryEntry[] } } }>(
    tenant,
    'query($id: ID!) { component { findOne(id: $id) { history(first: 1000) { id version action changes { field from to } } } } }',
    { id },
  );
  return data.component.findOne.history;
}

/** A call expected to fail with one error of this code (HTTP 200); returns the response. */
export async function expectCode(tenant: Tenant, query: string, variables: Record<string, unknown>, code: string, headers: Record<string, string> = {}): Promise<GraphQLResponse> {
  const response = await graphql(query, variables, { ...tenantHeaders(tenant), ...headers });
  expect(response.body.errors?.map((e) => e.extensions?.code), JSON.stringify(response.body.errors)).toEqual([code]);
  expect(response.body.data ?? null).toBeNull();
  return response;
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

export const sha256Hex = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export const createUploadMutation = `mutation($input: CreateUploadInput!) {
  file { createUpload(input: $input) { file { id name contentType size sha256 status createdAt completedAt downloadUrl } uploadUrl method headers expiresAt } }
}`;
export const completeMutation = `mutation($id: ID!) { file { complete(id: $id) { id name contentType size sha256 status createdAt completedAt downloadUrl } } }`;

export interface FileView {
  id: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  status: 'PENDING' | 'READY';
  createdAt: string;
  completedAt: string | null;
  downloadUrl: string | null;
}

export interface FileUpload {
  file: FileView;
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
  expiresAt: string;
}

export async function createUpload(tenant: Tenant, input: { name: string; contentType: string; size: number; sha256: string }): Promise<FileUpload> {
  return (await gqlOk<{ file: { createUpload: FileUpload } }>(tenant, createUploadMutation, { input })).file.createUpload;
}

/** PUTs the bytes where createUpload said, with the headers it said. */
export async function putBytes(upload: FileUpload, bytes: Buffer): Promise<Response> {
  return fetch(upload.uploadUrl, { method: upload.method, headers: upload.headers, body: new Uint8Array(bytes) });
}

export async function completeUpload(tenant: Tenant, id: string): Promise<FileView> {
  return (await gqlOk<{ file: { complete: FileView } }>(tenant, completeMutation, { id })).file.complete;
}

/** createUpload, PUT and (unless told not to) complete: the file's id. */
export async function uploadFile(tenant: Tenant, bytes: Buffer, options: { name?: string; contentType?: string; complete?: boolean } = {}): Promise<FileView> {
  const upload = await createUpload(tenant, {
    name: options.name ?? 'drawing.pdf',
    contentType: options.contentType ?? 'application/pdf',
    size: bytes.length,
    sha256: sha256Hex(bytes),
  });
  const put = await putBytes(upload, bytes);
  expect(put.status).toBe(200);
  return options.complete === false ? upload.file : completeUpload(tenant, upload.file.id);
}
