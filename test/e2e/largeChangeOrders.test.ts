import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanupAbandonedWrites } from '../../lib/items/cleanup.js';
import { getComponents, type ComponentRecord } from '../../lib/store/component.js';
import { getPendingWrites, listPendingWrites } from '../../lib/store/pendingWrite.js';
import { graphql, newTenant, ok, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { historyOf } from '../support/history.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
import { createComponents, findOne, libraryPartition, partitionItems } from './componentHelpers.js';
import { seedComponents } from './searchHelpers.js';

/**
 * Issue 23, item 7: change orders of up to 1,000 components, released all or nothing through the commit
 * record of large writes (lib/changeOrders/release.ts, lib/items/settle.ts), and the change requests
 * promoted into an order closed by its release even when the process dies right after the commit.
 * An approval that releases more than 98 components answers at the commit; the jobs function settles the
 * release from the table's stream (marks put in place, history made plain, search entries): the tests read
 * settled state only after `settled()` saw every commit record of the library settled.
 *
 * Runtime: the 1,000 components are built once (in process, batch writes) and shared. The crash and
 * release test needs all 1,000 in one order; the race and the withdrawal use orders of 150 of them, above
 * the large thresholds (98: locks taken and let go outside the order's transaction, components marked
 * before the commit, the release settled from the stream), so they exercise the same large path.
 */

/** Components of the race and withdrawal orders: over every large threshold (98), far below 1,000. */
const largePathSize = 150;

const orderFields = 'id number status resolution';
const create = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${orderFields} } } }`;
const update = `mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { ${orderFields} } } }`;
const action = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { ${orderFields} } } }`;
const countOrders = `query { changeOrders { get { totalCount } } }`;

