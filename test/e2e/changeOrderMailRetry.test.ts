import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { changeOrderMailKey, changeOrderMailPut, dueChangeOrderMails, getChangeOrderMail, resendChangeOrderMail } from '../../lib/store/changeOrderMail.js';
import { transactWrite } from '../../lib/store/items.js';
import { newTenant, ok, stack, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { adminCli } from '../support/admin.js';
import { preIndexChangeOrderMailItem, sweptOrder } from '../support/mailOutbox.js';
import { eventually } from '../support/webhooks.js';
import { mailTo, memberWithRole, workflowMailTo, type Member } from './accessHelpers.js';
import { createComponent } from './componentHelpers.js';

/**
 * The backstop of change order mails (lib/changeOrders/mailRetry.ts): an outbox item the stream did not send
 * waits in a due index, and the jobs function's scheduled sweep sends it, claimed first, with backoff, until
 * it fails for good. The local stack (test/support/globalSetup.ts) sweeps three at once every 300 ms, makes an
 * item due 1.5 s after it was written, retries after 0.4, 0.8, 1.6 s and gives up after 4 attempts; SES
 * failures are injected per address (PUT /_local/mail/faults, PLM_FAULT_INJECTION only).
 */

/** SES refuses the next `failures` review requests to the address (the local outbox throws as a throttled SendEmail; other mail goes). */
async function sesRefuses(address: string, failures: number) {
  const body = JSON.stringify({ address, failures, subject: 'Review requested: ' });
  const response = await fetch(`${stack.baseUrl}/_local/mail/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
  expect(response.status).toBe(200);
}

/** The item as stored, with its index keys (the record drops them). */
async function rawItem(orgId: string, libraryId: string, changeOrderId: string, rev: number) {
  const { Item } = await testStore().ddb.send(new GetCommand({ TableName: stack.tableName, Key: changeOrderMailKey(orgId, libraryId, changeOrderId, rev), ConsistentRead: true }));
  return Item;
}

const farFuture = '9999-12-31T00:00:00.000Z';
const inDueIndex = async (changeOrderId: string) => (await dueChangeOrderMails(testStore(), farFuture, 1000)).some((item) => item.changeOrderId === changeOrderId);

describe('change order mails when SES fails', () => {
  let tenant: Tenant;
  let alice: Member;
  let bob: Member;
  let carol: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    [alice, bob, carol] = await Promise.all([memberWithRole(tenant, 'EDITOR'), memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'REVIEWER')]);
  });

  const fields = 'id number status';
  async function submittedOrder(name: string, reviewers: Member[]) {
    const part = await createComponent(tenant, { name: `${name} part`, categoryId: 'mechanical' });
    const co = (
      await ok(alice.headers, `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${fields} } } }`, {
        input: { name, templateId: 'default-one-stage', componentIds: [part.id], values: { reason: name }, stages: [{ index: 0, reviewerIds: reviewers.map((r) => r.userId) }] },
      })
    ).changeOrders.create;
    await ok(alice.headers, `mutation($id: ID!) { changeOrders { submit(id: $id) { ${fields} } } }`, { id: co.id });
    return co as { id: string; number: string };
  }
  const outboxItem = (co: { id: string }, rev: number) => getChangeOrderMail(testStore(), tenant.organization.id, tenant.library.id, co.id, rev);

  it('a send SES refuses is retried by the sweep: each address gets exactly one mail, and the sent item leaves the due index', { timeout: 120_000 }, async () => {
    // The stream's attempt and the sweep's first retry are refused for bob; carol's mail goes at the first.
    await sesRefuses(bob.email, 2);
    const co = await submittedOrder('Retried review', [bob, carol]);
    const subject = `Review requested: ${co.number}`;
    const item = await eventually(
      () => outboxItem(co, 1),
      (found) => !!found?.sentAt,
      'the review request marked sent',
    );
    expect(item).toMatchObject({ attempts: 3, failedAt: null, nextAttemptAt: null, leasedUntil: null });
    expect(item!.lastError).toContain('fault injected');
    expect(item!.sentTo.sort()).toEqual([`0 ${bob.email}`, `0 ${carol.email}`].sort());
    for (const member of [bob, carol]) expect((await workflowMailTo(member.email)).filter((mail) => mail.subject.startsWith(subject))).toHaveLength(1);
    // Sent: out of the due index.
    const raw = await rawItem(tenant.organization.id, tenant.library.id, co.id, 1);
    expect(raw).not.toHaveProperty('GSI1PK');
    expect(raw).not.toHaveProperty('GSI1SK');
    expect(await inDueIndex(co.id)).toBe(false);
  });

  it('an item SES keeps refusing ends failed after its last attempt, out of the due index, with a log line naming the order and library; the operator lists it and, the cause fixed, resends it', {
    timeout: 120_000,
  }, async () => {
    await sesRefuses(bob.email, 1000);
    const co = await submittedOrder('Refused review', [bob]);
    const item = await eventually(
      () => outboxItem(co, 1),
      (found) => !!found?.failedAt,
      'the review request marked failed',
    );
    await sesRefuses(bob.email, 0);
    expect(item).toMatchObject({ attempts: 4, sentAt: null, nextAttemptAt: null, leasedUntil: null, sentTo: [] });
    expect(item!.lastError).toContain('fault injected');
    const raw = await rawItem(tenant.organization.id, tenant.library.id, co.id, 1);
    expect(raw).toMatchObject({ GSI1PK: 'MAILFAILED', GSI1SK: `${item!.failedAt}#${co.id}#1` });
    expect(await inDueIndex(co.id)).toBe(false);
    const subject = `Review requested: ${co.number}`;
    expect((await workflowMailTo(bob.email)).filter((mail) => mail.subject.startsWith(subject))).toHaveLength(0);
    const logged = await eventually(
      async () =>
        (await readFile(stack.logFile, 'utf8'))
          .split('\n')
          .filter((line) => line.includes('change order mails failed') && line.includes(co.id))
          .map((line) => JSON.parse(line.slice(line.indexOf('{')))),
      (lines) => lines.length > 0,
      'the failure logged',
    );
    expect(logged).toEqual([expect.objectContaining({ level: 'ERROR', changeOrderId: co.id, number: co.number, libraryId: tenant.library.id, organizationId: tenant.organization.id, attempts: 4 })]);

    // What the operator does: lists the failed mails, and (SES working again) resends them.
    const listed = JSON.parse((await adminCli(['mails', 'failed'])).stdout) as { failed: { changeOrderId: string }[] };
    expect(listed.failed.find((failed) => failed.changeOrderId === co.id)).toEqual({
      organizationId: tenant.organization.id,
      libraryId: tenant.library.id,
      changeOrderId: co.id,
      number: co.number,
      rev: 1,
      subjects: [expect.stringMatching(new RegExp(`^${subject}`))],
      sentCount: 0,
      attempts: 4,
      failedAt: item!.failedAt,
      lastError: item!.lastError,
    });
    expect(JSON.parse((await adminCli(['mails', 'resend', '--change-order-id', co.id])).stdout)).toEqual({ resent: 1 });
    const resent = await eventually(
      () => outboxItem(co, 1),
      (found) => !!found?.sentAt,
      'the resent review request marked sent',
    );
    expect(resent).toMatchObject({ attempts: 5, attemptBase: 4, failedAt: null, sentTo: [`0 ${bob.email}`] });
    expect((await workflowMailTo(bob.email)).filter((mail) => mail.subject.startsWith(subject))).toHaveLength(1);
    expect(await rawItem(tenant.organization.id, tenant.library.id, co.id, 1)).not.toHaveProperty('GSI1PK');
    expect((JSON.parse((await adminCli(['mails', 'failed'])).stdout) as { failed: { changeOrderId: string }[] }).failed.map((failed) => failed.changeOrderId)).not.toContain(co.id);
  });

  it('a draft deleted while its mail waits for a retry takes the unsent mail with it; a sent one stays to its TTL', { timeout: 120_000 }, async () => {
    const part = await createComponent(tenant, { name: 'Deleted draft part', categoryId: 'mechanical' });
    const co = (
      await ok(alice.headers, `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${fields} } } }`, {
        input: { name: 'Deleted draft', templateId: 'default-one-stage', componentIds: [part.id], values: { reason: 'x' } },
      })
    ).changeOrders.create as { id: string; number: string };
    // Its created mail, still waiting (due in an hour), and an earlier one that went.
    const store = testStore();
    const order = { id: co.id, number: co.number, organizationId: tenant.organization.id, libraryId: tenant.library.id, createdBy: alice.userId, resolution: null, components: [], componentCount: 0 };
    const later = new Date(Date.now() + 60 * 60_000).toISOString();
    for (const rev of [101, 102]) {
      const key = changeOrderMailKey(order.organizationId, order.libraryId, co.id, rev);
      await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
      const mail = { to: [`draft-${rev}-${co.id.slice(0, 8)}@outbox.test`], userIds: [], subject: `${co.number} created: Deleted draft`, lines: ['x'], summary: false };
      await transactWrite(store, [changeOrderMailPut({ changeOrderId: co.id, rev, order, mails: [mail], createdAt: new Date().toISOString(), nextAttemptAt: later })]);
    }
    await store.ddb.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: changeOrderMailKey(order.organizationId, order.libraryId, co.id, 101),
        UpdateExpression: 'SET sentAt = :at',
        ExpressionAttributeValues: { ':at': new Date().toISOString() },
      }),
    );
    expect(await ok(alice.headers, 'mutation($id: ID!) { changeOrders { delete(id: $id) } }', { id: co.id })).toEqual({ changeOrders: { delete: true } });
    expect(await rawItem(order.organizationId, order.libraryId, co.id, 102)).toBeUndefined();
    expect(await rawItem(order.organizationId, order.libraryId, co.id, 101)).toMatchObject({ entity: 'ChangeOrderMail' });
  });

  it('a reviewer removed from the organization before the send is not told: the retry sends to the others only', { timeout: 120_000 }, async () => {
    // dave's sends are refused until he is no longer a member; erin's goes at once.
    const [dave, erin] = await Promise.all([memberWithRole(tenant, 'REVIEWER'), memberWithRole(tenant, 'REVIEWER')]);
    await sesRefuses(dave.email, 1000);
    const co = await submittedOrder('Reviewer who left', [dave, erin]);
    await ok(tenantHeaders(tenant), 'mutation($u: String!) { organization { membership { removeOrgRole(userId: $u) } } }', { u: dave.userId });
    const item = await eventually(
      () => outboxItem(co, 1),
      (found) => !!found?.sentAt || !!found?.failedAt,
      'the review request settled',
    );
    expect(item).toMatchObject({ failedAt: null, sentTo: [`0 ${erin.email}`] });
    expect(item!.sentAt).not.toBeNull();
    const subject = `Review requested: ${co.number}`;
    expect((await workflowMailTo(dave.email)).filter((mail) => mail.subject.startsWith(subject))).toHaveLength(0);
    expect((await workflowMailTo(erin.email)).filter((mail) => mail.subject.startsWith(subject))).toHaveLength(1);
  });
});

