import { performance } from 'node:perf_hooks';
import { createChangeOrder, decide, submitChangeOrder } from '../../lib/changeOrders/actions.js';
import type { ChangeOrderDeps } from '../../lib/changeOrders/act.js';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { bootstrapTenant } from '../../lib/orgs/bootstrap.js';
import { plans } from '../../lib/orgs/plans.js';
import type { Store } from '../../lib/store/client.js';
import { getComponents, listComponents } from '../../lib/store/component.js';
import { newMeter, withMeter } from '../../lib/store/meter.js';
import { importLibrary } from '../../lib/transfer/import.js';
import { syntheticLibraryCsv } from '../../lib/transfer/synthetic.js';

export interface LargeReleaseResult {
  name: string;
  components: number;
  seconds: number;
  /** Null for a span that is no one unit of work (the approval until settled: the request, then the stream's lag, then the settling). */
  requests: number | null;
  readCapacityUnits: number | null;
  writeCapacityUnits: number | null;
}

/** The jobs function's log line of a settling (functions/jobs/handler.ts), as the local stack prints it. */
interface SettledLine {
  libraryId: string;
  settled: boolean;
  durationMs: number;
  dynamodb: { requests: number; readCapacityUnits: number; writeCapacityUnits: number };
}

/** Waits (bounded) for the jobs function's line that it settled a write of this library, in the stack's output. */
async function settledLine(stackOutput: () => string, libraryId: string): Promise<SettledLine> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    for (const line of stackOutput().split('\n')) {
      if (!line.includes('"committed write settled"') || !line.includes(libraryId)) continue;
      const parsed = JSON.parse(line.slice(line.indexOf('{'))) as SettledLine;
      if (parsed.libraryId === libraryId && parsed.settled) return parsed;
    }
    if (Date.now() > deadline) throw new Error('large release: not settled from the stream within 10 minutes');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A change order of `count` components (issue 23, item 7), in process against the local stack's table: a
 * library of `count` components loaded from generated CSV, one change order holding all of them, its
 * submit (the locks, in chunks before the commit) and its approval (the release: history records and marks
 * under a commit record, the commit; the approval returns there), each timed and metered (DynamoDB
 * requests, RCU, WCU, as the local server meters a request). Then the settling, which the local stack's
 * jobs function does when the table's stream hands it the commit (marks put in place, history made plain,
 * search entries): its own time and cost from the function's log line (`stackOutput`: the stack's output),
 * and the time from the approval's start until it settled. Checks every component reads RELEASED, without
 * a mark, once settled.
 */
export async function measureLargeRelease(store: Store, count: number, stackOutput: () => string): Promise<LargeReleaseResult[]> {
  const slug = `bench-release-${Date.now()}`;
  const tenant = await bootstrapTenant(store, { orgName: 'Release bench', orgSlug: slug, libraryName: 'Large', librarySlug: 'large', email: `${slug}@bench.test` });
  const options = { actor: { userId: tenant.user.id, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() }, entitlements: plans.enterprise };
  const scope = { organizationId: tenant.organization.id, libraryId: tenant.library.id, userId: tenant.user.id };
  const { componentsCsv, bomCsv } = syntheticLibraryCsv(count);
  await importLibrary(store, scope, { kind: 'csv', manifest: null, componentsCsv, bomCsv }, options);
  const ids = (await listComponents(store, scope.organizationId, scope.libraryId)).map((c) => c.id).slice(0, count);
  const deps: ChangeOrderDeps = { store };
  const results: LargeReleaseResult[] = [];
  const measured = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const meter = newMeter();
    const started = performance.now();
    const value = await withMeter(meter, fn);
    results.push({
      name,
      components: ids.length,
      seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
      requests: meter.requests,
      readCapacityUnits: Math.round(meter.readCapacityUnits * 10) / 10,
      writeCapacityUnits: Math.round(meter.writeCapacityUnits * 10) / 10,
    });
    return value;
  };
  const order = await measured('changeOrders.create', () =>
    createChangeOrder(deps, scope, {
      name: 'Bench: large release',
      templateId: 'default-one-stage',
      componentIds: ids,
      values: { reason: 'Benchmark' },
      stages: [{ index: 0, reviewerIds: [tenant.user.id], approvalType: 'Minimum', minReviewers: 1 }],
    }),
  );
  await measured('changeOrders.submit (locks)', () => submitChangeOrder(deps, scope, order.id));
  const approving = performance.now();
  const released = await measured('changeOrders.approve (request, to the commit)', () => decide(deps, scope, order.id, 'APPROVE', null));
  if (released.resolution !== 'APPROVED') throw new Error(`large release: the order is ${released.status}, not released`);
  // Not metered: reading 1,000 components here would put the marks in place itself (what a reader does), and cost the settling nothing.
  const settled = await settledLine(stackOutput, scope.libraryId);
  const untilSettled = (performance.now() - approving) / 1000;
  results.push({
    name: 'settling (jobs function, from the stream)',
    components: ids.length,
    seconds: Number((settled.durationMs / 1000).toFixed(2)),
    requests: settled.dynamodb.requests,
    readCapacityUnits: settled.dynamodb.readCapacityUnits,
    writeCapacityUnits: settled.dynamodb.writeCapacityUnits,
  });
  results.push({ name: 'approve → settled (end to end)', components: ids.length, seconds: Number(untilSettled.toFixed(2)), requests: null, readCapacityUnits: null, writeCapacityUnits: null });
  const after = await getComponents(store, scope.organizationId, scope.libraryId, ids, true);
  const notReleased = ids.filter((id) => after.get(id)?.state !== 'RELEASED' || after.get(id)?.pendingRelease);
  if (notReleased.length) throw new Error(`large release: ${notReleased.length} of ${ids.length} components are not RELEASED and settled`);
  return results;
}

export function renderLargeRelease(results: LargeReleaseResult[]): string {
  const header = ['step', 'components', 'seconds', 'requests', 'RCU', 'WCU'];
  const rows = results.map((r) => [
    r.name,
    String(r.components),
    r.seconds.toFixed(2),
    r.requests === null ? '–' : String(r.requests),
    r.readCapacityUnits === null ? '–' : r.readCapacityUnits.toFixed(1),
    r.writeCapacityUnits === null ? '–' : r.writeCapacityUnits.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  return [header, ...rows].map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}
