import { describe, expect, it } from 'vitest';
import { firstAttemptAt, isLeased, leaseUntil, mailRetrySettings, mayStartSend, nextAttemptAfterFailure, sendReserveMs } from '../../lib/changeOrders/mailRetry.js';
import { changeOrderMailPut } from '../../lib/store/changeOrderMail.js';

/** When unsent change order mails are tried again (lib/changeOrders/mailRetry.ts). */
const settings = mailRetrySettings({});
const at = new Date('2026-01-01T00:00:00.000Z');
const plus = (ms: number) => new Date(at.getTime() + ms).toISOString();
const noJitter = () => 0;

describe('change order mail retries', () => {
  it('defaults: first due 5 minutes after the item was written, retries from a minute doubling to at most an hour, 12 attempts, a 5 minute lease', () => {
    expect(settings).toEqual({ firstAttemptDelayMs: 300_000, retryBaseMs: 60_000, maxRetryDelayMs: 3_600_000, maxAttempts: 12, leaseMs: 300_000 });
    expect(firstAttemptAt(settings, at.toISOString())).toBe(plus(300_000));
  });

  it('reads its environment, and ignores what is not a positive number', () => {
    const env = {
      CHANGE_ORDER_MAIL_FIRST_ATTEMPT_MS: '1500',
      CHANGE_ORDER_MAIL_RETRY_BASE_MS: '400',
      CHANGE_ORDER_MAIL_MAX_ATTEMPTS: '4.7',
      CHANGE_ORDER_MAIL_LEASE_MS: '-1',
      CHANGE_ORDER_MAIL_MAX_RETRY_DELAY_MS: 'x',
    };
    expect(mailRetrySettings(env)).toEqual({ firstAttemptDelayMs: 1500, retryBaseMs: 400, maxRetryDelayMs: 3_600_000, maxAttempts: 4, leaseMs: 300_000 });
  });

  it('backs off exponentially after each failed attempt, capped, and gives up after the last allowed one', () => {
    const waits = Array.from({ length: 11 }, (_, index) => Date.parse(nextAttemptAfterFailure(settings, index + 1, at, noJitter)!) - at.getTime());
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60, 60, 60].map((minutes) => minutes * 60_000));
    expect(nextAttemptAfterFailure(settings, 12, at, noJitter)).toBeNull();
    expect(nextAttemptAfterFailure(settings, 13, at, noJitter)).toBeNull();
    // Up to 20 % later at random.
    expect(nextAttemptAfterFailure(settings, 3, at, () => 0.5)).toBe(plus(4 * 60_000 * 1.1));
    expect(Date.parse(nextAttemptAfterFailure(settings, 7, at, () => 0.999999)!) - at.getTime()).toBeLessThan(60 * 60_000 * 1.2);
  });

  it('a sender starts no send once the rest of its lease is shorter than the worst case of a send and its store writes (146 s), nor in its last fifth; another sender sees the item held until the lease ends', () => {
    const lease = leaseUntil(settings, at);
    expect(lease).toBe(plus(300_000));
    // SES 58 s (3 x (10 + 5) + 1 + 2 + 2 x 5) and two DynamoDB calls of 44 s (4 x (3 + 2.5) + 1 + 2 + 4 + 3 x 5).
    expect(sendReserveMs).toBe(146_000);
    expect(sendReserveMs).toBeLessThan(settings.leaseMs);
    expect(mayStartSend(settings, lease, new Date(at.getTime() + 153_999))).toBe(true);
    expect(mayStartSend(settings, lease, new Date(at.getTime() + 154_000))).toBe(false);
    // A longer lease keeps its last fifth.
    const long = { ...settings, leaseMs: 1_000_000 };
    expect(mayStartSend(long, leaseUntil(long, at), new Date(at.getTime() + 799_999))).toBe(true);
    expect(mayStartSend(long, leaseUntil(long, at), new Date(at.getTime() + 800_000))).toBe(false);
    expect(isLeased(lease, new Date(at.getTime() + 299_999))).toBe(true);
    expect(isLeased(lease, new Date(at.getTime() + 300_000))).toBe(false);
    expect(isLeased(null, at)).toBe(false);
  });

  it('an outbox item is written into the due index, at the time its writer says (5 minutes after it was written otherwise)', () => {
    const order = { id: 'co1', number: 'CO-000001', organizationId: 'o1', libraryId: 'l1', createdBy: 'u1', resolution: null, components: [], componentCount: 0 };
    const put = (nextAttemptAt?: string) => changeOrderMailPut({ changeOrderId: 'co1', rev: 2, order, mails: [], createdAt: at.toISOString(), ...(nextAttemptAt ? { nextAttemptAt } : {}) }).Put!.Item!;
    expect(put()).toMatchObject({ GSI1PK: 'MAILRETRY', GSI1SK: `${plus(300_000)}#co1#2`, attempts: 0, nextAttemptAt: plus(300_000), sentAt: null, failedAt: null });
    expect(put(plus(1500))).toMatchObject({ GSI1SK: `${plus(1500)}#co1#2`, nextAttemptAt: plus(1500) });
  });
});
