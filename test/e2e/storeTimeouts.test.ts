import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, request, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { changeOrderMailKey, changeOrderMailPut, claimChangeOrderMail, getChangeOrderMail } from '../../lib/store/changeOrderMail.js';
import { createStore, deployedStoreTimeouts, type Store } from '../../lib/store/client.js';
import { transactWrite } from '../../lib/store/items.js';
import { stack, testStore } from '../support/api.js';

/**
 * The deployed DynamoDB client's timeouts (lib/store/client.ts), exercised with the deployed settings against
 * servers that stall: one that never answers, and a proxy in front of DynamoDB Local that lets a write
 * through but loses its answer (a half-open connection after the write applied), so the SDK's retry meets
 * the write's own result (lib/store/README.md, "Timeouts and retried writes").
 */

const servers: { close(): void }[] = [];
const stores: Store[] = [];
afterAll(() => {
  for (const store of stores) store.ddb.destroy();
  for (const server of servers) server.close();
});

/** A client built with the deployed settings, pointed at `endpoint`. */
function deployedClient(endpoint: string): Store {
  const store = createStore({ DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: stack.tableName, AWS_REGION: 'us-east-1' }, { timeouts: deployedStoreTimeouts });
  stores.push(store);
  return store;
}

const listening = (server: Server | ReturnType<typeof createTcpServer>) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

const bodyOf = (message: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });

/**
 * Forwards every call to DynamoDB Local; the first call of `operation` reaches it (and applies) but its
 * answer never comes back. Records the bodies of that operation's calls.
 */
async function losingProxy(operation: string): Promise<{ endpoint: string; bodies: Record<string, unknown>[] }> {
  const target = new URL(stack.dynamodbEndpoint);
  const bodies: Record<string, unknown>[] = [];
  const server = createHttpServer(async (incoming, outgoing) => {
    const body = await bodyOf(incoming);
    const isOperation = incoming.headers['x-amz-target'] === `DynamoDB_20120810.${operation}`;
    if (isOperation) bodies.push(JSON.parse(body.toString('utf8')));
    const lose = isOperation && bodies.length === 1;
    const forwarded = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, async (answer) => {
      const answerBody = await bodyOf(answer);
      if (lose) return; // Applied; the answer is lost on the way back.
      outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
      outgoing.end(answerBody);
    });
    forwarded.end(body);
  });
  servers.push(server);
  return { endpoint: `http://127.0.0.1:${await listening(server)}`, bodies };
}

describe('the deployed DynamoDB client against a stalled connection', () => {
  it('a server that accepts the connection and never answers: the call fails with a TimeoutError after its attempts, it does not hang', { timeout: 60_000 }, async () => {
    let connections = 0;
    const server = createTcpServer((socket) => {
      connections += 1;
      socket.on('data', () => {}); // Reads the request, never answers.
      socket.on('error', () => {});
    });
    servers.push(server);
    const store = deployedClient(`http://127.0.0.1:${await listening(server)}`);
    const error = await store.ddb.send(new GetCommand({ TableName: stack.tableName, Key: { PK: 'nothing', SK: 'nothing' } })).then(
      () => expect.fail('answered'),
      (failure: { name: string; $metadata?: { attempts?: number } }) => failure,
    );
    expect(error.name).toBe('TimeoutError');
    expect(error.$metadata?.attempts).toBe(deployedStoreTimeouts.maxAttempts);
    // Each attempt on a connection of its own: the stalled one is closed, not reused.
    expect(connections).toBe(deployedStoreTimeouts.maxAttempts);
  });

  it('a transaction whose answer was lost is sent again with the same ClientRequestToken and succeeds: its conditional put is not refused as already existing', { timeout: 60_000 }, async () => {
    const proxy = await losingProxy('TransactWriteItems');
    const store = deployedClient(proxy.endpoint);
    const key = { PK: `TIMEOUTTEST#${randomUUID()}`, SK: 'ITEM' };
    await transactWrite(store, [{ Put: { Item: { ...key, entity: 'TimeoutTest' }, ConditionExpression: 'attribute_not_exists(PK)' }, onConditionFailed: () => new Error('already exists') }]);
    // The lost answer, then the retry (a third attempt when DynamoDB Local under load answers the retry late too).
    expect(proxy.bodies.length).toBeGreaterThanOrEqual(2);
    const tokens = proxy.bodies.map((body) => body.ClientRequestToken);
    expect(typeof tokens[0]).toBe('string');
    expect(new Set(tokens)).toEqual(new Set([tokens[0]]));
    const { Item } = await testStore().ddb.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }));
    expect(Item).toMatchObject({ entity: 'TimeoutTest' });
  });

  it("a change order mail claim whose answer was lost stands: the retry finds the claim's own id instead of reporting another sender's claim", { timeout: 60_000 }, async () => {
    const proxy = await losingProxy('UpdateItem');
    const store = deployedClient(proxy.endpoint);
    const order = { id: randomUUID(), number: 'CO-070001', organizationId: randomUUID(), libraryId: randomUUID(), createdBy: randomUUID(), resolution: null, components: [], componentCount: 0 };
    const at = new Date();
    const key = changeOrderMailKey(order.organizationId, order.libraryId, order.id, 1);
    // Over a placeholder: a MODIFY, which the stream leaves alone. Due in a day, so no sweep claims it first.
    await testStore().ddb.send(new PutCommand({ TableName: stack.tableName, Item: { ...key, entity: 'OutboxTestPlaceholder' } }));
    const later = new Date(at.getTime() + 24 * 60 * 60_000).toISOString();
    const mail = { to: [`lost-${order.id.slice(0, 8)}@outbox.test`], userIds: [], subject: 'Lost answer', lines: ['Lost.'], summary: false };
    const put = changeOrderMailPut({ changeOrderId: order.id, rev: 1, order, mails: [mail], createdAt: at.toISOString(), nextAttemptAt: later }) as { Put: { Item: Record<string, unknown> } };
    await testStore().ddb.send(new PutCommand({ TableName: stack.tableName, Item: put.Put.Item }));
    const read = (await getChangeOrderMail(testStore(), order.organizationId, order.libraryId, order.id, 1))!;
    const lease = new Date(at.getTime() + 5 * 60_000).toISOString();
    const claimed = await claimChangeOrderMail(store, read, at.toISOString(), lease);
    expect(proxy.bodies.length).toBeGreaterThanOrEqual(2);
    expect(claimed).toMatchObject({ attempts: 1, leasedUntil: lease, lastAttemptAt: at.toISOString() });
  });
});
