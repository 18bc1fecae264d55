import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { systemRoles } from '../../lib/access/roles.js';
import { audited } from '../../lib/audit/operations.js';
import { createComment } from '../../lib/comments/service.js';
import { OutboxMailer } from '../../lib/mail/mailer.js';
import { notifyChanges } from '../../lib/notifications/fanout.js';
import { watch } from '../../lib/notifications/service.js';
import type { BootstrapResult } from '../../lib/orgs/bootstrap.js';
import { addMember } from '../../lib/orgs/operator.js';
import { sealAuditChain } from '../../lib/store/audit.js';
import type { Store } from '../../lib/store/client.js';
import { componentKey, getComponent } from '../../lib/store/component.js';
import { newMeter, withMeter, type CapacityMeter } from '../../lib/store/meter.js';
import { putWatch } from '../../lib/store/watch.js';

/**
 * The audit log's cost and the notification fan-out's throughput, in process against the bench stack's
 * DynamoDB Local (what the GraphQL handler and the stream handler run, without HTTP around them).
 *
 * Audit entry per mutation: the same mutation called `iterations` times without an audit operation and
 * `iterations` times inside one (`audited`, as every GraphQL mutation runs), interleaved call by call:
 * `comments.create` (a transaction: the entry rides in it as one more item) and `watch` (a single PutItem:
 * the entry is written on its own after it). The difference is the entry's cost. Then the sealing of the
 * entries written (the stream handler's `sealAuditChain`), per entry.
 *
 * Fan-out: `watchers` members of the organization watch one component; `events` component.updated events
 * (one stream record each, the actor not among the watchers) go through `notifyChanges`, the stream
 * handler's notification step, `batch` records a call (default 1: one event after the other). It reports events and notifications per second and
 * checks that every watcher got one notification and one mail per event (none dropped).
 */

export interface AuditCostRow {
  name: string;
  calls: number;
  requests: number;
  writeCapacityUnits: number;
  readCapacityUnits: number;
  p50Ms: number;
  p95Ms: number;
}

