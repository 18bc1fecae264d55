import { expect } from 'vitest';
import { graphql, tenantHeaders, type GraphQLResponse, type Tenant } from './api.js';

/** The codes of a response's errors, with the response as the assertion's message. */
async function refusedWith(
  tenant: Tenant,
  query: string,
  variables: Record<string, unknown>,
  code: string,
  headers: Record<string, string>,
  message: (response: GraphQLResponse) => string,
): Promise<GraphQLResponse> {
  const response = await graphql(query, variables, { ...tenantHeaders(tenant), ...headers });
  expect(
    response.body.errors?.map((e) => e.extensions?.code),
    message(response),
  ).toEqual([code]);
  return response;
}

/** A call expected to fail: returns the response; asserts HTTP status, one error, and its code. */
export async function expectError(tenant: Tenant, query: string, variables: Record<string, unknown>, code: string, status = 200): Promise<GraphQLResponse> {
  const response = await refusedWith(tenant, query, variables, code, {}, (r) => JSON.stringify(r.body));
  expect(response.status).toBe(status);
  return response;
}

/** A call expected to fail with one error of this code and no data; returns the response. */
export async function expectCode(tenant: Tenant, query: string, variables: Record<string, unknown>, code: string, headers: Record<string, string> = {}): Promise<GraphQLResponse> {
  const response = await refusedWith(tenant, query, variables, code, headers, (r) => JSON.stringify(r.body.errors));
  expect(response.body.data ?? null).toBeNull();
  return response;
}
