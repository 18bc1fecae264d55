import { describe, expect, it } from 'vitest';
import { rateDecision, rateWindowMs, retryAfterSeconds, slidingCount } from '../../lib/accounts/rateLimit.js';

describe('account route rate limits (sliding window over two fixed windows)', () => {
  it('counts the current window and the fading share of the previous one', () => {
    expect(slidingCount({ current: 7, previous: 0 }, 0.9)).toBe(7);
    expect(slidingCount({ current: 2, previous: 40 }, 0)).toBe(42);
    expect(slidingCount({ current: 2, previous: 40 }, 0.25)).toBe(32);
    expect(slidingCount({ current: 2, previous: 40 }, 1)).toBe(2);
  });

  it('goes on within the budget, slows past it, and refuses past three times it', () => {
    expect(rateDecision(10, 10)).toEqual({ delayMs: 0 });
    expect(rateDecision(11, 10)).toEqual({ delayMs: 100 });
    expect(rateDecision(10.5, 10)).toEqual({ delayMs: 50 });
    expect(rateDecision(30, 10)).toEqual({ delayMs: 2000 });
    expect(rateDecision(30.01, 10)).toBe('refuse');
  });

  it('a burst that crosses a window boundary is not served afresh', () => {
    // 100 requests just before the boundary, then the next one just after it.
    const justAfter = slidingCount({ current: 1, previous: 100 }, 0.001);
    expect(rateDecision(justAfter, 10)).toBe('refuse');
  });

  it('tells when a refused client may come back', () => {
    const minutes = rateWindowMs / 60_000;
    // 60 in this window, half of it gone: wait the other half, then until 60 fades to 30 (another half).
    expect(retryAfterSeconds({ current: 60, previous: 0 }, 0.5, 30)).toBe(minutes * 60);
    // 20 now and 40 before, at the start: 40 * (1 - f) + 20 <= 30 from f = 0.75.
    expect(retryAfterSeconds({ current: 20, previous: 40 }, 0, 30)).toBe(0.75 * minutes * 60);
    // Never less than a second.
    expect(retryAfterSeconds({ current: 20, previous: 40 }, 0.75, 30)).toBe(1);
  });
});
