import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestAbortedError } from '../../lib/errors.js';
import { newMeter, stopMeterOn, withMeter } from '../../lib/store/meter.js';
import { organizationKey } from '../../lib/store/organization.js';
import { gqlOk, graphql, newTenant, stack, tenantHeaders, testStore, type GraphQLResponse, type Tenant } from '../support/api.js';
import { createItems, createParts } from './itemHelpers.js';
import { scimTenant, type ScimTenant } from './scimHelpers.js';

/**
 * Security issue 20, item 4: one allowed query cost 1,197 DynamoDB requests (a page of 400 components with
 * their children and where-used, each read on its own), and a caller could send as many as it liked.
 * Relation fields are now read in batches, every query draws from a DynamoDB budget (400
 * QUERY_BUDGET_EXCEEDED past it), and each API key, user and SCIM token has a rate limit (429 RATE_LIMITED
 * with Retry-After).
 */
const assemblies = 100;
const partsCount = 300;
const linesPerAssembly = 10;
const fanOutQuery = `{ component { findAll(pagination: { first: 400 }) { totalCount edges { node {
  id children { childId child { id name } } whereUsed { assemblyId child { id } }
} } } } }`;

let tenant: Tenant;

function capacity(response: GraphQLResponse<unknown>): { requests: number; readCapacityUnits: number; writeCapacityUnits: number; rateLimit?: { requests: number } } {
  return JSON.parse(response.headers.get('x-plm-consumed-capacity') ?? '{}');
}

beforeAll(async () => {
  tenant = await newTenant();
  // 300 parts and 100 assemblies of 10 lines: every part is used by 3 or 4 assemblies.
  const parts = await createParts(
    tenant,
    Array.from({ length: partsCount }, (_, i) => `P${i}`),
  );
  for (let start = 0; start < assemblies; start += 10) {
    await createItems(
      tenant,
      Array.from({ length: 10 }, (_, k) => {
        const a = start + k;
        const children = Array.from({ length: linesPerAssembly }, (_, line) => ({ childId: parts[(a * 3 + line * 31) % partsCount]!.id, quantity: 1 }));
        return { name: `A${a}`, categoryId: 'pcba', children };
      }),
    );
  }
}, 180_000);

describe('the per-request DynamoDB budget', () => {
  it('answers a page of 400 components with children and where-used in a bounded number of batched reads', async () => {
    // The first listing after the writes brings the search index up to date (writes of its own); not measured.
    await gqlOk(tenant, '{ component { findAll(pagination: { first: 1 }) { totalCount } } }');
    const response = await graphql<any>(fanOutQuery, undefined, tenantHeaders(tenant));
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const nodes = response.body.data.component.findAll.edges.map((e: { node: unknown }) => e.node) as { children: unknown[]; whereUsed: unknown[] }[];
    expect(nodes).toHaveLength(assemblies + partsCount);
    expect(nodes.reduce((sum, n) => sum + n.children.length, 0)).toBe(assemblies * linesPerAssembly);
    expect(nodes.reduce((sum, n) => sum + n.whereUsed.length, 0)).toBe(assemblies * linesPerAssembly);
    // Unbatched this was over 1,000 requests (one per component and relation); batched it is one
    // BatchGetItem per 100 keys and relation: credential, the page (4), BOMs (4), where-used entries (4),
    // the BOMs of the using assemblies and the child components (4 each): 22 measured.
    const cost = capacity(response);
    expect(cost.requests).toBeLessThanOrEqual(25);
    // The rate count is metered apart: one UpdateItem of both windows, or none while this process counts
    // the caller on its own (far below its limits, lib/accounts/rateLimit.ts).
    expect(cost.rateLimit?.requests).toBeLessThanOrEqual(1);
  });

  it('refuses a query that needs more than its budget with 400 QUERY_BUDGET_EXCEEDED, stating the budget and the use', async () => {
    // history is one Query per component (no batch read exists for it): 400 of them.
    const response = await graphql<any>('{ component { findAll(pagination: { first: 400 }) { edges { node { id history(first: 1) { version } } } } } }', undefined, tenantHeaders(tenant));
    expect(response.status).toBe(400);
    expect(response.body.data).toBeNull();
    expect(response.body.errors).toHaveLength(1);
    const error = response.body.errors![0]!;
    expect(error.extensions).toMatchObject({ code: 'QUERY_BUDGET_EXCEEDED', budget: { requests: 100, readCapacityUnits: 2000 } });
    const used = error.extensions!.used as { requests: number; readCapacityUnits: number };
    expect(used.requests).toBe(100);
    // It stopped at the budget: no call started past it.
    expect(capacity(response).requests).toBeLessThanOrEqual(100);
  });

  it('a mutation is not cut by the budget, and a small query is untouched', async () => {
    const [part] = await createParts(tenant, ['small']);
    const data = await gqlOk<any>(tenant, 'query($id: ID!) { component { findOne(id: $id) { id children { id } whereUsed { id } documents { id } } } }', { id: part!.id });
    expect(data.component.findOne).toEqual({ id: part!.id, children: [], whereUsed: [], documents: [] });
  });

  it('stops before the next DynamoDB call once the client has gone', async () => {
    const meter = newMeter();
    const gone = new AbortController();
    stopMeterOn(meter, gone.signal);
    const key = organizationKey(tenant.organization.id);
    await withMeter(meter, () => testStore().ddb.send(new GetCommand({ TableName: testStore().tableName, Key: key })));
    expect(meter.requests).toBe(1);
    gone.abort();
    await expect(withMeter(meter, () => testStore().ddb.send(new GetCommand({ TableName: testStore().tableName, Key: key })))).rejects.toBeInstanceOf(RequestAbortedError);
    expect(meter.requests).toBe(1);
  });
});

