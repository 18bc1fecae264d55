import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, stack, tenantHeaders, type Tenant } from '../support/api.js';

/** One structured JSON line per request, with nothing secret in it. */
let tenant: Tenant;

beforeAll(async () => {
  tenant = await newTenant();
});

async function lineOf(requestId: string): Promise<Record<string, any>> {
  // The line is written as the response goes out: up to 10 s for it to reach the file (a hang guard).
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const lines = (await readFile(stack.logFile, 'utf8')).split('\n').filter((line) => line.includes(requestId));
    if (lines.length > 0) {
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0]!) as Record<string, any>;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no log line for ${requestId}`);
}

describe('request log', () => {
  it('writes one line per request: id, operation, status, code, duration, DynamoDB capacity; no secret', async () => {
    const response = await fetch(`${stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...tenantHeaders(tenant) },
      body: JSON.stringify({ query: '{ libraries { id } component { findOne(id: "00000000-0000-4000-8000-000000000000") { id } } }' }),
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const line = await lineOf(requestId);
    expect(line).toMatchObject({ level: 'INFO', message: 'request', requestId, handler: 'graphql', operation: 'libraries,component.findOne', status: 200 });
    expect(line.durationMs).toEqual(expect.any(Number));
    expect(line.dynamodb.requests).toBeGreaterThanOrEqual(2);
    const text = JSON.stringify(line);
    expect(text).not.toContain(tenant.apiKey);
    expect(text).not.toContain(tenant.apiKey.slice(4, 20));
  });

  it('names the error code of a refused request and carries no stack trace for it', async () => {
    const response = await fetch(`${stack.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'plm_wrong' }, body: '{"query":"{ libraries { id } }"}' });
    expect(response.status).toBe(401);
    const line = await lineOf(response.headers.get('x-request-id')!);
    expect(line).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(JSON.stringify(line)).not.toMatch(/stack|plm_wrong/);
  });

  it('logs the account and SCIM routes too', async () => {
    const response = await fetch(`${stack.baseUrl}/auth/config`);
    const line = await lineOf(response.headers.get('x-request-id')!);
    expect(line).toMatchObject({ handler: 'auth', status: 200 });
  });
});
