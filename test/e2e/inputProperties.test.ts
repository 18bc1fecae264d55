import fc from 'fast-check';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { libraryPartition, partitionItems } from './componentHelpers.js';

/**
 * Generated hostile input at every mutation: whatever a client sends, the answer is never an
 * INTERNAL_SERVER_ERROR, and a refused call writes nothing (the tenant's partitions are unchanged).
 */
let tenant: Tenant;
let partId: string;
let assemblyId: string;

const organizationItems = async () => {
  const page = await testStore().ddb.send(
    new QueryCommand({ TableName: testStore().tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ORG#${tenant.organization.id}` } }),
  );
  return page.Items ?? [];
};
const snapshot = async () => JSON.stringify([await partitionItems(libraryPartition(tenant), ['']), await organizationItems()]);

beforeAll(async () => {
  tenant = await newTenant();
  const created = await gqlOk<{ item: { create: { id: string }[] } }>(tenant, 'mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id } } }', {
    inputs: [
      { name: 'Part', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 1 }] },
      { name: 'Board', categoryId: 'pcba' },
    ],
  });
  [partId, assemblyId] = created.item.create.map((c) => c.id) as [string, string];
});

/** Numbers DynamoDB and the SDK cannot carry beside ordinary ones. */
const hostileNumber = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1e16, 1e308, -1e308, 1e-200, 5e-324, -0, 2 ** 53 + 2, 0.1), fc.integer());
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', 'x'.repeat(2048), 'x'.repeat(70_000), '\u0000', '@', '%_%', '../../etc'),
);
const hostileId = fc.oneof(fc.uuid(), hostileString, fc.constant(crypto.randomUUID()));
const knownOrHostileId = () => fc.oneof({ weight: 3, arbitrary: fc.constant(partId) }, fc.constant(assemblyId), hostileId);
/** Mostly what a valid call has, sometimes something hostile: so that calls get far enough to write. */
const mostly = <T>(valid: T, hostile: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: fc.constant(valid) }, { weight: 1, arbitrary: hostile });
const hostileValue = fc.oneof({ weight: 4, arbitrary: hostileNumber }, hostileString, fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 3 }));
const attributeValues = fc.array(fc.record({ attributeId: mostly('resistance', fc.oneof(fc.constantFrom('tolerance', 'package'), hostileString)), value: hostileValue }), { maxLength: 3 });
const children = () => fc.array(fc.record({ childId: knownOrHostileId(), quantity: fc.option(hostileNumber), refDes: fc.option(hostileString) }), { maxLength: 3 });

interface MutationCase {
  name: string;
  query: string;
  variables: () => fc.Arbitrary<Record<string, unknown>>;
}