describe('large change orders', () => {
  let tenant: Tenant;
  let alice: Member;
  let bob: Member;
  let carol: Member;
  let parts: ComponentRecord[];

  const store = () => testStore();
  const scope = () => [tenant.organization.id, tenant.library.id] as const;
  /** Every component as readers see it (the store's reads, which every query goes through), strongly consistent. */
  const readAll = async (of = parts) => [
    ...(
      await getComponents(
        store(),
        ...scope(),
        of.map((p) => p.id),
        true,
      )
    ).values(),
  ];
  const ids = () => new Set(parts.map((p) => p.id));
  /**
   * Waits (bounded) until every commit record of the library is settled: a large release is settled from
   * the table's stream after its approval answered.
   */
  async function settled(): Promise<void> {
    for (let attempt = 0; attempt < 600; attempt += 1) {
      if ((await listPendingWrites(store(), ...scope())).length === 0) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error('the release was not settled from the stream within 5 minutes');
  }
  /** The RELEASE history records of the parts in the table, per component. */
  async function releaseRecords(): Promise<Map<string, number>> {
    const mine = ids();
    const counts = new Map<string, number>();
    for (const item of await partitionItems(libraryPartition(tenant), ['H#'])) {
      if (item.action !== 'RELEASE' || !mine.has(item.componentId as string)) continue;
      counts.set(item.componentId as string, (counts.get(item.componentId as string) ?? 0) + 1);
    }
    return counts;
  }
  const marked = async () => (await partitionItems(libraryPartition(tenant), ['C#'])).filter((item) => ids().has(item.id as string) && item.pendingRelease);

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    [alice, bob, carol] = await Promise.all([memberWithRole(tenant, 'EDITOR'), memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'REVIEWER')]);
    // 1,000 components, the items component.create would write (chosen CPNs, batch writes, in process), shared by every test.
    parts = await seedComponents(store(), tenant, 1000, { input: (n) => ({ cpn: `200-${60_000 + n}`, name: `large ${n}`, categoryId: 'mechanical' }), write: 'batch', concurrency: 8 });
    expect(parts).toHaveLength(1000);
  }, 300_000);

  const draft = async (componentIds: string[]) =>
    (
      await ok(alice.headers, create, {
        input: {
          name: 'Obsolete the resistor family',
          templateId: 'default-one-stage',
          componentIds,
          values: { reason: 'End of life' },
          stages: [{ index: 0, reviewerIds: [bob.userId, carol.userId], approvalType: 'Minimum', minReviewers: 1 }],
        },
      })
    ).changeOrders.create;

  it('refuses bad input with a clear code and writes nothing', async () => {
    const before = (await ok(alice.headers, countOrders)).changeOrders.get.totalCount;
    const over = await refusal(alice.headers, create, {
      input: { name: 'too big', templateId: 'default-one-stage', componentIds: [...parts.map((p) => p.id), randomUUID()], values: { reason: 'x' } },
    });
    expect(over.code).toBe('CHANGE_ORDER_TOO_LARGE');
    expect(over.error!.extensions).toMatchObject({ limit: 1000 });
    const unknown = randomUUID();
    const missing = await refusal(alice.headers, create, {
      input: { name: 'unknown', templateId: 'default-one-stage', componentIds: [...parts.slice(0, 500).map((p) => p.id), unknown], values: { reason: 'x' } },
    });
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.error!.message).toContain(unknown);
    expect((await ok(alice.headers, countOrders)).changeOrders.get.totalCount).toBe(before);
    // No index entry of the refused orders either.
    const uses = await partitionItems(libraryPartition(tenant), ['COUSE#']);
    expect(uses.filter((item) => ids().has(item.componentId as string))).toEqual([]);
    // An update past the limit is refused the same way.
    const small = await draft([parts[0]!.id]);
    const tooMany = await refusal(alice.headers, update, { input: { id: small.id, componentIds: [...parts.map((p) => p.id), randomUUID()] } });
    expect(tooMany.code).toBe('CHANGE_ORDER_TOO_LARGE');
    await ok(alice.headers, 'mutation($id: ID!) { changeOrders { delete(id: $id) } }', { id: small.id });
  }, 120_000);

  it('releases 1,000 components all or nothing: a crash mid-release leaves none released once cleanup ran; the release then lands once', async () => {
    const co = await draft(parts.map((p) => p.id));
    expect(co.status).toBe('DRAFT');
    expect((await ok(alice.headers, action('submit'), { id: co.id })).changeOrders.submit.status).toBe('OPEN');
    // Every component is held by the order (locked in chunks before the submit committed).
    expect((await readAll()).every((c) => c.lockedBy === co.id)).toBe(true);

    // The approval's process dies after marking half the components: the marks are there, invisible.
    const crashed = await graphql(action('approve'), { id: co.id }, { ...bob.headers, 'x-plm-fault': 'change-order-release-crash' });
    expect(crashed.body.errors?.length).toBeGreaterThan(0);
    const left = await marked();
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(1000);
    const readers = await readAll();
    expect(readers.filter((c) => c.state === 'RELEASED' || c.revisionValue !== 'A')).toEqual([]);
    expect(await findOne(tenant, left[0]!.id as string)).toMatchObject({ state: 'MODIFIED', revisionValue: 'A' });

    // The cleanup undoes it: no mark, no RELEASE history, every component as it was and still held.
    const cleaned = await cleanupAbandonedWrites(store(), ...scope(), 0);
    expect(cleaned.aborted).toBe(1);
    expect(await marked()).toEqual([]);
    expect((await releaseRecords()).size).toBe(0);
    const after = await readAll();
    const versions = new Map(parts.map((p) => [p.id, p.version]));
    expect(after.filter((c) => c.state !== 'MODIFIED' || c.revisionValue !== 'A' || c.version !== versions.get(c.id) || c.lockedBy !== co.id)).toEqual([]);
    expect((await ok(alice.headers, `query { changeOrders { get(filter: { search: "${co.number}" }) { nodes { status stages { decisions { userId } } } } } }`)).changeOrders.get.nodes).toEqual([
      { status: 'OPEN', stages: [{ decisions: [] }] },
    ]);

    // Without the fault the same approval releases all 1,000, each exactly once.
    // The approval answers at the commit: readers see all 1,000 released through the committed record.
    const released = (await ok(bob.headers, action('approve'), { id: co.id })).changeOrders.approve;
    expect(released).toMatchObject({ status: 'CLOSED', resolution: 'APPROVED' });
    const now = await readAll();
    expect(now.filter((c) => c.state !== 'RELEASED' || c.revisionValue !== 'B' || c.version !== versions.get(c.id)! + 1 || c.lockedBy !== null)).toEqual([]);
    expect((await historyOf(tenant, parts[999]!.id)).map((h) => h.action)).toEqual(['RELEASE', 'CREATE']);
    // Its commit record is left to the stream; the jobs function settles it (nothing else here does: no cleanup runs).
    const streamed = (await partitionItems(libraryPartition(tenant), ['WRITE#'])).filter((item) => item.status === 'COMMITTED' && item.settleOn === 'STREAM');
    expect(streamed).toHaveLength(1);
    const write = streamed[0]!;
    await settled();
    expect((await getPendingWrites(store(), ...scope(), [write.writeId as string])).get(write.writeId as string)?.settledAt).toEqual(expect.any(String));
    expect(await marked()).toEqual([]);
    const records = await releaseRecords();
    expect(records.size).toBe(1000);
    expect([...records.values()].every((n) => n === 1)).toBe(true);
    const history = (await partitionItems(libraryPartition(tenant), ['H#'])).filter((item) => item.action === 'RELEASE');
    expect(history.filter((item) => item.writeId)).toEqual([]);
    // Search agrees (the entries are written when the release settles).
    const search = await ok(alice.headers, `query { component { filter(input: { and: [{ name: { contains: "large " } }, { state: { eq: RELEASED } }] }) { totalCount } } }`);
    expect(search.component.filter.totalCount).toBe(1000);
  }, 600_000);

  // 150 components (over every large threshold: the same protocol as 1,000, marks and all) keep this test short.
  it(`two approvals racing on a large (${largePathSize}-component) order release it once`, async () => {
    const mine = parts.slice(0, largePathSize);
    const co = await draft(mine.map((p) => p.id));
    await ok(alice.headers, action('submit'), { id: co.id });
    const before = new Map((await readAll(mine)).map((c) => [c.id, c.version]));
    const beforeRevision = new Map((await readAll(mine)).map((c) => [c.id, c.revisionValue]));
    const both = await Promise.all([bob, carol].map((who) => graphql(action('approve'), { id: co.id }, who.headers)));
    const succeeded = both.filter((r) => !r.body.errors);
    expect(succeeded).toHaveLength(1);
    expect(both.find((r) => r.body.errors)!.body.errors![0]!.extensions!.code).toBe('CHANGE_ORDER_STATE');
    const now = await readAll(mine);
    expect(now.filter((c) => c.state !== 'RELEASED' || c.revisionValue === beforeRevision.get(c.id) || c.version !== before.get(c.id)! + 1)).toEqual([]);
    await settled();
    // One RELEASE record more for each of the order's components (the earlier test released all 1,000 once).
    const records = await releaseRecords();
    const inOrder = new Set(mine.map((p) => p.id));
    expect([...records].filter(([id, n]) => n !== (inOrder.has(id) ? 2 : 1))).toEqual([]);
    expect(await marked()).toEqual([]);
  }, 300_000);

  it(`withdraws a large (${largePathSize}-component) order: every lock is let go`, async () => {
    const mine = parts.slice(largePathSize, 2 * largePathSize);
    const co = await draft(mine.map((p) => p.id));
    await ok(alice.headers, action('submit'), { id: co.id });
    expect((await readAll(mine)).filter((c) => c.lockedBy !== co.id)).toEqual([]);
    expect((await ok(alice.headers, action('withdraw'), { id: co.id })).changeOrders.withdraw.resolution).toBe('WITHDRAWN');
    expect((await readAll(mine)).filter((c) => c.lockedBy !== null)).toEqual([]);
  }, 300_000);

  it(`settles a large (${largePathSize}-component) release from the stream even when the approving process dies right after the commit: its promoted change request closes without cleanup`, async () => {
    const admin = tenantHeaders(tenant);
    const mine = parts.slice(2 * largePathSize, 3 * largePathSize);
    const requestFields = 'id status history { action status comment }';
    const request = (
      await ok(admin, `mutation($input: CreateChangeRequestInput!) { changeRequests { create(input: $input) { ${requestFields} } } }`, {
        input: { title: 'Family end of life', componentIds: mine.map((p) => p.id) },
      })
    ).changeRequests.create;
    await ok(admin, `mutation($id: ID!) { changeRequests { submit(id: $id) { id } } }`, { id: request.id });
    await ok(bob.headers, `mutation($id: ID!) { changeRequests { approve(id: $id) { id } } }`, { id: request.id });
    const order = (
      await ok(admin, `mutation($ids: [ID!]!, $input: PromoteChangeRequestsInput) { changeRequests { promote(ids: $ids, input: $input) { id number } } }`, {
        ids: [request.id],
        input: { values: { reason: 'End of life' } },
      })
    ).changeRequests.promote;
    await ok(admin, update, { input: { id: order.id, stages: [{ index: 0, reviewerIds: [bob.userId] }] } });
    await ok(admin, action('submit'), { id: order.id });
    const versions = new Map((await readAll(mine)).map((c) => [c.id, c.version]));

    // The release commits, then the approving process dies before it answers: the commit alone is enough.
    const crashed = await graphql(action('approve'), { id: order.id }, { ...bob.headers, 'x-plm-fault': 'change-order-crash-after-commit' });
    expect(crashed.body.errors?.length).toBeGreaterThan(0);
    expect((await readAll(mine)).filter((c) => c.state !== 'RELEASED' || c.version !== versions.get(c.id)! + 1 || c.lockedBy !== null)).toEqual([]);

    // The jobs function, fed the commit by the stream, settles it: the request closes, once; cleanup then finds nothing to do.
    await settled();
    const getRequest = async () => (await ok(admin, `query($id: ID!) { changeRequests { get(id: $id) { ${requestFields} } } }`, { id: request.id })).changeRequests.get;
    const closed = await getRequest();
    expect(closed.status).toBe('CLOSED');
    expect(closed.history.filter((h: { action: string }) => h.action === 'CLOSE')).toEqual([{ action: 'CLOSE', status: 'CLOSED', comment: order.number }]);
    expect(await marked()).toEqual([]);
    expect(await cleanupAbandonedWrites(store(), ...scope(), 0)).toEqual({ aborted: 0, settled: 0 });
    expect((await getRequest()).history.filter((h: { action: string }) => h.action === 'CLOSE')).toHaveLength(1);
  }, 300_000);
});