/**
 * Rate limits: the real local server and handlers, started in this worker with low limits
 * (PLM_RATE_LIMIT_PER_MINUTE=6) against the stack's table, so that the shared stack keeps its defaults.
 */
const perMinute = 6;
let limited: Server;
let limitedUrl: string;

beforeAll(async () => {
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
    TABLE_NAME: stack.tableName,
    AWS_REGION: 'us-east-1',
    PLM_RATE_LIMIT_PER_MINUTE: String(perMinute),
    PLM_RATE_LIMIT_BURST: '100',
  });
  const [{ createLocalServer }, graphqlHandler, scimHandler] = await Promise.all([
    import('../../infra/local/server.js'),
    import('../../functions/graphql/handler.js'),
    import('../../functions/scim/handler.js'),
  ]);
  limited = createLocalServer({
    handlers: { graphql: graphqlHandler.handler, scim: scimHandler.handler, auth: async () => ({ statusCode: 404, body: '' }) },
  });
  await new Promise<void>((resolve) => limited.listen(0, '127.0.0.1', resolve));
  limitedUrl = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => limited?.close(resolve));
});

async function limitedGraphql(headers: Record<string, string>) {
  const response = await fetch(`${limitedUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ libraries { id } }' }) });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] } };
}

async function limitedScim(token: string) {
  const response = await fetch(`${limitedUrl}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Record<string, unknown> };
}

/**
 * The first `perMinute` requests always pass (the sliding count never exceeds the requests made); the one
 * after them is refused: made within seconds, it counts at least 7 × (1 - 8.5 / 60) > 6 even across a
 * minute boundary.
 */
async function exhaust<T extends { status: number }>(send: () => Promise<T>): Promise<{ passed: T[]; refused: T }> {
  const passed: T[] = [];
  for (let i = 0; i < perMinute; i += 1) passed.push(await send());
  return { passed, refused: await send() };
}

