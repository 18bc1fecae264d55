import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { historyOf } from '../support/history.js';
import { memberWithRole, refusal, workflowMailAfter, type Member } from './accessHelpers.js';
import { createComponent, createComponents, findOne, libraryPartition, partitionItems } from './componentHelpers.js';

const fields = `id number name status resolution currentStage templateId
  stages { name approvalType minReviewers reviewers { userId isRequired isRequiredToApprove } decisions { userId decision comment } outcome }
  components { componentId fromRevision toRevision component { id state revisionValue } } values history { action status }`;
const create = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${fields} } } }`;
const action = (name: string, withComment = false) =>
  `mutation($id: ID!${withComment ? ', $comment: String' : ''}) { changeOrders { ${name}(id: $id${withComment ? ', comment: $comment' : ''}) { ${fields} } } }`;

describe('change orders', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let alice: Member;
  let bob: Member;
  let carol: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    [alice, bob, carol] = await Promise.all([memberWithRole(tenant, 'EDITOR'), memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'REVIEWER')]);
  });

  async function draft(componentIds: string[], stages: unknown[], templateId = 'default-one-stage', values: unknown = { reason: 'Supplier change' }) {
    return (await ok(alice.headers, create, { input: { name: 'Swap resistor supplier', templateId, componentIds, values, stages } })).changeOrders.create;
  }
  const run = async (who: Member | Record<string, string>, name: string, id: string, comment?: string) =>
    (await ok(isMember(who) ? who.headers : who, action(name, comment !== undefined), { id, ...(comment !== undefined ? { comment } : {}) })).changeOrders[name];
  const isMember = (who: Member | Record<string, string>): who is Member => typeof (who as Member).headers === 'object';

  it('runs a Majority stage to release: the components become RELEASED at their next revision, with history and emails', async () => {
    const [part, doc] = await createComponents(tenant, [
      { name: 'CO bolt', categoryId: 'mechanical' },
      { name: 'CO spec', categoryId: 'specification' },
    ]);
    const co = await draft([part!.id, doc!.id], [{ index: 0, reviewerIds: [bob.userId, carol.userId], approvalType: 'Majority' }]);
    expect(co).toMatchObject({ number: expect.stringMatching(/^CO-\d{6}$/), status: 'DRAFT', currentStage: null, values: { reason: 'Supplier change', priority: 'normal' } });
    expect(co.stages[0]).toMatchObject({ name: 'Review', approvalType: 'Majority', reviewers: [{ userId: bob.userId }, { userId: carol.userId }] });

    const submitted = await run(alice, 'submit', co.id);
    expect(submitted).toMatchObject({ status: 'OPEN', currentStage: 0 });
    expect((await workflowMailAfter(bob.email, `Review requested: ${co.number}`)).at(-1)!.subject).toContain(`Review requested: ${co.number}`);
    // Held: no edits or deletes outside the change order.
    const edit = await refusal(admin, 'mutation($id: ID!) { component { update(inputs: [{ id: $id, name: "elsewhere" }]) { id } } }', { id: part!.id });
    expect(edit.code).toBe('COMPONENT_IN_CHANGE_ORDER');
    const removal = await refusal(admin, 'mutation($id: ID!) { component { delete(ids: [$id]) { deletedIds } } }', { id: doc!.id });
    expect(removal.code).toBe('COMPONENT_IN_CHANGE_ORDER');

    expect((await refusal(alice.headers, action('approve'), { id: co.id })).code).toBe('NOT_A_REVIEWER');
    const first = await run(bob, 'approve', co.id, 'Looks right');
    expect(first).toMatchObject({ status: 'OPEN', stages: [{ decisions: [{ userId: bob.userId, decision: 'APPROVE', comment: 'Looks right' }], outcome: null }] });
    expect((await refusal(bob.headers, action('approve'), { id: co.id })).code).toBe('ALREADY_DECIDED');

    const released = await run(carol, 'approve', co.id);
    // The default template closes itself on approval (AUTO_CLOSE).
    expect(released).toMatchObject({ status: 'CLOSED', resolution: 'APPROVED', currentStage: null, stages: [{ outcome: 'PASSED' }] });
    expect(released.components).toEqual([
      { componentId: part!.id, fromRevision: part!.revisionValue, toRevision: 'B', component: { id: part!.id, state: 'RELEASED', revisionValue: 'B' } },
      { componentId: doc!.id, fromRevision: doc!.revisionValue, toRevision: 'B', component: { id: doc!.id, state: 'RELEASED', revisionValue: 'B' } },
    ]);
    const after = await findOne(tenant, part!.id);
    expect(after).toMatchObject({ state: 'RELEASED', revisionValue: 'B', version: part!.version + 1, lastReleasedNotRevisionManaged: false });
    expect((await historyOf(tenant, part!.id))[0]).toMatchObject({
      action: 'RELEASE',
      changes: expect.arrayContaining([
        { field: 'revisionValue', from: 'A', to: 'B' },
        { field: 'changeOrder', from: null, to: co.number },
      ]),
    });
    expect((await workflowMailAfter(alice.email, `${co.number} approved: Swap resistor supplier`)).at(-1)!.subject).toBe(`${co.number} approved: Swap resistor supplier`);
    // Searchable as released.
    const found = await ok(admin, 'query($id: ID!) { component { findAll(filter: { ids: [$id] }) { edges { node { state revisionValue } } } } }', { id: part!.id }).catch(() => null);
    if (found) expect(found.component.findAll.edges[0].node).toEqual({ state: 'RELEASED', revisionValue: 'B' });
    // Editing a released component makes it MODIFIED.
    const edited = await ok(admin, 'mutation($id: ID!) { component { update(inputs: [{ id: $id, description: "after release" }]) { state } } }', { id: part!.id });
    expect(edited.component.update[0].state).toBe('MODIFIED');
  });

  it('a rejection resolves the change order (MANUAL_CLOSE waits for close) and lets the components go', async () => {
    const part = await createComponent(tenant, { name: 'CO bracket', categoryId: 'mechanical' });
    const co = await draft(
      [part.id],
      [
        { index: 0, reviewerIds: [bob.userId] },
        { index: 1, reviewerIds: [carol.userId] },
      ],
      'default-two-stage',
    );
    await run(alice, 'submit', co.id);
    const passed = await run(bob, 'approve', co.id);
    expect(passed).toMatchObject({ status: 'OPEN', currentStage: 1, stages: [{ outcome: 'PASSED' }, { outcome: null }] });
    expect((await workflowMailAfter(carol.email, `Review requested: ${co.number}`)).at(-1)!.subject).toContain('Release approval');
    const rejected = await run(carol, 'reject', co.id, 'Wrong torque');
    expect(rejected).toMatchObject({ status: 'RESOLVED', resolution: 'REJECTED', stages: [{ outcome: 'PASSED' }, { outcome: 'REJECTED' }] });
    expect(await findOne(tenant, part.id)).toMatchObject({ state: 'MODIFIED', revisionValue: part.revisionValue });
    await ok(admin, 'mutation($id: ID!) { component { update(inputs: [{ id: $id, name: "free again" }]) { id } } }', { id: part.id });
    expect(await run(alice, 'close', co.id)).toMatchObject({ status: 'CLOSED', resolution: 'REJECTED' });
    expect((await refusal(alice.headers, action('close'), { id: co.id })).code).toBe('CHANGE_ORDER_STATE');
  });

  it('hold pauses decisions; withdraw resolves; reset returns a change order to DRAFT with decisions cleared', async () => {
    const part = await createComponent(tenant, { name: 'CO gasket', categoryId: 'mechanical' });
    const co = await draft([part.id], [{ index: 0, reviewerIds: [bob.userId, carol.userId], approvalType: 'Unanimous' }]);
    await run(alice, 'submit', co.id);
    await run(bob, 'approve', co.id);
    expect(await run(alice, 'hold', co.id)).toMatchObject({ status: 'ON_HOLD' });
    expect((await refusal(carol.headers, action('approve'), { id: co.id })).code).toBe('CHANGE_ORDER_STATE');
    expect(await run(alice, 'resume', co.id)).toMatchObject({ status: 'OPEN' });
    const reset = await run(admin, 'reset', co.id);
    expect(reset).toMatchObject({ status: 'DRAFT', currentStage: null, stages: [{ decisions: [], outcome: null }] });
    await ok(admin, 'mutation($id: ID!) { component { update(inputs: [{ id: $id, name: "editable in draft" }]) { id } } }', { id: part.id });
    await run(alice, 'submit', co.id);
    const withdrawn = await run(alice, 'withdraw', co.id);
    expect(withdrawn).toMatchObject({ status: 'CLOSED', resolution: 'WITHDRAWN' });
    expect(withdrawn.history.map((h: { action: string }) => h.action)).toEqual(['CREATE', 'SUBMIT', 'APPROVE', 'HOLD', 'RESUME', 'RESET', 'SUBMIT', 'WITHDRAWN']);
    expect((await findOne(tenant, part.id))!.state).toBe('MODIFIED');
  });

  it('submitting needs the authority to release (change_orders.release), beside change_orders.submit', async () => {
    const permissions = ['organization.read', 'library.read', 'components.read', 'change_orders.read', 'change_orders.create', 'change_orders.submit'];
    const role = (
      await ok(admin, 'mutation($input: CreateRoleInput!) { roles { create(input: $input) { id } } }', { input: { name: `Drafter ${crypto.randomUUID().slice(0, 6)}`, type: 'ORG', permissions } })
    ).roles.create;
    const drafter = await memberWithRole(tenant, role.id);
    const part = await createComponent(tenant, { name: 'Drafted part', categoryId: 'mechanical' });
    const co = (
      await ok(drafter.headers, create, {
        input: { name: 'Drafted', templateId: 'default-one-stage', componentIds: [part.id], values: { reason: 'x' }, stages: [{ index: 0, reviewerIds: [bob.userId] }] },
      })
    ).changeOrders.create;
    const refused = await refusal(drafter.headers, action('submit'), { id: co.id });
    expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(refused.error!.extensions).toMatchObject({ requiredPermission: 'change_orders.release' });
    expect((await findOne(tenant, part.id))!.version).toBe(part.version);
    // An Editor holds both: the same change order goes.
    expect((await run(alice, 'submit', co.id)).status).toBe('OPEN');
  });

  it('keeps a Not Revision Managed component at its fixed revision on release', async () => {
    const nrm = await createComponent(tenant, { name: 'NRM screw', categoryId: 'fastener', notRevisionManaged: true });
    const co = await draft([nrm.id], [{ index: 0, reviewerIds: [bob.userId], approvalType: 'Minimum', minReviewers: 1 }]);
    await run(alice, 'submit', co.id);
    const done = await run(bob, 'approve', co.id);
    expect(done.components[0]).toMatchObject({ fromRevision: 'A', toRevision: 'A', component: { state: 'RELEASED', revisionValue: 'A' } });
    expect(await findOne(tenant, nrm.id)).toMatchObject({ notRevisionManaged: true, lastReleasedNotRevisionManaged: true, status: { id: 'production' } });
  });

  it.each([1, 40])(
    'two approvals racing on the last vote release exactly once (%i components)',
    async (size) => {
      const parts = (
        await Promise.all(
          Array.from({ length: Math.ceil(size / 10) }, (_, batch) =>
            createComponents(
              tenant,
              Array.from({ length: Math.min(10, size - batch * 10) }, (_, i) => ({ name: `CO race ${size} ${batch}-${i}`, categoryId: 'mechanical' })),
            ),
          ),
        )
      ).flat();
      const co = await draft(
        parts.map((p) => p.id),
        [{ index: 0, reviewerIds: [bob.userId, carol.userId], approvalType: 'Minimum', minReviewers: 1 }],
      );
      await run(alice, 'submit', co.id);
      const both = await Promise.all([bob, carol].map((who) => graphql(action('approve'), { id: co.id }, who.headers)));
      const succeeded = both.filter((r) => !r.body.errors);
      expect(succeeded).toHaveLength(1);
      expect(both.find((r) => r.body.errors)!.body.errors![0]!.extensions!.code).toBe('CHANGE_ORDER_STATE');
      for (const part of [parts[0]!, parts.at(-1)!]) {
        const history = await historyOf(tenant, part.id);
        expect(history.filter((h) => h.action === 'RELEASE')).toHaveLength(1);
        expect(await findOne(tenant, part.id)).toMatchObject({ state: 'RELEASED', revisionValue: 'B', version: part.version + 1 });
      }
    },
    60_000,
  );

  it(`releases the largest single-transaction size (32 components: with the order and its mail's outbox item, 98 items) atomically: a failed release leaves every component as it was`, async () => {
    const parts = await createComponents(
      tenant,
      Array.from({ length: 10 }, (_, i) => ({ name: `bulk ${i}`, categoryId: 'mechanical' })),
    );
    const more = [
      ...(await createComponents(
        tenant,
        Array.from({ length: 10 }, (_, i) => ({ name: `bulk b${i}`, categoryId: 'mechanical' })),
      )),
      ...(await createComponents(
        tenant,
        Array.from({ length: 10 }, (_, i) => ({ name: `bulk c${i}`, categoryId: 'mechanical' })),
      )),
      ...(await createComponents(
        tenant,
        Array.from({ length: 2 }, (_, i) => ({ name: `bulk d${i}`, categoryId: 'mechanical' })),
      )),
    ];
    const all = [...parts, ...more];
    expect(all).toHaveLength(32);
    const co = await draft(
      all.map((p) => p.id),
      [{ index: 0, reviewerIds: [bob.userId], approvalType: 'Minimum' }],
    );
    await run(alice, 'submit', co.id);
    // The release transaction fails at its last component write (after the 31 others in it): nothing may stay.
    const failed = await graphql(action('approve'), { id: co.id }, { ...bob.headers, 'x-plm-fault': 'change-order-release-fails' });
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('VERSION_CONFLICT');
    for (const p of all) expect(await findOne(tenant, p.id)).toMatchObject({ state: 'MODIFIED', revisionValue: 'A', version: p.version });
    const still = (await ok(alice.headers, `query { changeOrders { get(filter: { search: "${co.number}" }) { totalCount nodes { status stages { decisions { userId } } } } } }`)).changeOrders.get;
    expect(still).toEqual({ totalCount: 1, nodes: [{ status: 'OPEN', stages: [{ decisions: [] }] }] });
    // Without the fault, the same approval releases all 32 in one transaction.
    const done = await run(bob, 'approve', co.id);
    expect(done.status).toBe('CLOSED');
    for (const p of all) expect((await findOne(tenant, p.id))!.state).toBe('RELEASED');
  }, 60_000);

  it(`releases 50 components atomically through a commit record: a failed release leaves no trace, a retry releases all`, async () => {
    const all = (
      await Promise.all(
        Array.from({ length: 5 }, (_, batch) =>
          createComponents(
            tenant,
            Array.from({ length: 10 }, (_, i) => ({ name: `lr50 ${batch}-${i}`, categoryId: 'mechanical' })),
          ),
        ),
      )
    ).flat();
    expect(all).toHaveLength(50);
    const co = await draft(
      all.map((p) => p.id),
      [{ index: 0, reviewerIds: [bob.userId], approvalType: 'Minimum' }],
    );
    await run(alice, 'submit', co.id);
    const released = async () =>
      (await ok(alice.headers, `query { component { filter(input: { and: [{ name: { contains: "lr50" } }, { state: { eq: RELEASED } }] }) { totalCount } } }`)).component.filter.totalCount;
    // The last component write of the commit transaction fails: the history records written before it
    // (invisible) are removed, and no component, history or search entry shows a release.
    const failed = await graphql(action('approve'), { id: co.id }, { ...bob.headers, 'x-plm-fault': 'change-order-release-fails' });
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('VERSION_CONFLICT');
    for (const p of all) expect(await findOne(tenant, p.id)).toMatchObject({ state: 'MODIFIED', revisionValue: 'A', version: p.version });
    for (const p of [all[0]!, all[49]!]) expect((await historyOf(tenant, p.id)).map((h) => h.action)).toEqual(['CREATE']);
    expect(await released()).toBe(0);
    // In the table itself: the invisible history records are gone, and the commit record says ABORTED.
    const ids = new Set(all.map((p) => p.id));
    const raw = await partitionItems(libraryPartition(tenant), ['H#', 'WRITE#']);
    expect(raw.filter((item) => item.entity === 'ComponentHistory' && ids.has(item.componentId as string) && item.action === 'RELEASE')).toEqual([]);
    const ours = (items: Record<string, unknown>[]) => items.filter((item) => item.entity === 'PendingWrite' && (item.refreshSearchOf as string[]).includes(all[0]!.id));
    expect(ours(raw).map((item) => [item.status, typeof item.settledAt])).toEqual([['ABORTED', 'string']]);
    const still = (await ok(alice.headers, `query { changeOrders { get(filter: { search: "${co.number}" }) { nodes { status stages { decisions { userId } } } } } }`)).changeOrders.get;
    expect(still.nodes).toEqual([{ status: 'OPEN', stages: [{ decisions: [] }] }]);
    // Without the fault the same approval releases all 50: components, history and search agree.
    const done = await run(bob, 'approve', co.id);
    expect(done.status).toBe('CLOSED');
    expect(done.components.every((c: { toRevision: string }) => c.toRevision === 'B')).toBe(true);
    for (const p of all) expect(await findOne(tenant, p.id)).toMatchObject({ state: 'RELEASED', revisionValue: 'B', version: p.version + 1 });
    for (const p of [all[0]!, all[49]!]) expect((await historyOf(tenant, p.id)).map((h) => h.action)).toEqual(['RELEASE', 'CREATE']);
    expect(await released()).toBe(50);
    const after = await partitionItems(libraryPartition(tenant), ['H#', 'WRITE#']);
    expect(after.filter((item) => item.entity === 'ComponentHistory' && ids.has(item.componentId as string) && item.writeId)).toEqual([]);
    expect(
      ours(after)
        .map((item) => item.status)
        .sort(),
    ).toEqual(['ABORTED', 'COMMITTED']);
    const tooMany = await refusal(alice.headers, create, {
      input: { name: 'too big', templateId: 'default-one-stage', componentIds: [...all.map((p) => p.id), ...Array.from({ length: 951 }, () => crypto.randomUUID())], values: { reason: 'x' } },
    });
    expect(tooMany.code).toBe('CHANGE_ORDER_TOO_LARGE');
    expect(tooMany.error!.extensions).toMatchObject({ limit: 1000 });
  }, 120_000);

  it('validates values against the template and emails the notify list on creation', async () => {
    const template = {
      version: '1.0',
      description: 'With notifications',
      schema_type: 'change_order_scheme',
      details: {
        info: {
          groups: [
            {
              name: 'G',
              fields: [
                { type: 'number', label: 'Units', name: 'units', validations: { required: true, min: 1, max: 10 } },
                {
                  type: 'list',
                  label: 'Plants',
                  name: 'plants',
                  multiSelect: true,
                  options: [
                    { label: 'A', value: 'a' },
                    { label: 'B', value: 'b' },
                  ],
                },
              ],
            },
          ],
        },
      },
      stages: { open: [{ name: 'Check', types: ['Minimum'], default: 'Minimum', reviewers: { users: [bob.userId] }, notifyList: { users: [carol.userId], emails: ['buyer@supplier.example'] } }] },
    };
    const created = (await ok(admin, 'mutation($input: CreateTemplateInput!) { changeOrders { createTemplate(input: $input) { id } } }', { input: { name: 'Notify', template } })).changeOrders
      .createTemplate;
    const bad = await refusal(alice.headers, create, { input: { name: 'x', templateId: created.id, values: { units: 11, plants: ['a', 'c'], color: 'red' } } });
    expect(bad.code).toBe('VALUES_INVALID');
    expect((bad.error?.extensions?.problems as { field: string }[]).map((p) => p.field).sort()).toEqual(['color', 'plants', 'units']);
    const co = (await ok(alice.headers, create, { input: { name: 'Notify me', templateId: created.id, values: { units: 3, plants: ['a'] } } })).changeOrders.create;
    expect((await workflowMailAfter('buyer@supplier.example', `${co.number} created: Notify me`)).at(-1)!.subject).toBe(`${co.number} created: Notify me`);
    expect((await workflowMailAfter(carol.email, `${co.number} created: Notify me`)).some((m) => m.subject === `${co.number} created: Notify me`)).toBe(true);
    expect((await refusal(alice.headers, action('submit'), { id: co.id })).code).toBe('CHANGE_ORDER_EMPTY');
    expect(await ok(alice.headers, 'mutation($id: ID!) { changeOrders { delete(id: $id) } }', { id: co.id })).toEqual({ changeOrders: { delete: true } });
  });

  it('pages newest first with keyed cursors: a change order created while paging shifts no page; an offset cursor of before is refused', async () => {
    const own = await newTenant({ plan: 'team' });
    const headers = tenantHeaders(own);
    const make = async (name: string) =>
      (
        await ok(headers, 'mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { number } } }', {
          input: { name, templateId: 'default-one-stage', values: { reason: 'x' } },
        })
      ).changeOrders.create.number as string;
    const numbers: string[] = [];
    for (const name of ['first', 'second', 'third']) numbers.push(await make(name));
    const page = async (after: string | null) =>
      (await ok(headers, 'query($p: ChangeOrderPaginationInput) { changeOrders { get(pagination: $p) { totalCount nodes { number } endCursor hasNextPage } } }', { p: { first: 2, after } }))
        .changeOrders.get;

    const one = await page(null);
    expect(one).toMatchObject({ totalCount: 3, nodes: [{ number: numbers[2] }, { number: numbers[1] }], hasNextPage: true });
    const newer = await make('fourth');
    const two = await page(one.endCursor);
    expect(two).toMatchObject({ totalCount: 4, nodes: [{ number: numbers[0] }], hasNextPage: false });
    expect((await page(null)).nodes.map((n: { number: string }) => n.number)).toEqual([newer, numbers[2]]);

    // The offset cursors of before (base64url of the offset) are not cursors of this list any more.
    const offset = await refusal(headers, 'query { changeOrders { get(pagination: { after: "Mg" }) { totalCount } } }');
    expect(offset.code).toBe('BAD_USER_INPUT');
    // Nor is a cursor of component.findAll, which has the same form (it was read as a position and answered a page).
    await createComponents(own, [
      { name: 'Cursor source 1', categoryId: 'mechanical' },
      { name: 'Cursor source 2', categoryId: 'mechanical' },
    ]);
    const components = (await ok(headers, 'query { component { findAll(pagination: { first: 1 }) { pageInfo { endCursor } } } }')).component.findAll;
    const foreign = await refusal(headers, 'query($p: ChangeOrderPaginationInput) { changeOrders { get(pagination: $p) { totalCount } } }', { p: { after: components.pageInfo.endCursor } });
    expect(foreign.code).toBe('BAD_USER_INPUT');
  });
});