describe('concurrent sweeps of the local stack', () => {
  it.each([
    ['send each address of each due item once: one claim wins per item', false],
    ['and the stream, handed the same items at the same time, sends none of them a second time', true],
  ])('%s', { timeout: 120_000 }, async (_, viaStream) => {
    const store = testStore();
    const organizationId = randomUUID();
    const libraryId = randomUUID();
    const now = new Date();
    const orders = Array.from({ length: 8 }, (_, index) => sweptOrder(organizationId, libraryId, 90_000 + index));
    const addressesOf = (order: { id: string }) => Array.from({ length: 4 }, (_, index) => `sweep-${index}-${order.id.slice(0, 8)}@outbox.test`);
    for (const order of orders) {
      // Written over a placeholder, the stream says MODIFY and leaves it to the sweeps; else its INSERT goes to
      // the jobs function too, racing the sweeps. Due at once.
      const key = changeOrderMailKey(organizationId, libraryId, order.id, 1);
      if (!viaStream) await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
      const mail = { to: addressesOf(order), userIds: [], subject: `${order.number} created: Swept`, lines: ['Swept.'], summary: false };
      await transactWrite(store, [changeOrderMailPut({ changeOrderId: order.id, rev: 1, order, mails: [mail], createdAt: now.toISOString(), nextAttemptAt: now.toISOString() })]);
    }
    const items = await eventually(
      () => Promise.all(orders.map((order) => getChangeOrderMail(store, organizationId, libraryId, order.id, 1))),
      (found) => found.every((item) => item?.sentAt),
      'every item marked sent',
    );
    // Three sweeps at a time (and the stream) found each item; exactly one claimed it.
    expect(items.map((item) => item!.attempts)).toEqual(orders.map(() => 1));
    for (const order of orders) {
      for (const address of addressesOf(order)) expect((await mailTo(address)).map((mail) => mail.subject)).toEqual([`${order.number} created: Swept`]);
    }
  });

  it('takes sent items out of the due index (a build before it left their keys), and a page of them does not hold up an unsent one behind', { timeout: 120_000 }, async () => {
    const store = testStore();
    const [organizationId, libraryId] = [randomUUID(), randomUUID()];
    const longAgo = Date.now() - 60 * 60_000;
    // 30 items sent by an older sender, still keyed in the due index an hour ago, then one unsent due now.
    const stale = Array.from({ length: 30 }, (_, index) => sweptOrder(organizationId, libraryId, 80_000 + index));
    for (const [index, order] of stale.entries()) {
      const at = new Date(longAgo + index).toISOString();
      const mail = { to: [`stale-${index}@outbox.test`], userIds: [], subject: `${order.number} created: Stale`, lines: ['Stale.'], summary: false };
      const put = changeOrderMailPut({ changeOrderId: order.id, rev: 1, order, mails: [mail], createdAt: at, nextAttemptAt: at }) as { Put: { Item: Record<string, unknown> } };
      await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...put.Put.Item, sentAt: at } }));
    }
    const order = sweptOrder(organizationId, libraryId, 80_099);
    const address = `behind-${order.id.slice(0, 8)}@outbox.test`;
    const key = changeOrderMailKey(organizationId, libraryId, order.id, 1);
    await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
    const now = new Date().toISOString();
    const mail = { to: [address], userIds: [], subject: `${order.number} created: Behind`, lines: ['Behind.'], summary: false };
    await transactWrite(store, [changeOrderMailPut({ changeOrderId: order.id, rev: 1, order, mails: [mail], createdAt: now, nextAttemptAt: now })]);
    await eventually(
      () => getChangeOrderMail(store, organizationId, libraryId, order.id, 1),
      (found) => !!found?.sentAt,
      'the unsent item behind the stale ones marked sent',
    );
    expect((await mailTo(address)).map((sent) => sent.subject)).toEqual([`${order.number} created: Behind`]);
    for (const staleOrder of stale) {
      const raw = await rawItem(organizationId, libraryId, staleOrder.id, 1);
      expect(raw).not.toHaveProperty('GSI1PK');
      expect(raw!.attempts).toBe(0);
    }
    // Sent items are never sent again.
    for (let index = 0; index < stale.length; index++) expect(await mailTo(`stale-${index}@outbox.test`)).toEqual([]);
  });

  it('sends one mail to one mailbox however its address is written, and none to one already sent in another case', { timeout: 120_000 }, async () => {
    const store = testStore();
    const order = sweptOrder(randomUUID(), randomUUID(), 80_097);
    const tag = order.id.slice(0, 8);
    const [twice, done] = [`Case-${tag}@Outbox.test`, `done-${tag}@outbox.test`];
    const key = changeOrderMailKey(order.organizationId, order.libraryId, order.id, 1);
    await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
    const at = new Date().toISOString();
    const mail = { to: [twice, twice.toLowerCase(), done], userIds: [], subject: `${order.number} created: Cases`, lines: ['Cases.'], summary: false };
    const put = changeOrderMailPut({ changeOrderId: order.id, rev: 1, order, mails: [mail], createdAt: at, nextAttemptAt: at }) as { Put: { Item: Record<string, unknown> } };
    // `done` went at an earlier attempt, recorded as written then.
    await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...put.Put.Item, sentTo: new Set([`0 ${done.toUpperCase()}`]) } }));
    const item = await eventually(
      () => getChangeOrderMail(store, order.organizationId, order.libraryId, order.id, 1),
      (found) => !!found?.sentAt,
      'the item marked sent',
    );
    expect(item!.sentTo.sort()).toEqual([`0 ${done.toUpperCase()}`, `0 ${twice}`].sort());
    const to = async (address: string) => (await (await fetch(`${stack.baseUrl}/_local/mail?to=${encodeURIComponent(address)}`)).json()) as { to: string[]; subject: string }[];
    expect((await to(twice)).map((sent) => sent.subject)).toEqual([`${order.number} created: Cases`]);
    expect(await to(done)).toEqual([]);
  });

  it("an operator's resend does not put back an item a late sender finished after it failed", async () => {
    const store = testStore();
    const order = sweptOrder(randomUUID(), randomUUID(), 80_098);
    const at = new Date().toISOString();
    const mail = { to: [`late-${order.id.slice(0, 8)}@outbox.test`], userIds: [], subject: `${order.number} created: Late`, lines: ['Late.'], summary: false };
    const put = changeOrderMailPut({ changeOrderId: order.id, rev: 1, order, mails: [mail], createdAt: at, nextAttemptAt: at }) as { Put: { Item: Record<string, unknown> } };
    const key = changeOrderMailKey(order.organizationId, order.libraryId, order.id, 1);
    await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
    // Failed for good as `mails failed` read it, then sent by a sender whose lease had run out.
    const failed = { ...put.Put.Item, attempts: 12, failedAt: at, GSI1PK: 'MAILFAILED', GSI1SK: `${at}#${order.id}#1` };
    await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: failed }));
    const read = (await getChangeOrderMail(store, order.organizationId, order.libraryId, order.id, 1))!;
    expect(read.failedAt).toBe(at);
    await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...failed, sentAt: new Date().toISOString() } }));
    expect(await resendChangeOrderMail(store, read, new Date().toISOString())).toBe(false);
    expect(await rawItem(order.organizationId, order.libraryId, order.id, 1)).toMatchObject({ GSI1PK: 'MAILFAILED', failedAt: at });
  });
});

