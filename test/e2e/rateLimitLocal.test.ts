import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { applyCallerRateLimit, callerMinuteMs, type CallerRateKey, localBatch, newCallerTallies } from '../../lib/accounts/rateLimit.js';
import { RateLimitedError } from '../../lib/errors.js';
import { testStore } from '../support/api.js';

/**
 * Issue 25, item 4: an instance counts a caller far below its limits on its own and writes the sum to the
 * table every `localBatch` requests (lib/accounts/rateLimit.ts). The documented bound: the table lags by at
 * most `localBatch - 1` requests per instance, so a caller that crosses its limit gets at most that many
 * more through each instance before every instance refuses it. Several instances are several tallies over
 * the stack's real table; every call is made at one fixed moment (mid-minute), so the sliding counts are
 * exact and nothing depends on the clock.
 */
const limits = { perMinute: 60, burst: 100_000 };
const moment = Math.floor(Date.now() / callerMinuteMs) * callerMinuteMs + 30_000;

async function admitted(tallies: ReturnType<typeof newCallerTallies>, key: CallerRateKey): Promise<boolean> {
  try {
    await applyCallerRateLimit(testStore(), key, limits, moment, tallies);
    return true;
  } catch (error) {
    if (error instanceof RateLimitedError) return false;
    throw error;
  }
}

async function tableCount(key: CallerRateKey): Promise<number> {
  const item = await testStore().ddb.send(new GetCommand({ TableName: testStore().tableName, Key: { PK: `RATE#api#${key}`, SK: 'RATE' } }));
  return Number(item.Item?.[`m${Math.floor(moment / callerMinuteMs)}`] ?? 0);
}

describe('per-caller rate limits counted in the instance', () => {
  it('far below the limits, writes the count every localBatch requests: the table lags by less than localBatch', async () => {
    const key: CallerRateKey = `apikey:local-${randomUUID()}`;
    const instance = newCallerTallies();
    for (let sent = 1; sent <= 2 * localBatch + 3; sent += 1) {
      expect(await admitted(instance, key)).toBe(true);
      const written = await tableCount(key);
      expect(written).toBeLessThanOrEqual(sent);
      expect(sent - written).toBeLessThan(localBatch);
    }
    // Fewer writes than requests: some were counted here only.
    expect(await tableCount(key)).toBeLessThan(2 * localBatch + 3);
  });

  it('one instance refuses exactly past the limit, also when the requests come all at once', async () => {
    for (const concurrent of [false, true]) {
      const key: CallerRateKey = `apikey:local-${randomUUID()}`;
      const instance = newCallerTallies();
      const results: boolean[] = [];
      if (concurrent) results.push(...(await Promise.all(Array.from({ length: 100 }, () => admitted(instance, key)))));
      else for (let i = 0; i < 100; i += 1) results.push(await admitted(instance, key));
      expect(results.filter(Boolean), concurrent ? 'at once' : 'one by one').toHaveLength(limits.perMinute);
      if (!concurrent) expect(results.indexOf(false)).toBe(limits.perMinute);
      // Near and past the limit every request is written.
      expect(await tableCount(key)).toBe(100);
    }
  });

  it('a caller crossing its limit through three instances is refused by each within localBatch - 1 requests past it', async () => {
    const key: CallerRateKey = `apikey:local-${randomUUID()}`;
    const instances = [newCallerTallies(), newCallerTallies(), newCallerTallies()];
    const results: boolean[][] = [[], [], []];
    for (let i = 0; i < 240; i += 1) results[i % 3]!.push(await admitted(instances[i % 3]!, key));
    const total = results.flat().filter(Boolean).length;
    // The table never counts more than was sent: nothing is refused before the limit.
    expect(total).toBeGreaterThanOrEqual(limits.perMinute);
    // The documented bound: at most localBatch - 1 past the limit per instance.
    expect(total).toBeLessThanOrEqual(limits.perMinute + instances.length * (localBatch - 1));
    for (const [i, own] of results.entries()) {
      // Once refused, an instance refuses every request after (refusals count; near the limit each is written).
      const first = own.indexOf(false);
      expect(first, `instance ${i}`).toBeGreaterThan(0);
      expect(
        own.slice(first).every((ok) => !ok),
        `instance ${i}`,
      ).toBe(true);
    }
  });
});
