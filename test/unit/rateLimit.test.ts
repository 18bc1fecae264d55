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

  it('tells when a refused client may come back: the retry is served then, and refused two seconds before', () => {
    const windowSeconds = rateWindowMs / 1000;
    /** The decision for one more request `seconds` after a moment with these counts, as the counter would see it. */
    const retryAt = (counts: { current: number; previous: number }, elapsed: number, seconds: number) => {
      const at = elapsed * windowSeconds + seconds;
      const windowsLater = Math.floor(at / windowSeconds);
      const shifted = windowsLater === 0 ? counts : { current: 0, previous: windowsLater === 1 ? counts.current : 0 };
      return rateDecision(slidingCount({ ...shifted, current: shifted.current + 1 }, (at % windowSeconds) / windowSeconds), 10);
    };
    for (const [counts, elapsed] of [
      [{ current: 60, previous: 0 }, 0.5],
      [{ current: 100, previous: 0 }, 0.1],
      [{ current: 20, previous: 40 }, 0],
      [{ current: 5, previous: 90 }, 0.3],
    ] as const) {
      expect(rateDecision(slidingCount(counts, elapsed), 10)).toBe('refuse');
      const wait = retryAfterSeconds(counts, elapsed, 30);
      expect(retryAt(counts, elapsed, wait), `${JSON.stringify(counts)} after ${wait} s`).not.toBe('refuse');
      expect(retryAt(counts, elapsed, wait - 2), `${JSON.stringify(counts)} after ${wait - 2} s`).toBe('refuse');
    }
    // 60 in this window, half of it gone: the other half, then until 60 fades to 29 (the retry makes 30).
    expect(retryAfterSeconds({ current: 60, previous: 0 }, 0.5, 30)).toBe(Math.ceil((0.5 + (1 - 29 / 60)) * windowSeconds) + 1);
    // Past the moment already: the margin alone.
    expect(retryAfterSeconds({ current: 20, previous: 40 }, 0.9, 30)).toBe(1);
  });
});