describe('change requests promoted into an order', () => {
  it('close when the release commits, even when the process dies right after the commit (cleanup closes them)', async () => {
    const tenant = await newTenant({ plan: 'team' });
    const admin = tenantHeaders(tenant);
    const reviewer = await memberWithRole(tenant, 'REVIEWER');
    const [p1, p2] = await createComponents(tenant, [
      { name: 'closing 1', categoryId: 'mechanical' },
      { name: 'closing 2', categoryId: 'mechanical' },
    ]);
    const requestFields = 'id number status history { action status comment }';
    const approvedRequest = async (title: string, componentIds: string[]) => {
      const request = (await ok(admin, `mutation($input: CreateChangeRequestInput!) { changeRequests { create(input: $input) { ${requestFields} } } }`, { input: { title, componentIds } }))
        .changeRequests.create;
      await ok(admin, `mutation($id: ID!) { changeRequests { submit(id: $id) { id } } }`, { id: request.id });
      await ok(reviewer.headers, `mutation($id: ID!) { changeRequests { approve(id: $id) { id } } }`, { id: request.id });
      return request;
    };
    const getRequest = async (id: string) => (await ok(admin, `query($id: ID!) { changeRequests { get(id: $id) { ${requestFields} } } }`, { id })).changeRequests.get;
    const first = await approvedRequest('Bolt strips', [p1!.id]);
    const second = await approvedRequest('Nut corrodes', [p2!.id]);
    const order = (
      await ok(admin, `mutation($ids: [ID!]!, $input: PromoteChangeRequestsInput) { changeRequests { promote(ids: $ids, input: $input) { id number } } }`, {
        ids: [first.id, second.id],
        input: { values: { reason: 'Field failures' } },
      })
    ).changeRequests.promote;
    await ok(admin, update, { input: { id: order.id, stages: [{ index: 0, reviewerIds: [reviewer.userId] }] } });
    await ok(admin, action('submit'), { id: order.id });

    // The release commits, then the process dies before anything after the commit ran.
    const crashed = await graphql(action('approve'), { id: order.id }, { ...reviewer.headers, 'x-plm-fault': 'change-order-crash-after-commit' });
    expect(crashed.body.errors?.length).toBeGreaterThan(0);
    const resolved = (await ok(admin, `query { changeOrders { get(filter: { search: "${order.number}" }) { nodes { status resolution } } } }`)).changeOrders.get.nodes;
    expect(resolved).toEqual([{ status: 'CLOSED', resolution: 'APPROVED' }]);
    expect(await findOne(tenant, p1!.id)).toMatchObject({ state: 'RELEASED', revisionValue: 'B' });
    expect((await getRequest(first.id)).status).toBe('APPROVED');

    // The commit record of the release names the requests: cleanup closes them, once.
    expect(await cleanupAbandonedWrites(testStore(), tenant.organization.id, tenant.library.id, 0)).toEqual({ aborted: 0, settled: 1 });
    for (const request of [first, second]) {
      const after = await getRequest(request.id);
      expect(after.status).toBe('CLOSED');
      expect(after.history.filter((h: { action: string }) => h.action === 'CLOSE')).toEqual([{ action: 'CLOSE', status: 'CLOSED', comment: order.number }]);
    }
    expect(await cleanupAbandonedWrites(testStore(), tenant.organization.id, tenant.library.id, 0)).toEqual({ aborted: 0, settled: 0 });
    expect((await getRequest(first.id)).history.filter((h: { action: string }) => h.action === 'CLOSE')).toHaveLength(1);
  }, 120_000);
});