export interface FanoutResult {
  watchers: number;
  events: number;
  batch: number;
  notifications: number;
  mails: number;
  expected: number;
  seconds: number;
  eventsPerSecond: number;
  notificationsPerSecond: number;
  dropped: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const total = (meter: CapacityMeter) => ({
  requests: meter.requests + (meter.audit?.requests ?? 0),
  readCapacityUnits: meter.readCapacityUnits + (meter.audit?.readCapacityUnits ?? 0),
  writeCapacityUnits: meter.writeCapacityUnits + (meter.audit?.writeCapacityUnits ?? 0),
});

class Series {
  readonly meters: ReturnType<typeof total>[] = [];
  readonly ms: number[] = [];
  constructor(readonly name: string) {}
  async call(fn: () => Promise<unknown>) {
    const meter = newMeter();
    const started = performance.now();
    await withMeter(meter, fn);
    this.ms.push(performance.now() - started);
    this.meters.push(total(meter));
  }
  row(): AuditCostRow {
    const avg = (pick: (m: ReturnType<typeof total>) => number) => Number((this.meters.reduce((sum, m) => sum + pick(m), 0) / this.meters.length).toFixed(2));
    return {
      name: this.name,
      calls: this.meters.length,
      requests: avg((m) => m.requests),
      readCapacityUnits: avg((m) => m.readCapacityUnits),
      writeCapacityUnits: avg((m) => m.writeCapacityUnits),
      p50Ms: Number(percentile(this.ms, 50).toFixed(1)),
      p95Ms: Number(percentile(this.ms, 95).toFixed(1)),
    };
  }
}

export async function measureAuditCost(store: Store, tenant: BootstrapResult, componentId: string, iterations: number): Promise<AuditCostRow[]> {
  const scope = { organizationId: tenant.organization.id, libraryId: tenant.library.id, userId: tenant.user.id };
  const deps = { store, scope, permissions: systemRoles.SITE_ADMIN.permissions };
  const actor = { type: 'user' as const, id: tenant.user.id, userId: tenant.user.id };
  const asMutation = <T>(operation: string, fn: () => Promise<T>) => audited(store, { organizationId: scope.organizationId, actor, operation, targets: [componentId] }, () => fn());
  const series = {
    comment: new Series('comments.create, no audit entry'),
    commentAudited: new Series('comments.create + its entry (in the transaction)'),
    watch: new Series('watch, no audit entry'),
    watchAudited: new Series('watch + its entry (a PutItem of its own)'),
  };
  const comment = () => createComment(deps, { targetId: componentId, body: 'Bench comment' });
  const watchIt = () => watch(deps, { targetId: componentId });
  for (let i = 0; i < iterations; i++) {
    // Alternating order, so that the machine's load weighs on both alike.
    const pairs: [Series, () => Promise<unknown>][] = [
      [series.comment, comment],
      [series.commentAudited, () => asMutation('comments.create', comment)],
      [series.watch, watchIt],
      [series.watchAudited, () => asMutation('watch', watchIt)],
    ];
    for (const [s, fn] of i % 2 ? pairs.reverse() : pairs) await s.call(fn);
  }
  const rows = Object.values(series).map((s) => s.row());
  // Sealing the 2 x iterations entries just written into the organization's chain (the stream handler's work).
  const sealMeter = newMeter();
  const started = performance.now();
  const sealed = await withMeter(sealMeter, () => sealAuditChain(store, `ORG#${scope.organizationId}#AUDIT`));
  const ms = performance.now() - started;
  if (sealed > 0) {
    const per = (value: number) => Number((value / sealed).toFixed(2));
    rows.push({
      name: `sealing, per entry (${sealed} sealed)`,
      calls: sealed,
      requests: per(sealMeter.requests),
      readCapacityUnits: per(sealMeter.readCapacityUnits),
      writeCapacityUnits: per(sealMeter.writeCapacityUnits),
      p50Ms: Number((ms / sealed).toFixed(2)),
      p95Ms: Number((ms / sealed).toFixed(2)),
    });
  }
  return rows;
}

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export async function measureFanout(store: Store, tenant: BootstrapResult, componentId: string, watchers: number, events: number, batch = 1): Promise<FanoutResult> {
  const { id: organizationId, slug } = tenant.organization;
  const libraryId = tenant.library.id;
  const run = randomUUID().slice(0, 8);
  const userIds: string[] = [];
  await eachLimited(
    Array.from({ length: watchers }, (_, i) => i),
    16,
    async (i) => {
      const added = await addMember(store, { orgSlug: slug, email: `watcher-${run}-${i}@bench.test`, role: 'VIEWER' });
      userIds.push(added.user.id);
      await putWatch(store, {
        userId: added.user.id,
        organizationId,
        libraryId,
        targetType: 'COMPONENT',
        targetId: componentId,
        withChildren: false,
        active: true,
        automatic: false,
        createdAt: new Date().toISOString(),
      });
    },
  );
  const component = await getComponent(store, organizationId, libraryId, componentId);
  if (!component) throw new Error('fan-out bench: the component is gone');
  const image = { ...componentKey(organizationId, libraryId, componentId), entity: 'Component', ...component };
  const mailer = new OutboxMailer();
  const deps = { store, mailer, appUrl: 'http://localhost' };
  let notifications = 0;
  const started = performance.now();
  for (let first = 0; first < events; first += batch) {
    const changes = Array.from({ length: Math.min(batch, events - first) }, (_, i) => {
      const e = first + i;
      const at = new Date().toISOString();
      return {
        eventId: randomUUID(),
        kind: 'MODIFY' as const,
        at,
        oldImage: { ...image, version: component.version + e },
        newImage: { ...image, version: component.version + e + 1, updatedAt: at },
      };
    });
    notifications += await notifyChanges(deps, changes);
  }
  const seconds = (performance.now() - started) / 1000;
  const expected = watchers * events;
  return {
    watchers,
    events,
    batch,
    notifications,
    mails: mailer.sent.length,
    expected,
    seconds: Number(seconds.toFixed(2)),
    eventsPerSecond: Number((events / seconds).toFixed(2)),
    notificationsPerSecond: Math.round(notifications / seconds),
    dropped: expected - Math.min(notifications, mailer.sent.length),
  };
}

export function renderAuditCost(rows: AuditCostRow[]): string {
  const header = ['operation', 'calls', 'requests', 'RCU', 'WCU', 'p50 ms', 'p95 ms'];
  const cells = rows.map((r) => [r.name, String(r.calls), String(r.requests), String(r.readCapacityUnits), String(r.writeCapacityUnits), String(r.p50Ms), String(r.p95Ms)]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const diff = (base: string, withEntry: string) => {
    const a = rows.find((r) => r.name.startsWith(base) && r.name.includes('no audit'));
    const b = rows.find((r) => r.name.startsWith(base) && r.name.includes('+ its entry'));
    return a && b
      ? `  the entry adds to ${base}: ${(b.requests - a.requests).toFixed(2)} requests, ${(b.writeCapacityUnits - a.writeCapacityUnits).toFixed(2)} WCU, ${(b.p50Ms - a.p50Ms).toFixed(1)} ms p50 (${withEntry})`
      : '';
  };
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line), diff('comments.create', 'one more item in its transaction'), diff('watch', 'a PutItem after it')]
    .filter(Boolean)
    .join('\n');
}

export function renderFanout(result: FanoutResult): string {
  return [
    `  ${result.events} component.updated events x ${result.watchers} watchers, ${result.batch} event(s) per stream batch: ${result.notifications} notifications and ${result.mails} mails written (expected ${result.expected} each; dropped ${result.dropped})`,
    `  ${result.seconds} s: ${result.eventsPerSecond} events/s fanned out, ${result.notificationsPerSecond} notifications/s`,
  ].join('\n');
}
