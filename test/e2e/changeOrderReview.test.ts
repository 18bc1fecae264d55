import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { componentKey } from '../../lib/store/component.js';
import { newTenant, ok, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
import { createAssembly, createParts } from './itemHelpers.js';

/**
 * Change orders as a daily user meets them, found by probing from outside: what an order says it released
 * when another order released the same component first, and what is in effect before a dated first release.
 */

const orderFields = 'id number status resolution components { componentId fromRevision toRevision component { revisionValue } }';
const createOrder = `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${orderFields} } } }`;
const act = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { ${orderFields} } } }`;
const findOne = `query($id: ID!, $asOf: DateTime) { component { findOne(id: $id, asOf: $asOf) { id version revisionValue state } } }`;

describe('change order review', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let reviewer: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    reviewer = await memberWithRole(tenant, 'REVIEWER');
  });

  const draft = async (componentIds: string[], extra: Record<string, unknown> = {}) =>
    (
      await ok(admin, createOrder, {
        input: { name: 'Review', templateId: 'default-one-stage', componentIds, values: { reason: 'Review' }, stages: [{ index: 0, reviewerIds: [reviewer.userId] }], ...extra },
      })
    ).changeOrders.create;
  const submit = async (id: string) => (await ok(admin, act('submit'), { id })).changeOrders.submit;
  const approve = async (id: string) => (await ok(reviewer.headers, act('approve'), { id })).changeOrders.approve;

  it('names the revision a component left when another order released it after this one was drafted (fromRevision stayed the one at drafting)', async () => {
    const [part] = await createParts(tenant, ['Twice drafted']);
    const first = await draft([part!.id]);
    const second = await draft([part!.id]);
    expect(second.components[0]).toMatchObject({ fromRevision: 'A', toRevision: null });
    await submit(first.id);
    expect((await approve(first.id)).components[0]).toMatchObject({ fromRevision: 'A', toRevision: 'B' });

    // Submitted once the first released: held from here, so the revision it leaves is known.
    expect((await submit(second.id)).components[0]).toMatchObject({ fromRevision: 'B', toRevision: null });
    const released = await approve(second.id);
    expect(released).toMatchObject({ resolution: 'APPROVED' });
    expect(released.components[0]).toEqual({ componentId: part!.id, fromRevision: 'B', toRevision: 'C', component: { revisionValue: 'C' } });
  });

  it('answers the version before a first release dated later until that date (asOf answered the release itself)', async () => {
    const [part] = await createParts(tenant, ['Dated first release']);
    const effectiveAt = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString();
    const order = await draft([part!.id], { effectivity: 'ON_DATE', effectiveAt });
    await submit(order.id);
    expect((await approve(order.id)).resolution).toBe('APPROVED');
    // Edited after the release: still not in effect before the date.
    await ok(admin, 'mutation($id: ID!) { component { update(inputs: [{ id: $id, description: "after the dated release" }]) { id } } }', { id: part!.id });

    const now = new Date().toISOString();
    expect((await ok(admin, findOne, { id: part!.id, asOf: now })).component.findOne).toEqual({ id: part!.id, version: 1, revisionValue: 'A', state: 'MODIFIED' });
    const after = new Date(Date.parse(effectiveAt) + 1000).toISOString();
    expect((await ok(admin, findOne, { id: part!.id, asOf: after })).component.findOne).toEqual({ id: part!.id, version: 2, revisionValue: 'B', state: 'RELEASED' });
    expect((await ok(admin, findOne, { id: part!.id, asOf: effectiveAt })).component.findOne).toMatchObject({ version: 2 });
    expect((await ok(admin, findOne, { id: part!.id })).component.findOne).toEqual({ id: part!.id, version: 3, revisionValue: 'B', state: 'MODIFIED' });
  });

  it('reads a past version in the state it had (a released version rebuilt from history took the current state: MODIFIED once edited since)', async () => {
    const [part] = await createParts(tenant, ['Released then edited']);
    const order = await draft([part!.id]);
    await submit(order.id);
    await approve(order.id);
    await ok(admin, 'mutation($id: ID!) { component { update(inputs: [{ id: $id, name: "Edited after release" }]) { id } } }', { id: part!.id });
    const compare = `query($id: ID!) { component { compare(left: { id: $id, revision: "B" }, right: { id: $id }) { left { version state revisionValue name } right { version state } } } }`;
    expect((await ok(admin, compare, { id: part!.id })).component.compare).toEqual({
      left: { version: 2, state: 'RELEASED', revisionValue: 'B', name: 'Released then edited' },
      right: { version: 3, state: 'MODIFIED' },
    });
    // The version before the release was MODIFIED; a line pinned to the release shows it RELEASED.
    const first = `query($id: ID!) { component { compare(left: { id: $id, version: 1 }, right: { id: $id, version: 2 }) { left { state } right { state } } } }`;
    expect((await ok(admin, first, { id: part!.id })).component.compare).toEqual({ left: { state: 'MODIFIED' }, right: { state: 'RELEASED' } });
    const assembly = (await createAssembly(tenant, 'Pins the release', [{ childId: part!.id, quantity: 1, childHistoryId: `${part!.id}:2` }])).id;
    const bom = `query($id: ID!) { component { findOne(id: $id) { indentedBom { link { isPinned child { version state } } } } } }`;
    expect((await ok(admin, bom, { id: assembly })).component.findOne.indentedBom).toEqual([{ link: { isPinned: true, child: { version: 2, state: 'RELEASED' } } }]);
  });
});

describe('reviewers who cannot decide', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let bob: Member;
  let carol: Member;
  let leaver: Member;
  let viewer: Member;
  const validate = `query($id: ID!) { changeOrders { validate(id: $id) { severity code componentId message } } }`;
  const submit = `mutation($id: ID!) { changeOrders { submit(id: $id) { id status warnings { severity code } } } }`;
  const createTemplate = `mutation($input: CreateTemplateInput!) { changeOrders { createTemplate(input: $input) { id } } }`;
  const template = (types: string[], users: unknown[]) => ({
    version: '1.0',
    description: 'Named reviewers',
    schema_type: 'change_order_scheme',
    details: { info: { groups: [{ name: 'Change', fields: [{ type: 'text', label: 'Reason', name: 'reason' }] }] } },
    stages: { open: [{ name: 'Board', types, default: types[0], reviewers: { users } }] },
  });

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    [bob, carol, leaver, viewer] = await Promise.all([memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'VIEWER')]);
  });

  const order = async (templateId: string, stages: unknown[] = []) => {
    const [part] = await createParts(tenant, [`Reviewed ${templateId.slice(0, 8)} ${stages.length}`]);
    const created = (await ok(admin, createOrder, { input: { name: 'Named reviewers', templateId, componentIds: [part!.id], stages, values: { reason: 'Reviewers' } } })).changeOrders.create;
    return { id: created.id as string, partId: part!.id as string };
  };
  const lockOf = async (id: string) =>
    (await testStore().ddb.send(new GetCommand({ TableName: testStore().tableName, Key: componentKey(tenant.organization.id, tenant.library.id, id), ConsistentRead: true }))).Item?.lockedBy ?? null;

  it('refuses to submit a stage that a reviewer who left (or cannot approve) would hold for good (it was submitted and waited forever)', async () => {
    const unanimous = (await ok(admin, createTemplate, { input: { name: 'Board with a leaver', template: template(['Unanimous'], [bob.userId, { id: leaver.userId, isRequiredToApprove: true }]) } }))
      .changeOrders.createTemplate.id;
    await ok(admin, 'mutation($u: String!) { organization { membership { removeOrgRole(userId: $u) } } }', { u: leaver.userId });

    const held = await order(unanimous);
    expect((await ok(admin, validate, { id: held.id })).changeOrders.validate).toEqual([
      { severity: 'ERROR', code: 'REVIEWER_CANNOT_APPROVE', componentId: null, message: expect.stringContaining(`Reviewer ${leaver.userId} of stage 0 "Board"`) },
    ]);
    const refused = await refusal(admin, submit, { id: held.id });
    expect(refused.code).toBe('CHANGE_ORDER_INVALID');
    expect(refused.error!.extensions!.problems).toEqual([expect.objectContaining({ code: 'REVIEWER_CANNOT_APPROVE', severity: 'ERROR' })]);
    // Nothing written: still a DRAFT, the component free.
    expect((await ok(admin, `query { changeOrders { get(filter: { status: DRAFT }) { nodes { id } } } }`)).changeOrders.get.nodes.map((n: { id: string }) => n.id)).toContain(held.id);
    expect(await lockOf(held.partId)).toBeNull();

    // A Viewer named as a reviewer of a Unanimous stage cannot approve either; the author gives reviewers who can.
    const defaults = await order('default-two-stage', [
      { index: 0, reviewerIds: [viewer.userId] },
      { index: 1, reviewerIds: [carol.userId] },
    ]);
    expect((await ok(admin, validate, { id: defaults.id })).changeOrders.validate).toEqual([
      { severity: 'ERROR', code: 'REVIEWER_CANNOT_APPROVE', componentId: null, message: expect.stringContaining(`Reviewer ${viewer.userId} of stage 0 "Engineering review"`) },
    ]);
    await ok(admin, `mutation($input: UpdateChangeOrderInput!) { changeOrders { update(input: $input) { id } } }`, {
      input: {
        id: defaults.id,
        stages: [
          { index: 0, reviewerIds: [bob.userId] },
          { index: 1, reviewerIds: [carol.userId] },
        ],
      },
    });
    expect((await ok(admin, submit, { id: defaults.id })).changeOrders.submit).toMatchObject({ status: 'OPEN', warnings: [] });
  });

  it('warns, and submits, when the others can pass the stage without the reviewer who left', async () => {
    const gone = await memberWithRole(tenant, 'REVIEWER');
    const majority = (await ok(admin, createTemplate, { input: { name: 'Majority with a leaver', template: template(['Majority'], [bob.userId, carol.userId, gone.userId]) } })).changeOrders
      .createTemplate.id;
    await ok(admin, 'mutation($u: String!) { organization { membership { removeOrgRole(userId: $u) } } }', { u: gone.userId });
    const passing = await order(majority);
    expect((await ok(admin, submit, { id: passing.id })).changeOrders.submit).toEqual({
      id: passing.id,
      status: 'OPEN',
      warnings: [{ severity: 'WARNING', code: 'REVIEWER_CANNOT_APPROVE' }],
    });
  });
});
