import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { changeOrderMailStreamFilter } from '../../lib/changeOrders/mailStream.js';
import { maxReleaseInOneCommit } from '../../lib/changeOrders/release.js';
import { maxLocksInOneTransaction, maxTransactionItems } from '../../lib/changeOrders/step.js';
import { changeOrderMailOfItem, changeOrderMailPut } from '../../lib/store/changeOrderMail.js';
import { changedItemOf } from '../../lib/store/stream.js';
import { matchesStreamFilter } from '../../lib/transfer/jobStream.js';

/** The stream filter that hands a change order action's mails to the jobs function (lib/changeOrders/mailStream.ts), as Lambda and the local poller apply it. */
const order = {
  id: '6f1c2a52-2b0e-4a36-9a8e-3f7c1b2d4e5f',
  number: 'CO-000001',
  organizationId: 'o1',
  libraryId: 'l1',
  createdBy: 'u1',
  resolution: null,
  components: [{ componentId: 'c1', fromRevision: 'A', toRevision: null }],
  componentCount: 1,
};
const mail = { to: ['buyer@supplier.example'], userIds: ['u2'], subject: 'CO-000001 created: x', lines: ['line'] };
const outboxItem = (extra: Record<string, unknown> = {}) => {
  const put = changeOrderMailPut({ changeOrderId: order.id, rev: 3, order, mails: [mail], createdAt: '2026-01-01T00:00:00.000Z' }).Put!.Item!;
  return marshall({ ...put, ...extra }, { removeUndefinedValues: true });
};
const record = (eventName: string, oldImage: Record<string, unknown> | undefined, newImage: Record<string, unknown> | undefined) => ({
  eventID: '1',
  eventName,
  dynamodb: { OldImage: oldImage, NewImage: newImage },
});

describe('the mails of a change order action, from the stream', () => {
  it('matches the INSERT of an outbox item, keyed by the order and the revision, and reads it back', () => {
    const insert = record('INSERT', undefined, outboxItem());
    expect(matchesStreamFilter(changeOrderMailStreamFilter, insert)).toBe(true);
    const image = changedItemOf(insert)?.newImage;
    expect(image).toMatchObject({ PK: 'ORG#o1#LIB#l1', SK: `MAILOUT#${order.id}#3`, expiresAt: Date.parse('2026-01-08T00:00:00.000Z') / 1000 });
    expect(changeOrderMailOfItem(image)).toMatchObject({ changeOrderId: order.id, rev: 3, order, mails: [mail], sentTo: [], sentAt: null });
  });

  it("matches nothing else: the sender's own progress (MODIFY), the item's expiry (REMOVE), another entity's INSERT", () => {
    const sent = outboxItem({ sentTo: new Set(['0 buyer@supplier.example']) });
    expect(matchesStreamFilter(changeOrderMailStreamFilter, record('MODIFY', outboxItem(), sent))).toBe(false);
    expect(matchesStreamFilter(changeOrderMailStreamFilter, record('REMOVE', sent, undefined))).toBe(false);
    expect(matchesStreamFilter(changeOrderMailStreamFilter, record('INSERT', undefined, marshall({ PK: 'ORG#o1#LIB#l1', SK: `CO#${order.id}`, entity: 'ChangeOrder' })))).toBe(false);
    expect(changeOrderMailOfItem({ PK: 'ORG#o1#LIB#l1', SK: `CO#${order.id}`, entity: 'ChangeOrder' })).toBeUndefined();
  });

  it('reads the progress a redelivery skips (a string set)', () => {
    const image = changedItemOf(record('MODIFY', undefined, outboxItem({ sentTo: new Set(['0 buyer@supplier.example']) })))?.newImage;
    expect(changeOrderMailOfItem(image)?.sentTo).toEqual(['0 buyer@supplier.example']);
  });

  it('leaves room for the outbox item in the transactions that carry it', () => {
    // A release in one commit: the order, the outbox item, the commit record and one item per component.
    expect(maxReleaseInOneCommit + 3).toBeLessThanOrEqual(maxTransactionItems);
    // A submit, reject, withdrawal or reset with its locks: the order, the outbox item and one lock per component.
    expect(maxLocksInOneTransaction + 2).toBeLessThanOrEqual(maxTransactionItems);
  });
});
