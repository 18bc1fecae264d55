import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, stack, tenantHeaders, type Tenant } from '../support/api.js';

/**
 * A hostile client: the probes that once took seconds or crashed the parser, each answered with its
 * documented 4xx code within 200 ms, while GET /health keeps answering.
 */
let tenant: Tenant;
let componentId: string;
let healthChecks: Promise<number[]>;
let probing = true;

beforeAll(async () => {
  tenant = await newTenant();
  componentId = crypto.randomUUID();
  healthChecks = (async () => {
    const statuses: number[] = [];
    while (probing) {
      statuses.push((await fetch(`${stack.baseUrl}/health`)).status);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return statuses;
  })();
  // Warm the stack once so that the first probe does not pay the handler's first request.
  await post('{ __typename }');
});

afterAll(async () => {
  probing = false;
  await healthChecks;
});

async function post(query: string, headers: Record<string, string> = tenantHeaders(tenant), contentType = 'application/json') {
  const started = performance.now();
  const response = await fetch(`${stack.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...headers },
    body: contentType === 'application/json' ? JSON.stringify({ query }) : query,
  });
  const text = await response.text();
  const body = JSON.parse(text) as { errors?: { message: string; extensions?: { code?: string } }[]; data?: unknown };
  return { status: response.status, body, ms: performance.now() - started, headers: response.headers };
}

const probes: { name: string; query: () => string; code: string }[] = [
  {
    name: '1,000 aliases of component.findOne',
    query: () => `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: component { findOne(id: "${componentId}") { id } }`).join(' ')} }`,
    code: 'TOO_MANY_TOKENS',
  },
  { name: '100 aliases of a namespace', query: () => `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: component { __typename }`).join(' ')} }`, code: 'TOO_MANY_ALIASES' },
  {
    name: 'children { child { children ... } } four levels deep',
    query: () => `{ component { findOne(id: "${componentId}") { ${'children { child { '.repeat(4)} id ${'} } '.repeat(4)} } } }`,
    code: 'QUERY_TOO_COMPLEX',
  },
  {
    name: 'a whereUsed { child { whereUsed ... } } chain of 12 levels',
    query: () => `{ component { findOne(id: "${componentId}") { ${'whereUsed { child { '.repeat(12)} id ${'} } '.repeat(12)} } } }`,
    code: 'QUERY_TOO_COMPLEX',
  },
  {
    name: 'children { child { ... } } seven levels deep',
    query: () => `{ component { findOne(id: "${componentId}") { ${'children { child { '.repeat(7)} id ${'} } '.repeat(7)} } } }`,
    code: 'QUERY_TOO_DEEP',
  },
  { name: '5,000 nested braces', query: () => `{ ${'a { '.repeat(5000)} b ${'} '.repeat(5000)} }`, code: 'TOO_MANY_TOKENS' },
  { name: '30 directives', query: () => `{ __typename ${'@include(if: true) '.repeat(30)} }`, code: 'TOO_MANY_DIRECTIVES' },
];

describe('hostile client', () => {
  for (const probe of probes) {
    it(`refuses ${probe.name} with 400 ${probe.code} within 200 ms`, async () => {
      const result = await post(probe.query());
      expect(result.status).toBe(400);
      expect(result.body.errors?.[0]?.extensions?.code).toBe(probe.code);
      expect(result.body.data).toBeUndefined();
      expect(result.ms).toBeLessThan(200);
    });
  }

  it('refuses a 4.5 MB document without a credential before parsing it: 400 REQUEST_TOO_LARGE within 200 ms', async () => {
    const result = await post(`{ ${'__typename '.repeat(450_000)} }`, {});
    expect(result.status).toBe(400);
    expect(result.body.errors?.[0]?.extensions?.code).toBe('REQUEST_TOO_LARGE');
    expect(result.ms).toBeLessThan(200);
  });

  it('refuses a large document without a credential as 401 without parsing it', async () => {
    const result = await post(`{ ${'__typename '.repeat(50_000)} }`, {});
    expect(result.status).toBe(401);
    expect(result.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(result.ms).toBeLessThan(200);
  });

  it('keeps parse errors of an authenticated caller at 400 without field suggestions', async () => {
    const result = await post('{ componen { id } }');
    expect(result.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });

  it('answers GET /health throughout', async () => {
    probing = false;
    const statuses = await healthChecks;
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe('browser-facing defaults', () => {
  it('runs nothing for an url-encoded form POST (the CSRF shape) and answers 415', async () => {
    const result = await post('query=mutation%20%7B%20__typename%20%7D', tenantHeaders(tenant), 'application/x-www-form-urlencoded');
    expect(result.status).toBe(415);
    expect(result.body.errors?.[0]?.extensions?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(result.body.data).toBeUndefined();
  });

  it('refuses text/plain and multipart POSTs too', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x']) {
      const result = await post('{"query":"{ __typename }"}', tenantHeaders(tenant), type);
      expect(result.status).toBe(415);
    }
  });

  it('answers CORS only for origins on the allowlist', async () => {
    const allowed = new URL(stack.env.APP_URL ?? 'http://localhost:3000').origin;
    const preflight = (origin: string) =>
      fetch(`${stack.baseUrl}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
      });
    const good = await preflight(allowed);
    expect(good.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(good.headers.get('access-control-allow-credentials')).toBe('true');
    const evil = await preflight('https://evil.example');
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(evil.headers.get('access-control-allow-credentials')).toBeNull();
    const simple = await fetch(`${stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json', ...tenantHeaders(tenant) },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends security headers on every response of every route', async () => {
    const responses = [
      await fetch(`${stack.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...tenantHeaders(tenant) }, body: '{"query":"{ __typename }"}' }),
      await fetch(`${stack.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }),
      await fetch(`${stack.baseUrl}/auth/config`),
      await fetch(`${stack.baseUrl}/scim/v2/Users`),
    ];
    for (const response of responses) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });
});