const cases: MutationCase[] = [
  {
    name: 'component.create',
    query: 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }',
    variables: () =>
      fc.record({
        inputs: fc.array(
          fc.record({
            name: mostly('R', hostileString),
            categoryId: mostly('resistor', hostileString),
            description: fc.option(hostileString),
            cpn: mostly(null, hostileString),
            revisionValue: mostly(null, hostileString),
            labels: fc.option(fc.array(hostileString, { maxLength: 3 })),
            attributeValues,
          }),
          { minLength: 1, maxLength: 3 },
        ),
      }),
  },
  {
    name: 'component.update',
    query: 'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id } } }',
    variables: () => fc.record({ inputs: fc.tuple(fc.record({ id: knownOrHostileId(), name: fc.option(hostileString), expectedVersion: mostly(null, fc.integer()), attributeValues })) }),
  },
  {
    name: 'component.delete',
    query: 'mutation($ids: [ID!]) { component { delete(ids: $ids) { deletedIds } } }',
    variables: () => fc.record({ ids: fc.option(fc.array(fc.oneof(fc.constant(partId), hostileId), { maxLength: 20 })) }),
  },
  { name: 'component.pin', query: 'mutation($ids: [ID!]!) { component { pin(input: { ids: $ids }) { id } } }', variables: () => fc.record({ ids: fc.array(knownOrHostileId(), { maxLength: 5 }) }) },
  { name: 'component.unbookmark', query: 'mutation($ids: [ID!]!) { component { unbookmark(input: { ids: $ids }) } }', variables: () => fc.record({ ids: fc.array(hostileId, { maxLength: 5 }) }) },
  {
    name: 'item.create',
    query: 'mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id } } }',
    variables: () =>
      fc.record({
        inputs: fc.array(
          fc.record({ name: mostly('B', hostileString), categoryId: mostly('pcba', hostileString), children: children(), documentComponentIds: mostly(null, fc.array(hostileId, { maxLength: 2 })) }),
          { minLength: 1, maxLength: 2 },
        ),
      }),
  },
  {
    name: 'item.update',
    query: 'mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id } } }',
    variables: () =>
      fc.record({ inputs: fc.tuple(fc.record({ id: mostly(assemblyId, hostileId), children: children(), removeDocumentLinkIds: mostly(null, fc.array(hostileId, { maxLength: 2 })) })) }),
  },
  {
    name: 'assemblies.updateBOM',
    query: 'mutation($input: UpdateBomInput!) { assemblies { updateBOM(input: $input) { id } } }',
    variables: () => fc.record({ input: fc.record({ assemblyId: mostly(assemblyId, hostileId), children: children(), expectedVersion: mostly(null, fc.integer()) }) }),
  },
  {
    name: 'config.setLibraryConfig',
    query: 'mutation($input: SetLibraryConfigInput!) { config { setLibraryConfig(input: $input) { type version } } }',
    variables: () =>
      fc.record({
        input: fc.record({ type: fc.constantFrom('STATUSES', 'CATEGORIES', 'CPN_SCHEME', 'REVISION_SCHEME'), document: fc.jsonValue({ maxDepth: 4 }), expectedVersion: fc.option(fc.integer()) }),
      }),
  },
  {
    name: 'library.create',
    query: 'mutation($input: CreateLibraryInput!) { library { create(input: $input) { id } } }',
    variables: () => fc.record({ input: fc.record({ name: hostileString, slug: hostileString, description: fc.option(hostileString) }) }),
  },
  {
    name: 'apiKey.create',
    query: 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret } } }',
    variables: () => fc.record({ input: fc.record({ name: hostileString, expiresAt: fc.option(hostileString) }) }),
  },
  {
    name: 'apiKey.update',
    query: 'mutation($input: UpdateApiKeyInput!) { apiKey { update(input: $input) { id } } }',
    variables: () => fc.record({ input: fc.record({ id: hostileId, name: hostileString }) }),
  },
  { name: 'apiKey.rotate', query: 'mutation($input: RotateApiKeyInput!) { apiKey { rotate(input: $input) { secret } } }', variables: () => fc.record({ input: fc.record({ id: hostileId }) }) },
  {
    name: 'file.createUpload',
    query: 'mutation($input: CreateUploadInput!) { file { createUpload(input: $input) { uploadUrl } } }',
    variables: () => fc.record({ input: fc.record({ name: hostileString, contentType: hostileString, size: fc.integer(), sha256: hostileString }) }),
  },
  { name: 'file.complete', query: 'mutation($id: ID!) { file { complete(id: $id) { id } } }', variables: () => fc.record({ id: hostileId }) },
];

describe('generated hostile input at every mutation', () => {
  for (const mutation of cases) {
    it(`${mutation.name}: never INTERNAL_SERVER_ERROR, and a refusal writes nothing`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(mutation.variables(), async (variables) => {
          const before = await snapshot();
          const response = await graphql(mutation.query, variables, tenantHeaders(tenant));
          expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
          const codes = (response.body.errors ?? []).map((error) => error.extensions?.code);
          expect(codes, JSON.stringify(response.body.errors)).not.toContain('INTERNAL_SERVER_ERROR');
          if (codes.length > 0) expect(await snapshot(), `${mutation.name} refused (${codes.join(', ')}) but wrote`).toEqual(before);
        }),
        { numRuns: 25, seed: 20261123 },
      );
    });
  }
});
