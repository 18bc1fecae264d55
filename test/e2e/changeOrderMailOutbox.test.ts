import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localOutbox, type OutboundMail } from '../../lib/mail/mailer.js';
import { changeOrderMailKey, changeOrderMailPut, getChangeOrderMail } from '../../lib/store/changeOrderMail.js';
import { createStore, type Store } from '../../lib/store/client.js';
import { transactWrite } from '../../lib/store/items.js';
import { graphql, newTenant, ok, stack, testStore, type Tenant } from '../support/api.js';
import { eventually } from '../support/webhooks.js';
import { memberWithRole, workflowMailAfter, workflowMailTo, type Member } from './accessHelpers.js';
import { createComponent } from './componentHelpers.js';

/**
 * Change order mails leave the request path: an action writes them as one outbox item in its own transaction
 * (lib/changeOrders/notifications.ts), and the jobs function sends them from the stream's INSERT of it.
 */

describe('the change order mail outbox: the jobs function handed the same stream record twice', () => {
  // The jobs function loaded in this process (as Lambda loads it), on the stack's table; the item is written
  // over a placeholder, so the stream says MODIFY and the stack's own poller leaves it alone: this test is the
  // only one that hands its INSERT to a jobs function. (A second table would do, but a table created in
  // DynamoDB Local while the stack runs stalls the stack's stream reader.)
  let store: Store;
  let handler: typeof import('../../functions/jobs/handler.js')['handler'];
  const send = localOutbox.send;

  beforeAll(async () => {
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
      TABLE_NAME: stack.tableName,
      AWS_REGION: 'us-east-1',
      MAIL_TRANSPORT: 'outbox',
      APP_URL: 'http://app.test',
    });
    store = createStore();
    ({ handler } = await import('../../functions/jobs/handler.js'));
  });
  afterEach(() => {
    localOutbox.send = send;
  });

  it('sends each address once: a redelivery after a failed send sends only what did not go, and one after all went sends nothing', async () => {
    const order = {
      id: randomUUID(),
      number: 'CO-000042',
      organizationId: randomUUID(),
      libraryId: randomUUID(),
      createdBy: randomUUID(),
      resolution: null,
      components: [],
      componentCount: 0,
    };
    const addresses = ['first@outbox.test', 'second@outbox.test', 'third@outbox.test'];
    const mail = { to: addresses, userIds: [], subject: `${order.number} created: Outbox`, lines: ['Change order CO-000042 "Outbox" was created with 0 component(s).'], summary: false };
    const key = changeOrderMailKey(order.organizationId, order.libraryId, order.id, 0);
    await store.ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
    // Written as an action writes it: one item of a transaction.
    await transactWrite(store, [changeOrderMailPut({ changeOrderId: order.id, rev: 0, order, mails: [mail], createdAt: new Date().toISOString() })]);
    const { Item } = await store.ddb.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }));
    // The stream record of the INSERT, as Lambda hands it (the same record each time: a redelivery).
    const record = { eventID: randomUUID(), eventName: 'INSERT', eventSource: 'aws:dynamodb', dynamodb: { Keys: marshall(key), NewImage: marshall(Item!) } };
    const event = { Records: [record] } as never;
    const sentTo = (address: string) => localOutbox.sent.filter((m) => m.to.includes(address) && m.subject === mail.subject);

    // The first delivery: the second address fails (SES refused it for a moment); the others go.
    localOutbox.send = async (outbound: OutboundMail) => {
      if (outbound.to.includes(addresses[1]!)) throw new Error('SES throttled this send');
      return send.call(localOutbox, outbound);
    };
    await expect(handler(event)).rejects.toThrow('SES throttled this send');
    expect(addresses.map((a) => sentTo(a).length)).toEqual([1, 0, 1]);
    expect((await getChangeOrderMail(store, order.organizationId, order.libraryId, order.id, 0))!.sentTo.sort()).toEqual([`0 ${addresses[0]}`, `0 ${addresses[2]}`]);

    // The mapping retries the same record: only the address that did not go is sent.
    localOutbox.send = send;
    expect(await handler(event)).toMatchObject({ mails: [{ changeOrderId: order.id, rev: 0, sent: 1 }] });
    expect(addresses.map((a) => sentTo(a).length)).toEqual([1, 1, 1]);
    expect((await getChangeOrderMail(store, order.organizationId, order.libraryId, order.id, 0))!.sentAt).not.toBeNull();

    // Delivered once more after everything went: nothing is sent again.
    expect(await handler(event)).toMatchObject({ mails: [{ changeOrderId: order.id, rev: 0, sent: 0 }] });
    expect(addresses.map((a) => sentTo(a).length)).toEqual([1, 1, 1]);
    // The mail as the action wrote it, with its link to the order.
    expect(sentTo(addresses[1]!)[0]!.text).toBe([...mail.lines, '', `Open: http://app.test/change-orders/${order.id}`].join('\n'));
  });
});

describe('the change order mail outbox on the local stack', () => {
  let tenant: Tenant;
  let alice: Member;
  let bob: Member;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    [alice, bob] = await Promise.all([memberWithRole(tenant, 'EDITOR'), memberWithRole(tenant, 'REVIEWER')]);
  });

  const fields = 'id number status';
  const action = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { ${fields} } } }`;

  it('an approval whose transaction fails sends nothing; the approval that commits sends its mail once', { timeout: 120_000 }, async () => {
    const part = await createComponent(tenant, { name: 'Outbox part', categoryId: 'mechanical' });
    const co = (
      await ok(alice.headers, `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${fields} } } }`, {
        input: { name: 'Outbox release', templateId: 'default-one-stage', componentIds: [part.id], values: { reason: 'Outbox' }, stages: [{ index: 0, reviewerIds: [bob.userId] }] },
      })
    ).changeOrders.create;
    await ok(alice.headers, action('submit'), { id: co.id });
    await workflowMailAfter(bob.email, `Review requested: ${co.number}`);
    // The release transaction fails (at its last component write): the action did not commit.
    const failed = await graphql(action('approve'), { id: co.id }, { ...bob.headers, 'x-plm-fault': 'change-order-release-fails' });
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('VERSION_CONFLICT');
    const approved = `${co.number} approved: Outbox release`;
    expect((await ok(bob.headers, action('approve'), { id: co.id })).changeOrders.approve.status).toBe('CLOSED');
    await workflowMailAfter(alice.email, approved);
    // Mails go in the order of their commits; the committed approval's went, and a failed one would have gone before it.
    expect((await workflowMailTo(alice.email)).filter((m) => m.subject === approved)).toHaveLength(1);
    expect((await workflowMailTo(bob.email)).filter((m) => m.subject.startsWith(`Review requested: ${co.number}`))).toHaveLength(1);
    // The outbox items: the submit's (revision 1) and the approval's (revision 2), each marked sent.
    const outbox = () => Promise.all([1, 2].map((rev) => getChangeOrderMail(testStore(), tenant.organization.id, tenant.library.id, co.id, rev)));
    const items = await eventually(outbox, (found) => found.every((item) => item?.sentAt), 'the outbox items marked sent');
    expect(items.map((item) => [item?.mails[0]?.subject, !!item?.sentAt])).toEqual([
      [`Review requested: ${co.number} Outbox release (Review)`, true],
      [approved, true],
    ]);
  });
});
