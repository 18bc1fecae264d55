import { performance } from 'node:perf_hooks';
import { bootstrapTenant } from '../../lib/orgs/bootstrap.js';
import { bomItem, type BomLine } from '../../lib/store/bom.js';
import type { Store } from '../../lib/store/client.js';
import { putItemsInParallel } from '../../lib/store/libraryTransfer.js';
import { seedComponents } from '../e2e/searchHelpers.js';

/**
 * Issue 25, item 2: a 21,110-line indented BOM read page by page (`indentedBom(first, after)`).
 *
 * The BOM: a top assembly, 10 / 100 / 1,000 distinct assemblies on levels 1-3 (10 lines each above level 3)
 * and 20 lines per level-3 assembly to 2,000 distinct purchased parts, round-robin (a part is on 10 boards):
 * 10 + 100 + 1,000 + 20,000 = 21,110 lines. The 3,111 components are written as createComponents writes
 * them (BatchWriteItem, seedComponents 'batch'), the BOM items straight to the table: a read does not
 * look at where-used entries, so none are written.
 *
 * Measured: every page of PAGE_LINES lines with `link { childId quantity child { id name cpn } }` (the
 * cursors of every page found by one walk first), one call after the other, cycling through the pages:
 * p50/p95 and DynamoDB requests and RCU per page, each page within PAGE_BUDGET; then the whole walk, page
 * after page from the top, WALK_RUNS times: its total requests, RCU and time (p50 of the runs).
 */
export const INDENTED_SHAPE = { assemblies: [10, 100, 1_000], linesPerAssembly: 10, partsPerBoard: 20, parts: 2_000 };
export const INDENTED_LINES = 10 + 100 + 1_000 + 20_000;
export const PAGE_LINES = 500;
const WALK_RUNS = 5;

/**
 * A page: the context (1 request, 2 RCU with UUID headers) and the component (1 request) + the cursor's
 * path (1 BatchGetItem: the levels it crosses) + rounds of at most 100 BOM keys (at least 5 for 500 lines,
 * one more per level a page enters, and the lookahead a page may not need: 10 here) + the lines'
 * components (5 BatchGetItems of 100): 2 + 1 + 10 + 5 = 18, and 1 headroom. RCU: 0.5 per BOM item and per
 * component read (an absent BOM of a part costs nothing): at most 2 + 0.5 + 0.5 x (705 BOM keys + 500
 * components) = 605; 10 headroom.
 */
export const PAGE_BUDGET = { requests: 19, readCapacityUnits: 615, writeCapacityUnits: 0 };

export interface IndentedBomBench {
  lines: number;
  pageLines: number;
  pages: number;
  perPage: { calls: number; p50: number; p95: number; requests: { mean: number; max: number }; readCapacityUnits: { mean: number; max: number } };
  walk: { runs: number; p50Ms: number; requests: number; readCapacityUnits: number };
  budget: typeof PAGE_BUDGET;
  violations: string[];
}

interface Cost {
  requests: number;
  readCapacityUnits: number;
}

const query = `query ($id: ID!, $first: Int, $after: String) { component { findOne(id: $id) {
  indentedBom(first: $first, after: $after) { level rolledUpQuantity hasChildren cursor link { childId quantity child { id name cpn } } } } } }`;

async function page(baseUrl: string, headers: Record<string, string>, id: string, after: string | null): Promise<{ lines: { cursor: string; level: number }[]; cost: Cost; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables: { id, first: PAGE_LINES, after } }),
  });
  const body = (await response.json()) as { data?: { component: { findOne: { indentedBom: { cursor: string; level: number }[] } } }; errors?: unknown[] };
  const ms = performance.now() - started;
  if (response.status !== 200 || body.errors?.length || !body.data) throw new Error(`indentedBom page: HTTP ${response.status}: ${JSON.stringify(body.errors ?? body).slice(0, 1000)}`);
  const cost = JSON.parse(response.headers.get('x-plm-consumed-capacity') ?? '{}') as Cost;
  return { lines: body.data.component.findOne.indentedBom, cost, ms };
}

