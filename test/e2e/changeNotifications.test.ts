import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, webhookReceiver } from '../support/webhooks.js';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, workflowMailAfter, type Member } from './accessHelpers.js';
import { createAssembly, createParts, updateItems } from './itemHelpers.js';

interface Payload {
  id: string;
  type: string;
  organizationId: string;
  libraryId: string;
  webhookId: string;
  data: any;
  verified: boolean;
}

/** A receiver that checks x-plm-signature with the secret it is given, answers 204 either way, and keeps every payload. */
function receiver() {
  let secret: string | undefined;
  const hook = webhookReceiver(
    () => 204,
    () => secret,
    { answerUnverified: 204 },
  );
  return {
    server: hook.server,
    url: hook.url,
    setSecret: (value: string) => (secret = value),
    get received(): Payload[] {
      return hook.received.map(({ body, verified }) => ({ ...(JSON.parse(body) as Omit<Payload, 'verified'>), verified }));
    },
  };
}

const requestEvents = ['CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_UPDATED', 'CHANGE_REQUEST_TRANSITIONED', 'CHANGE_REQUEST_PROMOTED'];
const createWebhook = 'mutation($input: CreateWebhookInput!) { webhooks { create(input: $input) { secret webhook { id events } } } }';
const createRequest = 'mutation($input: CreateChangeRequestInput!) { changeRequests { create(input: $input) { id number } } }';
const updateRequest = 'mutation($input: UpdateChangeRequestInput!) { changeRequests { update(input: $input) { id } } }';
const transition = (name: string) => `mutation($id: ID!, $comment: String) { changeRequests { ${name}(id: $id, comment: $comment) { id status } } }`;
const promote = 'mutation($ids: [ID!]!, $input: PromoteChangeRequestsInput) { changeRequests { promote(ids: $ids, input: $input) { id number } } }';
const orderAction = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { id status resolution } } }`;

describe('change request webhook events', () => {
  let tenant: Tenant;
  let other: Tenant;
  let admin: Record<string, string>;
  let reviewer: Member;
  const mine = receiver();
  const theirs = receiver();

  beforeAll(async () => {
    [tenant, other] = await Promise.all([newTenant({ plan: 'team' }), newTenant({ plan: 'team' })]);
    admin = tenantHeaders(tenant);
    reviewer = await memberWithRole(tenant, 'REVIEWER');
  });
  afterAll(() => {
    mine.server.close();
    theirs.server.close();
  });

  it('delivers each transition of a change request with its payload to the library subscribed, and to no other organization', { timeout: 150_000 }, async () => {
    const created = (await ok(admin, createWebhook, { input: { url: await mine.url(), events: requestEvents } })).webhooks.create;
    mine.setSecret(created.secret);
    expect(created.webhook.events).toEqual(requestEvents);
    const elsewhere = (await ok(tenantHeaders(other), createWebhook, { input: { url: await theirs.url(), events: requestEvents } })).webhooks.create;
    theirs.setSecret(elsewhere.secret);

    const [p1, p2] = await createParts(tenant, ['CR hook p1', 'CR hook p2']);
    const request = (await ok(admin, createRequest, { input: { title: 'Bracket cracks', priority: 'HIGH', componentIds: [p1!.id] } })).changeRequests.create;
    await ok(admin, updateRequest, { input: { id: request.id, title: 'Bracket cracks under load', componentIds: [p1!.id, p2!.id] } });
    await ok(admin, transition('submit'), { id: request.id });
    await ok(reviewer.headers, transition('approve'), { id: request.id, comment: 'Seen it too' });
    const order = (await ok(admin, promote, { ids: [request.id], input: { values: { reason: 'Field failures' } } })).changeRequests.promote;
    await ok(admin, 'mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { id } } }', {
      input: { id: order.id, stages: [{ index: 0, reviewerIds: [reviewer.userId] }] },
    });
    await ok(admin, orderAction('submit'), { id: order.id });
    expect((await ok(reviewer.headers, orderAction('approve'), { id: order.id })).changeOrders.approve.resolution).toBe('APPROVED');
    // Two more requests: reject, defer and close by hand.
    const rejected = (await ok(admin, createRequest, { input: { title: 'Rejected one' } })).changeRequests.create;
    await ok(admin, transition('submit'), { id: rejected.id });
    await ok(reviewer.headers, transition('reject'), { id: rejected.id, comment: 'Works as designed' });
    const deferred = (await ok(admin, createRequest, { input: { title: 'Deferred one' } })).changeRequests.create;
    await ok(admin, transition('submit'), { id: deferred.id });
    await ok(reviewer.headers, transition('defer'), { id: deferred.id });
    await ok(admin, transition('close'), { id: deferred.id });
    // The other organization's own request: its webhook gets that one, and nothing of this library.
    const theirRequest = (await ok(tenantHeaders(other), createRequest, { input: { title: 'Theirs' } })).changeRequests.create;

    const ofRequest = (id: string) => mine.received.filter((p) => p.data.changeRequest?.id === id);
    const all = await eventually(
      () => mine.received,
      (list) =>
        list.filter((p) => p.data.changeRequest?.id === request.id).length >= 6 &&
        list.filter((p) => p.data.changeRequest?.id === deferred.id).length >= 4 &&
        list.some((p) => p.data.changeRequest?.id === rejected.id && p.data.to?.status === 'REJECTED'),
      'the change request events',
    );
    expect(all.every((p) => p.verified && p.organizationId === tenant.organization.id && p.libraryId === tenant.library.id && p.webhookId === created.webhook.id)).toBe(true);
    // Once each (delivery is per stream record; the receiver answered 2xx at once).
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);

    const events = ofRequest(request.id);
    expect(events.map((p) => [p.type, p.data.from?.status ?? null, p.data.to?.status ?? null])).toEqual([
      ['change_request.created', null, null],
      ['change_request.updated', null, null],
      ['change_request.transitioned', 'DRAFT', 'SUBMITTED'],
      ['change_request.transitioned', 'SUBMITTED', 'APPROVED'],
      ['change_request.promoted', null, null],
      ['change_request.transitioned', 'APPROVED', 'CLOSED'],
    ]);
    const [create, update, submit, approve, promoted, closed] = events as [Payload, Payload, Payload, Payload, Payload, Payload];
    expect(create.data).toEqual({
      changeRequest: {
        id: request.id,
        number: request.number,
        title: 'Bracket cracks',
        priority: 'HIGH',
        status: 'DRAFT',
        componentIds: [p1!.id],
        changeOrderId: null,
        updatedAt: expect.any(String),
      },
      by: tenant.user.id,
    });
    expect(update.data).toMatchObject({ changedFields: ['title', 'componentIds'], changeRequest: { title: 'Bracket cracks under load', componentIds: [p1!.id, p2!.id] }, by: tenant.user.id });
    expect(submit.data).toMatchObject({ action: 'submit', by: tenant.user.id, comment: null, changeRequest: { status: 'SUBMITTED' } });
    expect(approve.data).toMatchObject({ action: 'approve', by: reviewer.userId, comment: 'Seen it too', changeRequest: { status: 'APPROVED' } });
    expect(promoted.data).toMatchObject({ changeRequest: { status: 'APPROVED', changeOrderId: order.id }, changeOrder: { id: order.id, number: order.number }, by: tenant.user.id });
    // Closed by the release of its order, on the approver's authority.
    expect(closed.data).toMatchObject({ action: 'close', comment: order.number, changeRequest: { status: 'CLOSED', changeOrderId: order.id } });

    expect(ofRequest(rejected.id).find((p) => p.data.to?.status === 'REJECTED')!.data).toMatchObject({
      from: { status: 'SUBMITTED' },
      action: 'reject',
      by: reviewer.userId,
      comment: 'Works as designed',
    });
    expect(ofRequest(deferred.id).map((p) => p.data.to?.status ?? p.type)).toEqual(['change_request.created', 'SUBMITTED', 'DEFERRED', 'CLOSED']);

    // The other organization's webhook: its own request only.
    await eventually(
      () => theirs.received,
      (list) => list.some((p) => p.data.changeRequest?.id === theirRequest.id),
      "the other organization's event",
    );
    expect(theirs.received.every((p) => p.organizationId === other.organization.id && p.webhookId === elsewhere.webhook.id)).toBe(true);
    const ours = new Set([request.id, rejected.id, deferred.id]);
    expect(theirs.received.filter((p) => ours.has(p.data.changeRequest?.id))).toEqual([]);
    expect(mine.received.filter((p) => p.data.changeRequest?.id === theirRequest.id)).toEqual([]);
  });
});

const orderFields = 'id number status components { componentId changes { fields { field } attributes { attributeId } bom { change } } }';
const createOrder = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${orderFields} } } }`;
const act = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { ${orderFields} } } }`;
const impactQuery = 'query($id: ID!) { changeOrders { impact(id: $id) { componentId usedBy { assemblyId level } otherChangeOrders { changeOrder { number } } } } }';

interface Order {
  id: string;
  number: string;
  status: string;
  components: { componentId: string; changes: { fields: unknown[]; attributes: unknown[]; bom: { change: string }[] } | null }[];
}

/** The mail's lines, as summary.ts writes them, computed from what the API answers of the order. */
function expectedLines(order: Order, impact: { usedBy: { assemblyId: string; level: number }[]; otherChangeOrders: { changeOrder: { number: string } }[] }[]) {
  const bom = order.components.flatMap((c) => c.changes?.bom ?? []);
  const count = (kind: string) => bom.filter((b) => b.change === kind).length;
  const changed = order.components.filter((c) => c.changes && c.changes.fields.length + c.changes.attributes.length + c.changes.bom.length > 0).length;
  const first = order.components.filter((c) => c.changes === null).length;
  const lowest = new Map<string, number>();
  for (const entry of impact) for (const u of entry.usedBy) lowest.set(u.assemblyId, Math.min(u.level, lowest.get(u.assemblyId) ?? u.level));
  const levels = [...new Set(lowest.values())].sort().map((level) => `level ${level}: ${[...lowest.values()].filter((l) => l === level).length}`);
  const others = new Set(impact.flatMap((e) => e.otherChangeOrders.map((o) => o.changeOrder.number)));
  return [
    `Redlines: ${changed} of ${order.components.length} component(s) changed, ${first} first release(s); BOM lines: ${count('ADDED')} added, ${count('REMOVED')} removed, ${count('CHANGED')} changed.`,
    `Impact: ${lowest.size} assembly(ies) affected (${levels.join(', ')}); ${others.size} other open change order(s) holding them.`,
  ];
}

describe('change order mails: redline and impact counts', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let bob: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    bob = await memberWithRole(tenant, 'REVIEWER');
  });

  const draft = async (name: string, componentIds: string[]): Promise<Order> =>
    (await ok(admin, createOrder, { input: { name, templateId: 'default-one-stage', componentIds, values: { reason: 'Mail' }, stages: [{ index: 0, reviewerIds: [bob.userId] }] } })).changeOrders
      .create;

  it('carries the counts of the order redlines and impact, and a link, in the submitted and approved mails', { timeout: 120_000 }, async () => {
    const [c1, c2, c3] = await createParts(tenant, ['Mail c1', 'Mail c2', 'Mail c3']);
    const a = await createAssembly(tenant, 'Mail A', [
      { childId: c1!.id, quantity: 2 },
      { childId: c2!.id, quantity: 1 },
    ]);
    const first = await draft('Release A', [a.id, c1!.id, c2!.id]);
    await ok(admin, act('submit'), { id: first.id });
    await ok(bob.headers, act('approve'), { id: first.id });
    // A gains c3, loses c2, and c1's quantity changes; B and C sit above it; another order holds B.
    await updateItems(tenant, [
      {
        id: a.id,
        children: [
          { childId: c1!.id, quantity: 3 },
          { childId: c3!.id, quantity: 1 },
        ],
      },
    ]);
    const b = await createAssembly(tenant, 'Mail B', [{ childId: a.id, quantity: 2 }]);
    await createAssembly(tenant, 'Mail C', [{ childId: b.id, quantity: 1 }]);
    const parentOrder = await draft('Touches B', [b.id]);
    const order = await draft('Change A', [a.id, c3!.id]);

    const submitted: Order = (await ok(admin, act('submit'), { id: order.id })).changeOrders.submit;
    const impact = (await ok(admin, impactQuery, { id: order.id })).changeOrders.impact;
    const lines = expectedLines(submitted, impact);
    // By hand: A's redline has one line each added, removed and changed; c3 was never released. Above: A
    // (c3's parent) and B at level 1, C at level 2; the other order holds B.
    expect(lines).toEqual([
      'Redlines: 1 of 2 component(s) changed, 1 first release(s); BOM lines: 1 added, 1 removed, 1 changed.',
      'Impact: 3 assembly(ies) affected (level 1: 2, level 2: 1); 1 other open change order(s) holding them.',
    ]);
    expect(impact.flatMap((e: { otherChangeOrders: { changeOrder: { number: string } }[] }) => e.otherChangeOrders.map((o) => o.changeOrder.number))).toContain(parentOrder.number);
    const review = (await workflowMailAfter(bob.email, `Review requested: ${order.number}`)).filter((m) => m.subject.startsWith(`Review requested: ${order.number}`));
    expect(review).toHaveLength(1);
    for (const line of lines) {
      expect(review[0]!.text).toContain(line);
      expect(review[0]!.html).toContain(line.replace(/&/g, '&amp;'));
    }
    expect(review[0]!.text).toContain(`/change-orders/${order.id}`);
    // Counts and a link, not the diff: no line of the BOM is named.
    expect(review[0]!.text).not.toContain(c3!.id);

    const released: Order = (await ok(bob.headers, act('approve'), { id: order.id })).changeOrders.approve;
    expect(released.status).toBe('CLOSED');
    const approved = (await workflowMailAfter(tenant.user.email, `${order.number} approved: Change A`)).filter((m) => m.subject === `${order.number} approved: Change A`);
    expect(approved).toHaveLength(1);
    // After the release the redlines are this release against the one before: the same counts.
    const after = expectedLines(released, (await ok(admin, impactQuery, { id: order.id })).changeOrders.impact);
    expect(after).toEqual(lines);
    for (const line of after) expect(approved[0]!.text).toContain(line);
    expect(approved[0]!.text).toContain(`/change-orders/${order.id}`);
  });
});