describe('per-caller rate limits', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the limit of an API key; another key and another organization go on', async () => {
    const owner = await newTenant();
    const other = await newTenant();
    // A second key of the same owner (made with the first, which has counted that one request).
    const second = { ...tenantHeaders(owner), 'x-api-key': (await gqlOk<any>(owner, 'mutation { apiKey { create(input: { name: "second" }) { secret } } }')).apiKey.create.secret as string };
    const { passed, refused } = await exhaust(() => limitedGraphql(second));
    expect(passed.map((r) => r.status)).toEqual(Array(perMinute).fill(200));
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', limit: perMinute, windowSeconds: 60, retryAfterSeconds: Number(refused.retryAfter) });
    // Still refused on the next try: refusals count too.
    expect((await limitedGraphql(second)).status).toBe(429);
    expect((await limitedGraphql(tenantHeaders(owner))).status).toBe(200);
    expect((await limitedGraphql(tenantHeaders(other))).status).toBe(200);
  });

  it("refuses a SCIM token past its limit with 429 and Retry-After; another organization's token goes on", async () => {
    const [first, second]: ScimTenant[] = await Promise.all([scimTenant(), scimTenant()]);
    const { passed, refused } = await exhaust(() => limitedScim(first!.token));
    expect(passed.map((r) => r.status)).toEqual(Array(perMinute).fill(200));
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(refused.body).toMatchObject({ status: '429' });
    expect((await limitedScim(second!.token)).status).toBe(200);
  });

  it('counts a caller well under its limit beside its queries, and still refuses what another instance pushed over: no query answer, no write', async () => {
    const owner = await newTenant();
    const headers = tenantHeaders(owner);
    const keyId = (await gqlOk<{ apiKey: { findAllForUser: { id: string }[] } }>(owner, '{ apiKey { findAllForUser { id } } }')).apiKey.findAllForUser[0]!.id;
    const counter = { PK: `RATE#api#apikey:${keyId}`, SK: 'RATE' };
    const send = async (query: string) => {
      const response = await fetch(`${limitedUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] } };
    };
    // Other instances' requests: the counter of this minute's window far past the limit.
    const pushOver = () =>
      testStore().ddb.send(
        new UpdateCommand({
          TableName: testStore().tableName,
          Key: counter,
          UpdateExpression: 'SET #w = :many',
          ExpressionAttributeNames: { '#w': `m${Math.floor(Date.now() / 60_000)}` },
          ExpressionAttributeValues: { ':many': 100 },
        }),
      );
    for (const [kind, document] of [
      ['query', '{ libraries { id } }'],
      ['mutation', 'mutation { apiKey { create(input: { name: "over the limit" }) { secret } } }'],
    ] as const) {
      await testStore().ddb.send(new DeleteCommand({ TableName: testStore().tableName, Key: counter }));
      // Seen here at 1 of 6, then 2 of 6: the next request is counted beside its work.
      expect((await send('{ libraries { id } }')).status).toBe(200);
      expect((await send('{ libraries { id } }')).status).toBe(200);
      await pushOver();
      const refused = await send(document);
      expect(refused.status, kind).toBe(429);
      expect(refused.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(refused.body.data, kind).toBeUndefined();
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', limit: perMinute, windowSeconds: 60 });
    }
    const keys = await gqlOk<{ apiKey: { findAllForUser: { name: string }[] } }>(owner, '{ apiKey { findAllForUser { name } } }');
    expect(keys.apiKey.findAllForUser.map((key) => key.name)).not.toContain('over the limit');
  });
});

describe('Content-Length', () => {
  // yoga's body limit is off (its stream could never refuse a body the handler let through); its check of the
  // header stays in useCredentialFirst. Called in process: an HTTP server refuses such a header itself.
  it('answers a Content-Length that is not one non-negative integer 400 BAD_REQUEST, after the credential check', async () => {
    const { handler } = await import('../../functions/graphql/handler.js');
    const owner = await newTenant();
    const body = JSON.stringify({ query: '{ __typename }' });
    const event = (headers: Record<string, string>) =>
      ({
        version: '2.0',
        routeKey: 'POST /graphql',
        rawPath: '/graphql',
        rawQueryString: '',
        headers: { 'content-type': 'application/json', host: 'localhost', 'x-forwarded-proto': 'http', ...headers },
        requestContext: { http: { method: 'POST', path: '/graphql', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' }, requestId: randomUUID(), routeKey: 'POST /graphql' },
        body,
        isBase64Encoded: false,
      }) as unknown as APIGatewayProxyEventV2;
    for (const contentLength of ['12, 12', '-1', 'abc']) {
      const refused = await handler(event({ ...tenantHeaders(owner), 'content-length': contentLength }));
      expect(refused.statusCode).toBe(400);
      expect(JSON.parse(refused.body!).errors).toEqual([expect.objectContaining({ message: 'Content-Length header is invalid.', extensions: { code: 'BAD_REQUEST' } })]);
    }
    // No credential: the credential check answers first.
    expect((await handler(event({ 'content-length': 'abc' }))).statusCode).toBe(401);
    expect((await handler(event({ ...tenantHeaders(owner), 'content-length': String(Buffer.byteLength(body)) }))).statusCode).toBe(200);
  });
});