async function seedBom(store: Store): Promise<{ headers: Record<string, string>; topId: string }> {
  const slug = `bench-bom-${Date.now()}`;
  const tenant = await bootstrapTenant(store, { orgName: 'Indented BOM bench', orgSlug: slug, libraryName: 'Main', librarySlug: 'main', email: `${slug}@bench.test` });
  const assemblies = 1 + INDENTED_SHAPE.assemblies.reduce((a, b) => a + b, 0);
  const components = await seedComponents(store, tenant, assemblies + INDENTED_SHAPE.parts, { write: 'batch' });
  const ids = components.map((c) => c.id);
  const levels: string[][] = [];
  let next = 0;
  for (const size of [1, ...INDENTED_SHAPE.assemblies]) {
    levels.push(ids.slice(next, next + size));
    next += size;
  }
  const parts = ids.slice(next);
  const at = new Date().toISOString();
  const line = (childId: string, n: number): BomLine => ({
    lineId: `${childId}:${n}:${Math.random().toString(36).slice(2)}`,
    childId,
    quantity: [1, 2, 0.5, 4, 10][n % 5]!,
    refDes: `R${n + 1}`,
    itemNumber: String(n + 1),
    notes: null,
    childHistoryId: null,
    substitutes: [],
    createdByIntegrationId: null,
    createdAt: at,
    createdBy: tenant.user.id,
  });
  const items: Record<string, unknown>[] = [];
  let lines = 0;
  let part = 0;
  for (const [level, assemblyIds] of levels.entries()) {
    for (const [index, assemblyId] of assemblyIds.entries()) {
      const bomLines =
        level < levels.length - 1
          ? Array.from({ length: INDENTED_SHAPE.linesPerAssembly }, (_, n) => line(levels[level + 1]![index * INDENTED_SHAPE.linesPerAssembly + n]!, n))
          : Array.from({ length: INDENTED_SHAPE.partsPerBoard }, (_, n) => line(parts[part++ % parts.length]!, n));
      lines += bomLines.length;
      items.push(
        bomItem(tenant.organization.id, tenant.library.id, {
          assemblyId,
          bomVersion: 1,
          lines: bomLines,
          childIds: [...new Set(bomLines.map((l) => l.childId))],
          updatedAt: at,
          updatedBy: tenant.user.id,
          writeId: null,
        }),
      );
    }
  }
  if (lines !== INDENTED_LINES) throw new Error(`indented BOM seed: ${lines} lines, expected ${INDENTED_LINES}`);
  await putItemsInParallel(store, items, 4);
  return { headers: { 'x-api-key': tenant.apiKey, 'x-organization': tenant.organization.id, 'x-library': tenant.library.id }, topId: levels[0]![0]! };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
};
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** Seeds the BOM, walks it once for the cursors, then measures `calls` pages and WALK_RUNS whole walks. */
export async function measureIndentedBom(store: Store, baseUrl: string, calls: number): Promise<IndentedBomBench> {
  const { headers, topId } = await seedBom(store);
  // The cursor before each page (null: the first), from one walk.
  const cursors: (string | null)[] = [null];
  for (;;) {
    const { lines } = await page(baseUrl, headers, topId, cursors.at(-1)!);
    if (lines.length < PAGE_LINES) break;
    cursors.push(lines.at(-1)!.cursor);
  }
  const latencies: number[] = [];
  const costs: Cost[] = [];
  for (let call = 0; call < calls; call += 1) {
    const { ms, cost, lines } = await page(baseUrl, headers, topId, cursors[call % cursors.length]!);
    if (lines.length === 0) throw new Error('indentedBom page: an empty page');
    latencies.push(ms);
    costs.push(cost);
  }
  const walks: { ms: number; requests: number; readCapacityUnits: number }[] = [];
  for (let run = 0; run < WALK_RUNS; run += 1) {
    const started = performance.now();
    let after: string | null = null;
    let lines = 0;
    let requests = 0;
    let readCapacityUnits = 0;
    for (;;) {
      const read = await page(baseUrl, headers, topId, after);
      lines += read.lines.length;
      requests += read.cost.requests;
      readCapacityUnits += read.cost.readCapacityUnits;
      if (read.lines.length < PAGE_LINES) break;
      after = read.lines.at(-1)!.cursor;
    }
    if (lines !== INDENTED_LINES) throw new Error(`indentedBom walk: ${lines} lines, expected ${INDENTED_LINES}`);
    walks.push({ ms: performance.now() - started, requests, readCapacityUnits });
  }
  const requests = costs.map((c) => c.requests);
  const units = costs.map((c) => c.readCapacityUnits);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const violations: string[] = [];
  if (Math.max(...requests) > PAGE_BUDGET.requests) violations.push(`${Math.max(...requests)} DynamoDB requests > budget ${PAGE_BUDGET.requests}`);
  if (Math.max(...units) > PAGE_BUDGET.readCapacityUnits) violations.push(`${Math.max(...units)} RCU > budget ${PAGE_BUDGET.readCapacityUnits}`);
  return {
    lines: INDENTED_LINES,
    pageLines: PAGE_LINES,
    pages: cursors.length,
    perPage: {
      calls,
      p50: round(percentile(latencies, 50), 2),
      p95: round(percentile(latencies, 95), 2),
      requests: { mean: round(mean(requests)), max: Math.max(...requests) },
      readCapacityUnits: { mean: round(mean(units)), max: Math.max(...units) },
    },
    walk: {
      runs: WALK_RUNS,
      p50Ms: round(
        percentile(
          walks.map((w) => w.ms),
          50,
        ),
        0,
      ),
      requests: walks[0]!.requests,
      readCapacityUnits: walks[0]!.readCapacityUnits,
    },
    budget: PAGE_BUDGET,
    violations,
  };
}

export function renderIndentedBom(result: IndentedBomBench): string {
  const { perPage, walk } = result;
  return [
    `  one page of ${result.pageLines} lines (${perPage.calls} calls over the ${result.pages} pages): p50 ${perPage.p50} ms, p95 ${perPage.p95} ms, ` +
      `${perPage.requests.mean} requests (max ${perPage.requests.max}), ${perPage.readCapacityUnits.mean} RCU (max ${perPage.readCapacityUnits.max}); ` +
      `budget ${result.budget.requests} / ${result.budget.readCapacityUnits}: ${result.violations.length ? `OVER (${result.violations.join('; ')})` : 'ok'}`,
    `  the whole BOM, ${result.pages} pages from the top (${walk.runs} runs): p50 ${walk.p50Ms} ms, ${walk.requests} requests, ${round(walk.readCapacityUnits)} RCU`,
  ].join('\n');
}
