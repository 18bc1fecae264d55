import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { membershipKey } from '../../lib/store/membership.js';
import { userKey } from '../../lib/store/user.js';
import { gqlOk, newTenant, stack, tenantHeaders, testStore, type Tenant } from '../support/api.js';

/** One round trip of authentication, with no stale permissions. */
let tenant: Tenant;

beforeAll(async () => {
  tenant = await newTenant();
});

async function call(query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  const response = await fetch(`${stack.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const capacity = JSON.parse(response.headers.get('x-plm-consumed-capacity') ?? '{}') as { requests: number; readCapacityUnits: number };
  return { status: response.status, capacity, body: (await response.json()) as { data?: any; errors?: { extensions?: { code?: string } }[] } };
}

describe('an API-key request', () => {
  it('resolves its context in one round trip, with the findOne component read ahead in it: 1 DynamoDB request, with slugs or UUIDs', async () => {
    const created = await gqlOk<{ component: { create: { id: string }[] } }>(tenant, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', {
      inputs: [{ name: 'R', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 1 }] }],
    });
    const id = created.component.create[0]!.id;
    for (const headers of [tenantHeaders(tenant), tenantHeaders(tenant, { asUuids: true })]) {
      const result = await call('query($id: ID!) { component { findOne(id: $id) { id name } } }', { id }, headers);
      expect(result.body.data.component.findOne).toMatchObject({ id, name: 'R' });
      expect(result.capacity.requests).toBe(1);
    }
  });

  it('reads ahead only what findOne will answer, and answers as the usual read does', async () => {
    const created = await gqlOk<{ component: { create: { id: string }[] } }>(tenant, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', {
      inputs: [
        { name: 'Ahead A', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 10 }] },
        { name: 'Ahead B', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 20 }] },
      ],
    });
    const [a, b] = created.component.create.map((c) => c.id) as [string, string];
    const fields = 'id name version cpn attributeValues { attributeId value } status { name }';
    // The usual read (a fragment is not looked at) and the read-ahead answer the same.
    const usual = await call(`query($id: ID!) { component { ...F } } fragment F on ComponentQueryNamespace { findOne(id: $id) { ${fields} } }`, { id: a }, tenantHeaders(tenant));
    expect(usual.capacity.requests).toBe(2);
    const ahead = await call(`query($id: ID!) { component { findOne(id: $id) { ${fields} } } }`, { id: a }, tenantHeaders(tenant));
    expect(ahead.capacity.requests).toBe(1);
    expect(ahead.body).toEqual(usual.body);
    // Several findOne, the same id twice, and an id that is no component: still one request.
    const several = await call(
      `{ component { a: findOne(id: "${a}") { name } again: findOne(id: "${a}") { name } b: findOne(id: "${b}") { name } none: findOne(id: "${crypto.randomUUID()}") { name } } }`,
      {},
      tenantHeaders(tenant),
    );
    expect(several.body.data.component).toEqual({ a: { name: 'Ahead A' }, again: { name: 'Ahead A' }, b: { name: 'Ahead B' }, none: null });
    expect(several.capacity.requests).toBe(1);
    // A write is seen by the next read: the item is read with the request, never kept.
    await gqlOk(tenant, 'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id } } }', { inputs: [{ id: b, name: 'Ahead B2' }] });
    expect((await call(`{ component { findOne(id: "${b}") { name } } }`, {}, tenantHeaders(tenant))).body.data.component.findOne).toEqual({ name: 'Ahead B2' });
  });

  it('never hands out a read-ahead item when the context does not hold', async () => {
    const other = await newTenant();
    const created = await gqlOk<{ component: { create: { id: string }[] } }>(other, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', {
      inputs: [{ name: 'Withheld', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 1 }] }],
    });
    const id = created.component.create[0]!.id;
    const findOne = `{ component { findOne(id: "${id}") { id name } } }`;
    expect((await call(findOne, {}, tenantHeaders(other))).capacity.requests).toBe(1);
    // The same key under another tenant's library header: refused, nothing of the item in the answer.
    const elsewhere = await call(findOne, {}, { ...tenantHeaders(other), 'x-organization': tenant.organization.id, 'x-library': tenant.library.id });
    expect(elsewhere.status).toBe(403);
    expect(JSON.stringify(elsewhere.body)).not.toContain('Withheld');
    // Once the key is revoked, the credential this process admitted before is 401, with no data.
    const keys = await gqlOk<{ apiKey: { findAllForUser: { id: string }[] } }>(other, '{ apiKey { findAllForUser { id } } }');
    await gqlOk(other, 'mutation($id: ID!) { apiKey { deactivate(input: { id: $id }) { id } } }', { id: keys.apiKey.findAllForUser[0]!.id });
    const revoked = await call(findOne, {}, tenantHeaders(other));
    expect(revoked.status).toBe(401);
    expect(JSON.stringify(revoked.body)).not.toContain('Withheld');
    // ... and, refused once, the credential is no longer read ahead for: the next refusal reads no component.
    const again = await call(findOne, {}, tenantHeaders(other));
    expect(again.status).toBe(401);
    expect(again.capacity.requests).toBe(1);
    expect(again.capacity.readCapacityUnits).toBeLessThan(revoked.capacity.readCapacityUnits);
  });

  it('reads user.me in 2 DynamoDB requests: the context batch, then one Query of the user and their organizations', async () => {
    const me = '{ user { me { permitted hasOrganizations canCreateOrg user { id name primaryEmail } } orgCreationOptions { canCreateSandbox sandboxParents { organization { id } } } } }';
    const result = await call(me, {}, tenantHeaders(tenant));
    expect(result.body.data.user.me).toMatchObject({ permitted: true, hasOrganizations: true, user: { id: tenant.user.id } });
    expect(result.capacity.requests).toBe(2);
    // A user item written before it was indexed beside the memberships: the same answer, one GetItem more.
    const other = await newTenant();
    const before = (await call(me, {}, tenantHeaders(other))).body.data;
    await testStore().ddb.send(new UpdateCommand({ TableName: testStore().tableName, Key: userKey(other.user.id), UpdateExpression: 'REMOVE GSI1PK, GSI1SK' }));
    const legacy = await call(me, {}, tenantHeaders(other));
    expect(legacy.body.data).toEqual(before);
    expect(legacy.capacity.requests).toBe(3);
  });

  it('costs one request when unauthenticated, whatever the document', async () => {
    const result = await call('{ libraries { id } }', {}, { 'x-api-key': `${tenant.apiKey.slice(0, -4)}AAAA`, 'x-organization': `@${tenant.organization.slug}` });
    expect(result.status).toBe(401);
    expect(result.capacity.requests).toBe(1);
  });

  it('stops working on the next request once its owner leaves the organization', async () => {
    const other = await newTenant();
    expect((await call('{ libraries { id } }', {}, tenantHeaders(other))).status).toBe(200);
    await testStore().ddb.send(new DeleteCommand({ TableName: testStore().tableName, Key: membershipKey(other.organization.id, other.user.id) }));
    const after = await call('{ libraries { id } }', {}, tenantHeaders(other));
    expect(after.status).toBe(403);
    expect(after.body.errors?.[0]?.extensions?.code).toBe('ORGANIZATION_ACCESS_DENIED');
  });

  it('stops working on the next request once revoked, and a tampered secret is unknown', async () => {
    const other = await newTenant();
    const keys = await gqlOk<{ apiKey: { findAllForUser: { id: string }[] } }>(other, '{ apiKey { findAllForUser { id } } }');
    const tampered = other.apiKey.replace(/\.(.)/, (_, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    expect((await call('{ libraries { id } }', {}, { ...tenantHeaders(other), 'x-api-key': tampered })).status).toBe(401);
    await gqlOk(other, 'mutation($id: ID!) { apiKey { deactivate(input: { id: $id }) { id } } }', { id: keys.apiKey.findAllForUser[0]!.id });
    expect((await call('{ libraries { id } }', {}, tenantHeaders(other))).status).toBe(401);
  });
});
