import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '../../lib/orgs/bootstrap.js';
import { createStore, type Store } from '../../lib/store/client.js';

export const stack = inject('stack');

let store: Store | undefined;
/** The local stack's table, for seeding and for asserting what was (not) written. */
export function testStore(): Store {
  store ??= createStore({ DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: stack.tableName, AWS_REGION: 'us-east-1' });
  return store;
}

export type Tenant = BootstrapResult;

export function uniqueSlug(prefix = 't'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** A fresh organization with one library, a Site Admin and an API key: each test file gets its own. */
export function newTenant(overrides: Partial<{ email: string; plan: string }> = {}): Promise<Tenant> {
  const slug = uniqueSlug('org');
  return bootstrapTenant(testStore(), {
    orgName: `Org ${slug}`,
    orgSlug: slug,
    libraryName: 'Main',
    librarySlug: 'main',
    email: overrides.email ?? `${slug}@example.com`,
    ...(overrides.plan ? { plan: overrides.plan } : {}),
  });
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    data?: T | null;
    errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; [key: string]: unknown } }[];
  };
}

/** Headers of a tenant's bootstrap key: the key, and the organization and library as slugs. */
export function tenantHeaders(tenant: Tenant, options: { asUuids?: boolean } = {}): Record<string, string> {
  return {
    'x-api-key': tenant.apiKey,
    'x-organization': options.asUuids ? tenant.organization.id : `@${tenant.organization.slug}`,
    'x-library': options.asUuids ? tenant.library.id : tenant.library.path,
  };
}

/** POST /graphql over real HTTP. */
export async function graphql<T = Record<string, unknown>>(query: string, variables: Record<string, unknown> | undefined, headers: Record<string, string | undefined>): Promise<GraphQLResponse<T>> {
  const sent: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  const response = await fetch(`${stack.baseUrl}/graphql`, { method: 'POST', headers: sent, body: JSON.stringify({ query, variables }) });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** POST /graphql with the headers; fails the test on any GraphQL error. */
export async function ok<T = any>(headers: Record<string, string | undefined>, query: string, variables?: Record<string, unknown>): Promise<T> {
  const response = await graphql<T>(query, variables, headers);
  if (response.status !== 200 || response.body.errors?.length) {
    throw new Error(`GraphQL call failed (${response.status}): ${JSON.stringify(response.body.errors)}`);
  }
  return response.body.data as T;
}

/** POST /graphql as the tenant; fails the test on any GraphQL error. */
export function gqlOk<T = Record<string, unknown>>(tenant: Tenant, query: string, variables?: Record<string, unknown>): Promise<T> {
  return ok<T>(tenantHeaders(tenant), query, variables);
}
