import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, stack, tenantHeaders, type Tenant } from '../support/api.js';

/**
 * A hostile client: the probes that once took seconds or crashed the parser, each answered with its
 * documented 4xx code before any work (at most the one DynamoDB request of the credential and context),
 * while GET /health keeps answering. How fast is the benchmark's business, not a timed test's.
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
  const response = await fetch(`${stack.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...headers },
    body: contentType === 'application/json' ? JSON.stringify({ query }) : query,
  });
  const text = await response.text();
  const body = JSON.parse(text) as { errors?: { message: string; extensions?: { code?: string } }[]; data?: unknown };
  return { status: response.status, body, headers: response.headers };
}

/** The refusal read nothing beyond the credential and its context: one DynamoDB request at most. */
function expectRefusedBeforeWork(headers: Headers): void {
  const cost = JSON.parse(headers.get('x-plm-consumed-capacity') ?? '{"requests":0}') as { requests: number };
  expect(cost.requests).toBeLessThanOrEqual(1);
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
    it(`refuses ${probe.name} with 400 ${probe.code} before any work`, async () => {
      const result = await post(probe.query());
      expect(result.status).toBe(400);
      expect(result.body.errors?.[0]?.extensions?.code).toBe(probe.code);
      expect(result.body.data).toBeUndefined();
      expectRefusedBeforeWork(result.headers);
    });
  }

  it('refuses a 4.5 MB document without a credential before parsing it: 400 REQUEST_TOO_LARGE before any work', async () => {
    const result = await post(`{ ${'__typename '.repeat(450_000)} }`, {});
    expect(result.status).toBe(400);
    expect(result.body.errors?.[0]?.extensions?.code).toBe('REQUEST_TOO_LARGE');
    expectRefusedBeforeWork(result.headers);
  });

  it('refuses a large document without a credential as 401 without parsing it', async () => {
    const result = await post(`{ ${'__typename '.repeat(50_000)} }`, {});
    expect(result.status).toBe(401);
    expect(result.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expectRefusedBeforeWork(result.headers);
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

describe('input DynamoDB would refuse never reaches it', () => {
  const create = `mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }`;
  const validate = `query($values: [AttributeValueInput!]!) { component { validateAttributes(categoryId: "resistor", attributeValues: $values) { success errors { attributeId message } } } }`;
  const run = async (query: string, variables: Record<string, unknown>, headers: Record<string, string> = tenantHeaders(tenant)) => {
    const response = await fetch(`${stack.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
    return { status: response.status, body: (await response.json()) as { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
  };
  const componentCount = async () => (await run('{ component { findAll(pagination: { first: 1 }) { totalCount } } }', {})).body.data!.component.findAll.totalCount as number;

  for (const value of [1e16, 1e308, -1e308, 1e-200, 5e-324]) {
    it(`refuses the attribute value ${value} in validation and in the write alike, writing nothing`, async () => {
      const before = await componentCount();
      const values = [{ attributeId: 'resistance', value }];
      const checked = await run(validate, { values });
      expect(checked.body.errors).toBeUndefined();
      expect(checked.body.data!.component.validateAttributes.success).toBe(false);
      expect(checked.body.data!.component.validateAttributes.errors[0].attributeId).toBe('resistance');
      const written = await run(create, { inputs: [{ name: `R ${value}`, categoryId: 'resistor', attributeValues: values }] });
      // The write refuses it as it refuses any other attribute value that breaks a rule.
      expect(written.body.errors?.[0]?.extensions?.code).toBe('ATTRIBUTE_VALIDATION_FAILED');
      expect(written.body.errors?.[0]?.message).toMatch(/Resistance/);
      expect(await componentCount()).toBe(before);
    });
  }

  it('accepts the largest and smallest storable magnitudes', async () => {
    const values = [
      { attributeId: 'resistance', value: 9007199254740991 },
      { attributeId: 'tolerance', value: 1e-100 },
    ];
    const checked = await run(validate, { values });
    expect(checked.body.data!.component.validateAttributes).toMatchObject({ success: true, errors: [] });
    const written = await run(create, { inputs: [{ name: 'R extreme', categoryId: 'resistor', attributeValues: values }] });
    expect(written.body.errors).toBeUndefined();
  });

  for (const quantity of [1e308, 5e-324, -1]) {
    it(`refuses a BOM quantity of ${quantity} naming the line`, async () => {
      const parts = await run(create, { inputs: [{ name: `child ${quantity}`, categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 1 }] }] });
      const childId = parts.body.data!.component.create[0].id as string;
      const result = await run(`mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id } } }`, {
        inputs: [{ name: `assembly ${quantity}`, categoryId: 'pcba', children: [{ childId, quantity }] }],
      });
      expect(result.body.errors?.[0]?.message).toMatch(/quantity/);
      expect(result.body.errors?.[0]?.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
    });
  }

  it('refuses ids of 2 KB with BAD_USER_INPUT naming the argument', async () => {
    const long = 'x'.repeat(2048);
    const found = await run('query($id: ID!) { component { findOne(id: $id) { id } } }', { id: long });
    expect(found.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    const updated = await run('mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id } } }', { inputs: [{ id: long, name: 'x' }] });
    expect(updated.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'inputs[0].id' });
  });

  it('refuses x-organization and x-library values over 2 KB with 400 BAD_REQUEST naming the header', async () => {
    for (const header of ['x-organization', 'x-library']) {
      const result = await run('{ libraries { id } }', {}, { ...tenantHeaders(tenant), [header]: `@${'a'.repeat(2100)}` });
      expect(result.status).toBe(400);
      expect(result.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', header });
    }
  });
});
