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
  requests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
}

/**
 * A change order of `count` components (issue 23, item 7), in process against the local stack's table: a
 * library of `count` components loaded from generated CSV, one change order holding all of them, its
 * submit (the locks, in chunks before the commit) and its approval (the release: history records and marks
 * under a commit record, the commit, then the marks put in place and the search entries written), each
 * timed and metered (DynamoDB requests, RCU, WCU, as the local server meters a request). Checks every
 * component reads RELEASED afterwards.
 */
export async function measureLargeRelease(store: Store, count: number): Promise<LargeReleaseResult[]> {
  const slug = `bench-release-${Date.now()}`;
  const tenant = await bootstrapTenant(store, { orgName: 'Release bench', orgSlug: slug, libraryName: 'Large', librarySlug: 'large', email: `${slug}@bench.test` });
  const options = { actor: { userId: tenant.user.id, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() }, entitlements: plans.enterprise };
  const scope = { organizationId: tenant.organization.id, libraryId: tenant.library.id, userId: tenant.user.id };
  const { componentsCsv, bomCsv } = syntheticLibraryCsv(count);
  await importLibrary(store, scope, { kind: 'csv', manifest: null, componentsCsv, bomCsv }, options);
  const ids = (await listComponents(store, scope.organizationId, scope.libraryId)).map((c) => c.id).slice(0, count);
  const deps: ChangeOrderDeps = { store, mailer: { send: async () => undefined }, appUrl: 'http://localhost' };
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
  const released = await measured('changeOrders.approve (the release)', () => decide(deps, scope, order.id, 'APPROVE', null));
  if (released.resolution !== 'APPROVED') throw new Error(`large release: the order is ${released.status}, not released`);
  const after = await getComponents(store, scope.organizationId, scope.libraryId, ids, true);
  const notReleased = ids.filter((id) => after.get(id)?.state !== 'RELEASED');
  if (notReleased.length) throw new Error(`large release: ${notReleased.length} of ${ids.length} components are not RELEASED`);
  return results;
}

export function renderLargeRelease(results: LargeReleaseResult[]): string {
  const header = ['step', 'components', 'seconds', 'requests', 'RCU', 'WCU'];
  const rows = results.map((r) => [r.name, String(r.components), r.seconds.toFixed(2), String(r.requests), r.readCapacityUnits.toFixed(1), r.writeCapacityUnits.toFixed(1)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  return [header, ...rows].map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}
