import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { gqlOk, testStore, type Tenant } from '../support/api.js';
// Moved to test/support; named here too for test files written against this module.
export { expectError } from '../support/errors.js';
export { historyOf, type HistoryEntry } from '../support/history.js';

/** Every field of Component, for the tests that check all of them are resolved. */
export const allComponentFields = `
  id name description revisionValue revision { value } version state
  status { id name color mapsTo } category { id name type } cpn eid labels { name }
  createdAt updatedAt createdBy { id firstName lastName } updatedBy { id firstName lastName }
  isPinned isBookmarked isArchived notRevisionManaged lastReleasedNotRevisionManaged documentFormats
  attributeValues { attributeId name unit value }
  fileId imageFileId
  effectiveAttributeAccess { attributeId canRead canWrite }
  viewerAccess { canRead canUpdate canDelete canCreateRevision }
  integrationLock { locked integrationId }
  actingIntegrationId originIntegrationId originIntegration { id name }
  history { version action createdAt user { id } actingIntegrationId changes { field from to } }
  file { id name contentType size status } imageFile { id name contentType size status }
`;

/** The fields most tests read. */
export const componentFields = `
  id name description revisionValue version state cpn eid isArchived notRevisionManaged lastReleasedNotRevisionManaged
  documentFormats status { id name color mapsTo } category { id name type } labels { name }
  attributeValues { attributeId value } isPinned isBookmarked
`;

export interface Component {
  id: string;
  name: string;
  description: string | null;
  revisionValue: string;
  version: number;
  state: string;
  cpn: string;
  eid: string | null;
  isArchived: boolean;
  notRevisionManaged: boolean;
  lastReleasedNotRevisionManaged: boolean | null;
  documentFormats: string[] | null;
  status: { id: string; name: string; color: string; mapsTo: string };
  category: { id: string; name: string; type: string };
  labels: { name: string }[];
  attributeValues: { attributeId: string; value: unknown }[];
  isPinned: boolean;
  isBookmarked: boolean;
}

export const createMutation = `mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { ${componentFields} } } }`;
export const updateMutation = `mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { ${componentFields} } } }`;
export const findOneQuery = `query($id: ID!) { component { findOne(id: $id) { ${componentFields} } } }`;

export async function createComponents(tenant: Tenant, inputs: Record<string, unknown>[]): Promise<Component[]> {
  return (await gqlOk<{ component: { create: Component[] } }>(tenant, createMutation, { inputs })).component.create;
}

export async function createComponent(tenant: Tenant, input: Record<string, unknown>): Promise<Component> {
  return (await createComponents(tenant, [input]))[0]!;
}

export async function updateComponent(tenant: Tenant, input: Record<string, unknown>): Promise<Component> {
  return (await gqlOk<{ component: { update: Component[] } }>(tenant, updateMutation, { inputs: [input] })).component.update[0]!;
}

export async function findOne(tenant: Tenant, id: string): Promise<Component | null> {
  return (await gqlOk<{ component: { findOne: Component | null } }>(tenant, findOneQuery, { id })).component.findOne;
}

export async function totalCount(tenant: Tenant, filter: Record<string, unknown> = {}): Promise<number> {
  const data = await gqlOk<{ component: { findAll: { totalCount: number } } }>(tenant, 'query($filter: ComponentFilterInput) { component { findAll(filter: $filter) { totalCount } } }', { filter });
  return data.component.findAll.totalCount;
}

export function libraryPartition(tenant: Tenant): string {
  return `ORG#${tenant.organization.id}#LIB#${tenant.library.id}`;
}

/** Every item of the library partition whose sort key starts with one of the prefixes, ordered by SK. */
export async function partitionItems(partition: string, prefixes: string[]): Promise<Record<string, unknown>[]> {
  const store = testStore();
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.ddb.send(
      new QueryCommand({
        TableName: store.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.filter((item) => prefixes.some((prefix) => String(item.SK).startsWith(prefix))).sort((a, b) => String(a.SK).localeCompare(String(b.SK)));
}

/** Components, history records, CPN claims and counters of the tenant's library: what a refused write must not touch. */
export function componentWrites(tenant: Tenant): Promise<Record<string, unknown>[]> {
  return partitionItems(libraryPartition(tenant), ['C#', 'H#', 'CPN#', 'CTR#']);
}

export function attributeMap(component: { attributeValues: { attributeId: string; value: unknown }[] }): Record<string, unknown> {
  return Object.fromEntries(component.attributeValues.map((a) => [a.attributeId, a.value]));
}
