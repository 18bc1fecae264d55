import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

const requestFields = `id number title description priority status componentIds components { id } values
  changeOrder { id number status } history { action status comment }`;
const createRequest = `mutation($input: CreateChangeRequestInput!) { changeRequests { create(input: $input) { ${requestFields} } } }`;
const updateRequest = `mutation($input: UpdateChangeRequestInput!) { changeRequests { update(input: $input) { ${requestFields} } } }`;
const transition = (name: string) => `mutation($id: ID!) { changeRequests { ${name}(id: $id) { ${requestFields} } } }`;
const getRequest = `query($id: ID!) { changeRequests { get(id: $id) { ${requestFields} } } }`;
const listRequests = `query($status: ChangeRequestStatus) { changeRequests { list(status: $status) { id number status } } }`;
const promote = `mutation($ids: [ID!]!, $input: PromoteChangeRequestsInput) { changeRequests { promote(ids: $ids, input: $input) {
  id number name status components { componentId } changeRequests { id number status }
} } }`;
const orderAction = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { id status resolution } } }`;
const updateOrder = `mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { id } } }`;

describe('change requests', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let reviewer: Member;
  let viewer: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    [reviewer, viewer] = await Promise.all([memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'VIEWER')]);
  });

  const file = async (title: string, componentIds: string[], extra: Record<string, unknown> = {}) =>
    (await ok(admin, createRequest, { input: { title, componentIds, ...extra } })).changeRequests.create;
  const run = async (who: Record<string, string>, name: string, id: string) => (await ok(who, transition(name), { id })).changeRequests[name];
  const approved = async (title: string, componentIds: string[]) => {
    const request = await file(title, componentIds);
    await run(admin, 'submit', request.id);
    return run(reviewer.headers, 'approve', request.id);
  };

  it('an update never ignores a null: it empties description, componentIds and values, and is refused for title and priority', async () => {
    const [part] = await createParts(tenant, ['CR null part']);
    const request = await file('Nulls', [part!.id], { description: 'Some text', priority: 'HIGH', values: { customer: 'ACME' } });
    for (const field of ['title', 'priority']) {
      const refused = await refusal(admin, updateRequest, { input: { id: request.id, [field]: null, description: 'changed too' } });
      expect(refused, field).toMatchObject({ code: 'BAD_USER_INPUT', error: { extensions: { field: `input.${field}` } } });
    }
    // Nothing of a refused update was written.
    expect((await ok(admin, getRequest, { id: request.id })).changeRequests.get).toMatchObject({ title: 'Nulls', description: 'Some text', priority: 'HIGH' });
    const emptied = (await ok(admin, updateRequest, { input: { id: request.id, description: null, componentIds: null, values: null } })).changeRequests.update;
    expect(emptied).toMatchObject({ title: 'Nulls', priority: 'HIGH', description: null, componentIds: [], components: [], values: {} });
  });

  it('files a numbered request and runs its lifecycle; invalid transitions are refused', async () => {
    const [p1, p2] = await createParts(tenant, ['CR p1', 'CR p2']);
    const request = await file('Resistor overheats', [p1!.id], { description: 'R12 runs hot', priority: 'HIGH', values: { customer: 'ACME', units: 3 } });
    expect(request).toMatchObject({
      number: expect.stringMatching(/^CR-\d{6}$/),
      title: 'Resistor overheats',
      description: 'R12 runs hot',
      priority: 'HIGH',
      status: 'DRAFT',
      componentIds: [p1!.id],
      components: [{ id: p1!.id }],
      values: { customer: 'ACME', units: 3 },
      changeOrder: null,
      history: [{ action: 'CREATE', status: 'DRAFT', comment: null }],
    });
    const second = await file('Second', []);
    expect(Number(second.number.slice(3))).toBe(Number(request.number.slice(3)) + 1);
    expect(second.priority).toBe('MEDIUM');

    const updated = (await ok(admin, updateRequest, { input: { id: request.id, componentIds: [p1!.id, p2!.id], priority: 'CRITICAL' } })).changeRequests.update;
    expect(updated).toMatchObject({ priority: 'CRITICAL', componentIds: [p1!.id, p2!.id], title: 'Resistor overheats' });

    // Not yet submitted: no decision.
    expect((await refusal(reviewer.headers, transition('approve'), { id: request.id })).code).toBe('CHANGE_ORDER_STATE');
    expect((await run(admin, 'submit', request.id)).status).toBe('SUBMITTED');
    expect((await refusal(admin, updateRequest, { input: { id: request.id, title: 'Late' } })).code).toBe('CHANGE_ORDER_STATE');
    expect((await refusal(admin, transition('close'), { id: request.id })).code).toBe('CHANGE_ORDER_STATE');
    expect((await run(reviewer.headers, 'defer', request.id)).status).toBe('DEFERRED');
    expect((await refusal(reviewer.headers, transition('approve'), { id: request.id })).code).toBe('CHANGE_ORDER_STATE');
    const closed = await run(admin, 'close', request.id);
    expect(closed.status).toBe('CLOSED');
    expect(closed.history.map((h: { action: string }) => h.action)).toEqual(['CREATE', 'UPDATE', 'SUBMIT', 'DEFER', 'CLOSE']);

    await run(admin, 'submit', second.id);
    expect((await run(reviewer.headers, 'reject', second.id)).status).toBe('REJECTED');

    expect((await ok(viewer.headers, getRequest, { id: request.id })).changeRequests.get).toMatchObject({ id: request.id, status: 'CLOSED' });
    expect((await ok(admin, getRequest, { id: '00000000-0000-4000-8000-000000000000' })).changeRequests.get).toBeNull();
    const rejectedList = (await ok(admin, listRequests, { status: 'REJECTED' })).changeRequests.list;
    expect(rejectedList.map((r: { id: string }) => r.id)).toEqual([second.id]);
  });

  it('maps each action to its permission', async () => {
    const [p] = await createParts(tenant, ['CR perm']);
    expect(await refusal(reviewer.headers, createRequest, { input: { title: 'No', componentIds: [p!.id] } })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(await refusal(viewer.headers, createRequest, { input: { title: 'No' } })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const request = await file('Perm', [p!.id]);
    expect(await refusal(reviewer.headers, transition('submit'), { id: request.id })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await run(admin, 'submit', request.id);
    expect(await refusal(viewer.headers, transition('approve'), { id: request.id })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(await refusal(viewer.headers, transition('defer'), { id: request.id })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await run(reviewer.headers, 'approve', request.id);
    expect(await refusal(reviewer.headers, promote, { ids: [request.id] })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('refuses bad input without writing anything', async () => {
    const [p] = await createParts(tenant, ['CR bad']);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await refusal(admin, createRequest, { input: { title: 'Ghost part', componentIds: [unknown] } })).code).toBe('NOT_FOUND');
    expect((await refusal(admin, createRequest, { input: { title: '  ' } })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(admin, createRequest, { input: { title: 'Values', values: ['not', 'an', 'object'] } })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(admin, transition('submit'), { id: unknown })).code).toBe('NOT_FOUND');

    const good = await approved('Approved one', [p!.id]);
    const draft = await file('Still a draft', [p!.id]);
    const before = (await ok(admin, 'query { changeOrders { get { totalCount } } }')).changeOrders.get.totalCount;
    const notApproved = await refusal(admin, promote, { ids: [good.id, draft.id] });
    expect(notApproved.code).toBe('CHANGE_REQUEST_NOT_APPROVED');
    expect(notApproved.error!.message).toContain(draft.number);
    expect((await refusal(admin, promote, { ids: [good.id, unknown] })).code).toBe('NOT_FOUND');
    expect((await refusal(admin, promote, { ids: [] })).code).toBe('BAD_USER_INPUT');
    // Nothing written: no change order, the approved request still unlinked.
    expect((await ok(admin, 'query { changeOrders { get { totalCount } } }')).changeOrders.get.totalCount).toBe(before);
    expect((await ok(admin, getRequest, { id: good.id })).changeRequests.get).toMatchObject({ status: 'APPROVED', changeOrder: null });
  });

  it('promotes approved requests into one change order (components the union), linked both ways, closed when it releases', async () => {
    const [p1, p2, p3] = await createParts(tenant, ['CR promote 1', 'CR promote 2', 'CR promote 3']);
    const first = await approved('Bolt strips', [p1!.id, p2!.id]);
    const second = await approved('Nut corrodes', [p2!.id, p3!.id]);
    const order = (await ok(admin, promote, { ids: [first.id, second.id], input: { name: 'Fastener rework', values: { reason: 'Field failures' } } })).changeRequests.promote;
    expect(order).toMatchObject({
      number: expect.stringMatching(/^CO-\d{6}$/),
      name: 'Fastener rework',
      status: 'DRAFT',
      components: [{ componentId: p1!.id }, { componentId: p2!.id }, { componentId: p3!.id }],
      changeRequests: [
        { id: first.id, number: first.number, status: 'APPROVED' },
        { id: second.id, number: second.number, status: 'APPROVED' },
      ],
    });
    const linked = (await ok(admin, getRequest, { id: first.id })).changeRequests.get;
    expect(linked.changeOrder).toEqual({ id: order.id, number: order.number, status: 'DRAFT' });
    expect(linked.history.at(-1)).toEqual({ action: 'PROMOTE', status: 'APPROVED', comment: order.number });
    // Promoted once only.
    expect((await refusal(admin, promote, { ids: [first.id] })).code).toBe('CHANGE_REQUEST_PROMOTED');
    // A request whose order was deleted may be promoted again.
    const [p4] = await createParts(tenant, ['CR promote 4']);
    const third = await approved('Washer missing', [p4!.id]);
    const dropped = (await ok(admin, promote, { ids: [third.id], input: { values: { reason: 'x' } } })).changeRequests.promote;
    await ok(admin, 'mutation($id: ID!) { changeOrders { delete(id: $id) } }', { id: dropped.id });
    const again = (await ok(admin, promote, { ids: [third.id], input: { values: { reason: 'x' } } })).changeRequests.promote;
    expect(again.changeRequests).toEqual([{ id: third.id, number: third.number, status: 'APPROVED' }]);

    // The order runs to release: its requests close.
    await ok(admin, updateOrder, { input: { id: order.id, stages: [{ index: 0, reviewerIds: [reviewer.userId] }] } });
    await ok(admin, orderAction('submit'), { id: order.id });
    expect((await ok(admin, getRequest, { id: first.id })).changeRequests.get.status).toBe('APPROVED');
    expect((await ok(reviewer.headers, orderAction('approve'), { id: order.id })).changeOrders.approve.resolution).toBe('APPROVED');
    for (const request of [first, second]) {
      const after = (await ok(admin, getRequest, { id: request.id })).changeRequests.get;
      expect(after).toMatchObject({ status: 'CLOSED', changeOrder: { id: order.id } });
      expect(after.history.at(-1)).toEqual({ action: 'CLOSE', status: 'CLOSED', comment: order.number });
    }
  });
});
