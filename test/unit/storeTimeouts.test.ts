import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { sesTimeouts } from '../../lib/mail/ses.js';
import { deployedStoreTimeouts, localStoreTimeouts, worstCaseCallMs } from '../../lib/store/client.js';
import { appliedByEarlierAttempt, samePut } from '../../lib/store/items.js';

/** A failed condition as the SDK throws it: after `attempts` attempts, with the old item when asked for. */
function conditionFailed(attempts: number, old?: Record<string, unknown>) {
  const error = new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { attempts } });
  if (old) error.Item = marshall(old, { convertClassInstanceToMap: false });
  return error;
}

describe('DynamoDB client timeouts (lib/store/client.ts)', () => {
  it('the deployed client gives a request 3 s (AWS: 1 s or more), its socket a little less, and 4 attempts; the local one is long enough for a busy DynamoDB Local', () => {
    expect(deployedStoreTimeouts).toEqual({ connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, socketTimeoutMs: 2_500, maxAttempts: 4 });
    expect(deployedStoreTimeouts.socketTimeoutMs).toBeLessThan(deployedStoreTimeouts.requestTimeoutMs);
    expect(localStoreTimeouts.requestTimeoutMs).toBeGreaterThan(deployedStoreTimeouts.requestTimeoutMs);
  });

  it('bounds one call: every attempt to its request and socket timeouts, every wait to throttling backoff plus a Retry-After hint', () => {
    expect(worstCaseCallMs(deployedStoreTimeouts)).toBe(4 * 5_500 + (1_000 + 2_000 + 4_000) + 3 * 5_000);
    expect(worstCaseCallMs(sesTimeouts)).toBe(3 * 15_000 + (1_000 + 2_000) + 2 * 5_000);
    // Within the API functions' 29 s only for a stall; the bound includes throttling at every attempt.
    expect(worstCaseCallMs({ connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, socketTimeoutMs: 0, maxAttempts: 1 })).toBe(3_000);
  });
});

describe('a conditional write that finds its own earlier attempt (lib/store/items.ts)', () => {
  const mine = { PK: 'P', SK: 'S', holder: 'me', tags: new Set(['a']), count: 2 };
  const isMine = (old: Record<string, unknown>) => old.holder === 'me';

  it('counts as applied only on a retried attempt whose old item the write recognizes', () => {
    expect(appliedByEarlierAttempt(conditionFailed(2, mine), isMine)).toBe(true);
    // The first attempt's condition failure is real, whatever the item holds.
    expect(appliedByEarlierAttempt(conditionFailed(1, mine), isMine)).toBe(false);
    // Another writer's item, no old item returned, no recognizer, or not a condition failure.
    expect(appliedByEarlierAttempt(conditionFailed(3, { ...mine, holder: 'other' }), isMine)).toBe(false);
    expect(appliedByEarlierAttempt(conditionFailed(3), isMine)).toBe(false);
    expect(appliedByEarlierAttempt(conditionFailed(3, mine), undefined)).toBe(false);
    expect(appliedByEarlierAttempt(Object.assign(new Error('timeout'), { name: 'TimeoutError', $metadata: { attempts: 4 } }), isMine)).toBe(false);
  });

  it('a put of a new item recognizes exactly the item it puts, as DynamoDB returns it', () => {
    const put = samePut({ ...mine, gone: undefined });
    expect(appliedByEarlierAttempt(conditionFailed(2, mine), put)).toBe(true);
    expect(appliedByEarlierAttempt(conditionFailed(2, { ...mine, count: 3 }), put)).toBe(false);
    expect(appliedByEarlierAttempt(conditionFailed(2, { ...mine, extra: 1 }), put)).toBe(false);
  });
});
