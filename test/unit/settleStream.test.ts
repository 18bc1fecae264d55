import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { committedWriteStreamFilter } from '../../lib/items/settleStream.js';
import { pendingWriteOfItem } from '../../lib/store/pendingWrite.js';
import { changedItemOf } from '../../lib/store/stream.js';
import { matchesStreamFilter } from '../../lib/transfer/jobStream.js';

/** The stream filter that hands a large release's commit to the jobs function (lib/items/settleStream.ts), as Lambda and the local poller apply it. */
const writeId = '6f1c2a52-2b0e-4a36-9a8e-3f7c1b2d4e5f';
const item = (status: string, extra: Record<string, unknown> = {}) =>
  marshall({ PK: 'ORG#o1#LIB#l1', SK: `WRITE#${writeId}`, entity: 'PendingWrite', writeId, status, settleOn: 'STREAM', settledAt: null, ...extra });
const record = (eventName: string, oldImage: Record<string, unknown> | undefined, newImage: Record<string, unknown> | undefined) => ({
  eventID: '1',
  eventName,
  dynamodb: { OldImage: oldImage, NewImage: newImage },
});

describe('the commit of a write settled from the stream', () => {
  it('matches the change PENDING -> COMMITTED of a record that says settleOn STREAM, and names its library and write', () => {
    const commit = record('MODIFY', item('PENDING'), item('COMMITTED'));
    expect(matchesStreamFilter(committedWriteStreamFilter, commit)).toBe(true);
    expect(pendingWriteOfItem(changedItemOf(commit)?.newImage)).toEqual({ orgId: 'o1', libraryId: 'l1', writeId });
  });

  it('matches nothing else: the settling itself (COMMITTED before and after), an abort, the insert, a write settled in its request', () => {
    const settledNow = record('MODIFY', item('COMMITTED'), item('COMMITTED', { settledAt: '2026-01-01T00:00:00.000Z' }));
    expect(matchesStreamFilter(committedWriteStreamFilter, settledNow)).toBe(false);
    expect(matchesStreamFilter(committedWriteStreamFilter, record('MODIFY', item('PENDING'), item('ABORTED')))).toBe(false);
    expect(matchesStreamFilter(committedWriteStreamFilter, record('INSERT', undefined, item('PENDING')))).toBe(false);
    expect(matchesStreamFilter(committedWriteStreamFilter, record('MODIFY', item('PENDING', { settleOn: 'REQUEST' }), item('COMMITTED', { settleOn: 'REQUEST' })))).toBe(false);
    // A record written before settleOn existed reads as settled in its request.
    const { settleOn: _old, ...legacyOld } = item('PENDING');
    const { settleOn: _new, ...legacyNew } = item('COMMITTED');
    expect(matchesStreamFilter(committedWriteStreamFilter, record('MODIFY', legacyOld, legacyNew))).toBe(false);
  });

  it('reads no library out of another item', () => {
    expect(pendingWriteOfItem({ PK: 'ORG#o1#LIB#l1', SK: 'C#x', entity: 'Component', writeId })).toBeUndefined();
    expect(pendingWriteOfItem(undefined)).toBeUndefined();
  });
});
