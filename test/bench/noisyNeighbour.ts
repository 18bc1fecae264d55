import { performance } from 'node:perf_hooks';
import { bootstrapTenant, type BootstrapResult } from '../../lib/orgs/bootstrap.js';
import type { Store } from '../../lib/store/client.js';

/**
 * Security issue 20, item 4: 200 copies of one allowed fan-out query (a page of 400 components with their
 * children and where-used) once took 12.8 minutes to drain while another organization's trivial query
 * waited 20-64 s. Here the attacker's organization holds that library (300 parts, 100 assemblies of 10
 * lines); the victim, another organization, calls component.findOne one call after the other, first
 * alone (baseline) and then while the 200 copies run at once. The ratio of its p50 latencies is the figure;
 * its budget is 5x.
 */
export const fanOutQuery = `{ component { findAll(pagination: { first: 400 }) { totalCount edges { node {
  id children { childId child { id name } } whereUsed { assemblyId child { id } }
} } } } }`;

export const NOISY_NEIGHBOUR_RATIO_BUDGET = 5;
const copies = 200;
const baselineCalls = 50;
/** The attack is abandoned (its requests aborted) after this long: the bench stays bounded. */
const attackDeadlineMs = 180_000;

export interface NoisyNeighbourResult {
  copies: number;
  baseline: { calls: number; p50: number; p95: number };
  underAttack: { calls: number; p50: number; p95: number; max: number };
  ratioP50: number;
  ratioP95: number;
  withinBudget: boolean;
  attack: { seconds: number; statuses: Record<string, number>; requestsPerQuery: number | null; readCapacityUnitsPerQuery: number | null; abandoned: number };
}

const headersOf = (tenant: BootstrapResult) => ({
  'content-type': 'application/json',
  'x-api-key': tenant.apiKey,
  'x-organization': tenant.organization.id,
  'x-library': tenant.library.id,
});

async function post(baseUrl: string, tenant: BootstrapResult, query: string, variables?: Record<string, unknown>, signal?: AbortSignal) {
  const response = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: headersOf(tenant), body: JSON.stringify({ query, variables }), ...(signal ? { signal } : {}) });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  const cost = JSON.parse(response.headers.get('x-plm-consumed-capacity') ?? 'null') as { requests: number; readCapacityUnits: number } | null;
  return { status: response.status, body, cost };
}