describe('npm run admin -- mails backfill: outbox items written before the due index', () => {
  it('puts unsent ones in the due index (a dry run only counts), the sweep sends each exactly once, and a second run changes nothing; sent and expired ones are left alone', {
    timeout: 180_000,
  }, async () => {
    const store = testStore();
    // A tenant of its own: the command reads its libraries' outboxes (--org-slug), not the whole shared table.
    const own = await newTenant();
    const [organizationId, libraryId] = [own.organization.id, own.library.id];
    const backfill = (...more: string[]) => adminCli(['mails', 'backfill', '--org-slug', own.organization.slug, ...more]);
    const hourAgo = new Date(Date.now() - 60 * 60_000).toISOString();
    const weekAgo = new Date(Date.now() - 8 * 24 * 60 * 60_000).toISOString();
    const [unsent, sent, expired] = [70_001, 70_002, 70_003].map((index) => sweptOrder(organizationId, libraryId, index)) as [
      ReturnType<typeof sweptOrder>,
      ReturnType<typeof sweptOrder>,
      ReturnType<typeof sweptOrder>,
    ];
    const addressOf = (order: { id: string }) => `backfill-${order.id.slice(0, 8)}@outbox.test`;
    for (const [order, createdAt, sentAt] of [
      [unsent, hourAgo, null],
      [sent, hourAgo, hourAgo],
      [expired, weekAgo, null],
    ] as const) {
      const mail = { to: [addressOf(order)], userIds: [], subject: `${order.number} created: Backfill`, lines: ['Backfill.'], summary: false };
      // Over a placeholder: the stream sees a MODIFY and leaves it alone, as it left an old item it had failed to send.
      const key = changeOrderMailKey(organizationId, libraryId, order.id, 1);
      await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
      await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...preIndexChangeOrderMailItem({ changeOrderId: order.id, rev: 1, order, mails: [mail], createdAt }), sentAt } }));
    }
    const raw = (order: { id: string }) => rawItem(organizationId, libraryId, order.id, 1);
    const before = await raw(unsent);
    expect(before).not.toHaveProperty('GSI1PK');
    expect(before).not.toHaveProperty('attempts');

    const dry = await backfill('--dry-run');
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, pages: 1, found: 1, expired: 1, indexed: 0, changed: 0 });
    expect(dry.stderr).toMatch(/mails backfill: page 1, 2 items read/);
    expect(await raw(unsent)).toEqual(before);

    const run = JSON.parse((await backfill()).stdout);
    expect(run).toMatchObject({ dryRun: false, found: 1, expired: 1, indexed: 1, changed: 0 });
    const item = await eventually(
      () => getChangeOrderMail(store, organizationId, libraryId, unsent.id, 1),
      (found) => !!found?.sentAt,
      'the backfilled item sent by the sweep',
    );
    expect(item).toMatchObject({ attempts: 1, sentTo: [`0 ${addressOf(unsent)}`] });
    expect(await raw(unsent)).not.toHaveProperty('GSI1PK');
    // The sent one and the expired one were not put in the index, and nothing went to them.
    for (const order of [sent, expired]) {
      expect(await raw(order)).not.toHaveProperty('GSI1PK');
      expect(await mailTo(addressOf(order))).toEqual([]);
    }

    // Again: nothing left to do for these items; the sent one is not sent a second time.
    const after = await raw(unsent);
    expect(JSON.parse((await backfill()).stdout)).toMatchObject({ found: 0, indexed: 0 });
    expect(await raw(unsent)).toEqual(after);
    expect((await mailTo(addressOf(unsent))).map((mail) => mail.subject)).toEqual([`${unsent.number} created: Backfill`]);
    for (const order of [sent, expired]) expect(await raw(order)).not.toHaveProperty('GSI1PK');
  });
});
