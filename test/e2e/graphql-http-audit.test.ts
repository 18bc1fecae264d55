import { auditServer, serverAudits, type AuditResult } from 'graphql-http';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, stack, tenantHeaders, type Tenant } from '../support/api.js';

/**
 * The GraphQL-over-HTTP spec's server audit (npm `graphql-http`, `auditServer`: 61 audits, 13 MUST) run
 * against the real local stack's /graphql, with a tenant's credential and context headers on every request.
 *
 * - every MUST audit has to pass (one test each);
 * - SHOULD audits that do not pass are pinned below by id, each with its reason: a newly failing SHOULD
 *   fails this file, and so does a fixed one that is still listed (remove it);
 * - MAY audits are informational and not asserted.
 */
const knownShouldFailures: Record<string, string> = {
  // '<audit id>': '<one-line reason it fails, and why that is accepted>',
};

/** The audit's own requests, with the tenant's credential and context headers added. */
function tenantFetch(tenant: Tenant): typeof fetch {
  const extra = tenantHeaders(tenant);
  return (input, init) => {
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
}

type Level = 'MUST' | 'SHOULD' | 'MAY';
const levelOf = (audit: { name: string }) => audit.name.split(' ', 1)[0] as Level;

/** The audit catalogue (ids and names only: these audits' functions are never run), for one test per audit. */
const catalogue = serverAudits({ url: 'http://audit.invalid/graphql' }).map(({ id, name }) => ({ id, name }));
const mustAudits = catalogue.filter((audit) => levelOf(audit) === 'MUST');

/** Results by audit id, each failure with a line describing it (reason, HTTP status and the start of the body). */
const results = new Map<string, { result: AuditResult; detail: string }>();

beforeAll(async () => {
  const tenant = await newTenant();
  const all = await auditServer({ url: `${stack.baseUrl}/graphql`, fetchFn: tenantFetch(tenant) });
  for (const result of all) {
    let detail = `${result.id} ${result.name}: ${result.status}`;
    if (result.status !== 'ok') {
      const { response } = result;
      const body = response.bodyUsed ? '(body read by the audit)' : await response.text().catch((error: unknown) => `(unreadable body: ${error})`);
      detail += `: ${result.reason} [HTTP ${response.status} ${response.headers.get('content-type') ?? '(no content-type)'}] ${body.slice(0, 300)}`;
    }
    results.set(result.id, { result, detail });
  }
});

describe('graphql-http auditServer against /graphql', () => {
  it('ran the whole catalogue (61 audits, 13 MUST)', () => {
    expect([...results.keys()].sort()).toEqual(catalogue.map((audit) => audit.id).sort());
    expect(catalogue.length).toBeGreaterThanOrEqual(61);
    expect(mustAudits.length).toBeGreaterThanOrEqual(13);
  });

  for (const { id, name } of mustAudits) {
    it(`${id} ${name}`, () => {
      const entry = results.get(id);
      expect(entry, `audit ${id} produced no result`).toBeDefined();
      expect(entry!.result.status, entry!.detail).toBe('ok');
    });
  }

  it('fails exactly the known SHOULD audits (knownShouldFailures)', () => {
    const failing = [...results.values()].filter(({ result }) => levelOf(result) === 'SHOULD' && result.status !== 'ok');
    const listed = Object.keys(knownShouldFailures).sort();
    const unknownIds = listed.filter((id) => !catalogue.some((audit) => audit.id === id && levelOf(audit) === 'SHOULD'));
    expect(unknownIds, 'knownShouldFailures lists ids that are not SHOULD audits').toEqual([]);
    expect(
      failing.map(({ result }) => result.id).sort(),
      [
        'SHOULD audits failing now:',
        ...(failing.length ? failing.map(({ detail }) => `  ${detail}`) : ['  (none)']),
        'Add a new failure to knownShouldFailures only with its reason; remove ids that pass again.',
      ].join('\n'),
    ).toEqual(listed);
  });
});
