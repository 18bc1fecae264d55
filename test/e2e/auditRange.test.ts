import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEntryItem, entrySk, sealAuditChain, verifyAuditChain, type AuditOperation } from '../../lib/store/audit.js';
import { testStore } from '../support/api.js';

/**
 * A range of the audit chain verified by time (`audit verify --from/--to`). Entries get their place in the
 * chain when they are linked (sealAuditChain, from the stream), not by their time: an entry written with an
 * earlier time (its transaction was slower, or the pending index showed it late) is linked after one written
 * later. The chain here is built so: P, B, A, C linked in that order, A's time between P's and B's.
 */
const organizationId = randomUUID();
const chainPk = `ORG#${organizationId}#AUDIT`;
const base = Date.now() - 60_000;
const at = (ms: number) => new Date(base + ms).toISOString();
const operation: AuditOperation = { organizationId, actor: { type: 'operator', id: 'range-test' }, operation: 'test.range', targets: [], summary: 'range test' };
const entries: Record<string, Record<string, unknown>> = {};

/** An entry as putAuditEntry writes it, with the time given: pending until sealed. */
async function writeAndLink(name: string, ms: number): Promise<void> {
  const item = auditEntryItem(operation, 'SUCCESS');
  const SK = entrySk(at(ms), item.entryId as string);
  entries[name] = { ...item, at: at(ms), SK, GSI1SK: SK, expiresAt: Math.floor((base + ms) / 1000) + 400 * 86_400 };
  await testStore().ddb.send(new PutCommand({ TableName: testStore().tableName, Item: entries[name], ConditionExpression: 'attribute_not_exists(PK)' }));
  // Linked before the next one is written (the stream's sealer may get there first: either way, in this order).
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await sealAuditChain(testStore(), chainPk);
    const { Item } = await testStore().ddb.send(new GetCommand({ TableName: testStore().tableName, Key: { PK: chainPk, SK }, ConsistentRead: true }));
    if (Item?.seq !== undefined) {
      entries[name] = Item;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`entry ${name} was never linked`);
}

beforeAll(async () => {
  await writeAndLink('P', 0);
  await writeAndLink('B', 20);
  await writeAndLink('A', 10);
  await writeAndLink('C', 30);
});

describe('audit verify over a range', () => {
  it('links entries in the order they were sealed, not by time', () => {
    expect(['P', 'B', 'A', 'C'].map((name) => entries[name]!.seq)).toEqual([1, 2, 3, 4]);
  });

  it('holds over the whole chain and over ranges whose bounds cut between an entry and its chain neighbours', async () => {
    expect(await verifyAuditChain(testStore(), chainPk)).toMatchObject({ ok: true, checked: 4 });
    // From after A's time: B (2) and C (4) are in range, A (3) is not; nothing was removed.
    expect(await verifyAuditChain(testStore(), chainPk, { from: at(15) })).toMatchObject({ ok: true, pending: 0 });
    // Up to before B's time: P (1) and A (3) are in range, B (2) is not.
    expect(await verifyAuditChain(testStore(), chainPk, { to: at(15) })).toMatchObject({ ok: true });
    expect(await verifyAuditChain(testStore(), chainPk, { from: at(5), to: at(25) })).toMatchObject({ ok: true });
  });

  it('still names the entry after one removed outside the range, when the range depends on it', async () => {
    const removed = entries.A!;
    await testStore().ddb.send(new DeleteCommand({ TableName: testStore().tableName, Key: { PK: removed.PK, SK: removed.SK } }));
    try {
      const result = await verifyAuditChain(testStore(), chainPk, { from: at(15) });
      expect(result).toMatchObject({ ok: false, firstBad: { entryId: entries.C!.entryId, seq: 4, problem: 'REMOVED_BEFORE' } });
    } finally {
      await testStore().ddb.send(new PutCommand({ TableName: testStore().tableName, Item: removed }));
    }
    expect(await verifyAuditChain(testStore(), chainPk, { from: at(15) })).toMatchObject({ ok: true });
  });
});