async function ok(baseUrl: string, tenant: BootstrapResult, query: string, variables?: Record<string, unknown>) {
  const result = await post(baseUrl, tenant, query, variables);
  if (result.status !== 200 || result.body.errors?.length) throw new Error(`noisy neighbour seeding: HTTP ${result.status} ${JSON.stringify(result.body.errors)}`);
  return result.body.data;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (value: number) => Number(value.toFixed(2));

export async function measureNoisyNeighbour(store: Store, baseUrl: string): Promise<NoisyNeighbourResult> {
  const stamp = Date.now();
  const attacker = await bootstrapTenant(store, { orgName: 'Noisy', orgSlug: `bench-noisy-${stamp}`, libraryName: 'Main', librarySlug: 'main', email: `noisy-${stamp}@bench.test` });
  const victim = await bootstrapTenant(store, { orgName: 'Victim', orgSlug: `bench-victim-${stamp}`, libraryName: 'Main', librarySlug: 'main', email: `victim-${stamp}@bench.test` });
  const create = 'mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id } } }';
  const parts: string[] = [];
  for (let start = 0; start < 300; start += 10) {
    const data = await ok(baseUrl, attacker, create, { inputs: Array.from({ length: 10 }, (_, i) => ({ name: `P${start + i}`, categoryId: 'mechanical' })) });
    parts.push(...data.item.create.map((c: { id: string }) => c.id));
  }
  for (let start = 0; start < 100; start += 10) {
    const inputs = Array.from({ length: 10 }, (_, k) => ({
      name: `A${start + k}`,
      categoryId: 'pcba',
      children: Array.from({ length: 10 }, (_, line) => ({ childId: parts[((start + k) * 3 + line * 31) % parts.length], quantity: 1 })),
    }));
    await ok(baseUrl, attacker, create, { inputs });
  }
  const [target] = (await ok(baseUrl, victim, create, { inputs: [{ name: 'Victim part', categoryId: 'mechanical' }] })).item.create as { id: string }[];
  const trivial = 'query($id: ID!) { component { findOne(id: $id) { id name } } }';
  const victimCall = async () => {
    const started = performance.now();
    const result = await post(baseUrl, victim, trivial, { id: target!.id });
    if (result.status !== 200 || result.body.errors?.length) throw new Error(`noisy neighbour: the victim's query failed: HTTP ${result.status}`);
    return performance.now() - started;
  };
  // Warm both callers' paths (and the attacker's search index) before measuring.
  await ok(baseUrl, attacker, fanOutQuery);
  for (let i = 0; i < 10; i++) await victimCall();

  const baseline: number[] = [];
  for (let i = 0; i < baselineCalls; i++) baseline.push(await victimCall());

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), attackDeadlineMs);
  const statuses: Record<string, number> = {};
  const costs: { requests: number; readCapacityUnits: number }[] = [];
  let abandoned = 0;
  let attacking = true;
  const attackStarted = performance.now();
  const attack = Promise.all(
    Array.from({ length: copies }, () =>
      post(baseUrl, attacker, fanOutQuery, undefined, deadline.signal).then(
        (result) => {
          statuses[result.status] = (statuses[result.status] ?? 0) + 1;
          if (result.status === 200 && result.cost) costs.push(result.cost);
        },
        () => {
          abandoned += 1;
        },
      ),
    ),
  ).finally(() => {
    attacking = false;
    clearTimeout(timer);
  });
  const during: number[] = [];
  // The victim's calls while the attack is under way (at least a few, so that a fast drain still measures).
  while (attacking || during.length < 5) during.push(await victimCall());
  await attack;
  const attackSeconds = (performance.now() - attackStarted) / 1000;

  const sortedBase = [...baseline].sort((a, b) => a - b);
  const sortedDuring = [...during].sort((a, b) => a - b);
  const base = { calls: baseline.length, p50: round(percentile(sortedBase, 50)), p95: round(percentile(sortedBase, 95)) };
  const under = { calls: during.length, p50: round(percentile(sortedDuring, 50)), p95: round(percentile(sortedDuring, 95)), max: round(sortedDuring.at(-1)!) };
  const ratioP50 = round(under.p50 / base.p50);
  const average = (pick: (c: { requests: number; readCapacityUnits: number }) => number) => (costs.length ? round(costs.reduce((sum, c) => sum + pick(c), 0) / costs.length) : null);
  return {
    copies,
    baseline: base,
    underAttack: under,
    ratioP50,
    ratioP95: round(under.p95 / base.p95),
    withinBudget: ratioP50 <= NOISY_NEIGHBOUR_RATIO_BUDGET,
    attack: { seconds: round(attackSeconds), statuses, requestsPerQuery: average((c) => c.requests), readCapacityUnitsPerQuery: average((c) => c.readCapacityUnits), abandoned },
  };
}

export function renderNoisyNeighbour(result: NoisyNeighbourResult): string {
  const statuses = Object.entries(result.attack.statuses)
    .map(([status, count]) => `${count} x ${status}`)
    .join(', ');
  return [
    `attack: ${result.copies} concurrent copies of the fan-out query (400 components, children, where-used) from one API key`,
    `  answered: ${statuses || 'none'}${result.attack.abandoned ? `, ${result.attack.abandoned} abandoned at the deadline` : ''}; drained in ${result.attack.seconds} s`,
    `  per answered query: ${result.attack.requestsPerQuery ?? '-'} DynamoDB requests, ${result.attack.readCapacityUnitsPerQuery ?? '-'} RCU`,
    `victim (another organization, component.findOne, sequential):`,
    `  alone:        ${result.baseline.calls} calls, p50 ${result.baseline.p50} ms, p95 ${result.baseline.p95} ms`,
    `  under attack: ${result.underAttack.calls} calls, p50 ${result.underAttack.p50} ms, p95 ${result.underAttack.p95} ms, max ${result.underAttack.max} ms`,
    `  ratio p50 ${result.ratioP50}x (budget <= ${NOISY_NEIGHBOUR_RATIO_BUDGET}x: ${result.withinBudget ? 'ok' : 'OVER'}), p95 ${result.ratioP95}x (reported)`,
  ].join('\n');
}
