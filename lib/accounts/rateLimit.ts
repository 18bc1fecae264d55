import { AccountError, RateLimitedError, RequestAbortedError } from '../errors.js';
import { currentMeter, newMeter, withMeter } from '../store/meter.js';
import { countRequest } from '../store/account.js';
import type { Store } from '../store/client.js';

/** Requests per client IP per window, by route (spec: signup 10 and verification 20 per 10 minutes). */
export const routeBudgets = {
  signup: 10,
  'verify-email': 20,
  signin: 30,
  token: 30,
  signout: 60,
  'password-reset': 10,
  /** SAML sign-in: the start and callback routes together. */
  sso: 60,
} as const;
export type RateLimitedRoute = keyof typeof routeBudgets;

export const rateWindowMs = 10 * 60 * 1000;
/** Past the budget requests are slowed; past this multiple of it they are refused (429 AUTH_RATE_LIMITED). */
export const refuseAtMultiple = 3;
/** Delay added per request over the budget, up to the cap. */
export const slowdownStepMs = 100;
export const slowdownCapMs = 2000;

/**
 * The requests of the last 10 minutes, estimated from two fixed windows (a sliding window): all of the
 * current window's and the part of the previous window's that the sliding window still covers, assuming
 * they were spread evenly. Unlike a fixed window, a burst across a window boundary is not counted afresh.
 */
export function slidingCount(counts: { current: number; previous: number }, elapsedFraction: number): number {
  return counts.current + counts.previous * (1 - elapsedFraction);
}

/** What a request's count over the last 10 minutes means: go on, go on after a delay, or stop. */
export function rateDecision(count: number, budget: number): { delayMs: number } | 'refuse' {
  if (count > budget * refuseAtMultiple) return 'refuse';
  if (count <= budget) return { delayMs: 0 };
  return { delayMs: Math.min(slowdownCapMs, Math.ceil((count - budget) * slowdownStepMs)) };
}

/**
 * Seconds until a retry would be served: until the sliding count, with no requests meanwhile, has fallen so
 * far that the retry itself (which counts) keeps it at the refusal threshold; rounded up, plus a second.
 */
export function retryAfterSeconds(counts: { current: number; previous: number }, elapsedFraction: number, threshold: number, windowMs = rateWindowMs): number {
  // The retry adds one request: the counts seen before it may reach threshold - 1.
  const room = threshold - 1;
  let waitFraction: number;
  if (counts.current >= room) {
    // The current window alone is over: wait for its end, then until its weight in the next one has faded.
    waitFraction = 1 - elapsedFraction + (1 - room / counts.current);
  } else {
    // previous * (1 - f) + current <= room  ⇔  f >= 1 - (room - current) / previous
    waitFraction = Math.max(0, 1 - (room - counts.current) / counts.previous - elapsedFraction);
  }
  // One second of margin: at the exact moment the count sits on the threshold, where rounding decides.
  return Math.max(1, Math.ceil((waitFraction * windowMs) / 1000) + 1);
}

/**
 * Counts the request against its IP's sliding window (counters in the table with TTL, so they hold across
 * Lambda instances) and slows or refuses it. Keyed on the client IP only, never on the account. Refused
 * requests count too: a client that keeps hammering stays refused.
 */
export async function applyRateLimit(store: Store, route: RateLimitedRoute, ip: string, now = Date.now()): Promise<void> {
  const windowIndex = Math.floor(now / rateWindowMs);
  const elapsedFraction = (now - windowIndex * rateWindowMs) / rateWindowMs;
  const counts = await countRequest(store, route, ip, windowIndex, rateWindowMs, now);
  const budget = routeBudgets[route];
  const decision = rateDecision(slidingCount(counts, elapsedFraction), budget);
  if (decision === 'refuse') {
    const retryAfter = retryAfterSeconds(counts, elapsedFraction, budget * refuseAtMultiple);
    throw new AccountError('AUTH_RATE_LIMITED', 429, 'Too many requests from this address: try again later', { retryAfterSeconds: retryAfter });
  }
  if (decision.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.delayMs));
}

// ---- per-caller limits of the GraphQL API and SCIM ------------------------------------------------------

/**
 * Requests per caller (an API key, a signed-in user, a SCIM token), across all Lambda instances: a
 * sustained rate over a sliding minute and a burst over a sliding 10 seconds. Past either, 429
 * RATE_LIMITED with Retry-After. Far above what an integration does in normal use (README, "Limits");
 * PLM_RATE_LIMIT_PER_MINUTE and PLM_RATE_LIMIT_BURST change them (tests lower them).
 */
export interface CallerRateLimits {
  perMinute: number;
  /** Requests per burstWindowMs. */
  burst: number;
}

export const defaultCallerRateLimits: CallerRateLimits = { perMinute: 1_200, burst: 300 };
export const callerMinuteMs = 60_000;
export const callerBurstWindowMs = 10_000;

export function callerRateLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): CallerRateLimits {
  const positive = (value: string | undefined, fallback: number) => (value && Number.isInteger(Number(value)) && Number(value) > 0 ? Number(value) : fallback);
  return {
    perMinute: positive(env.PLM_RATE_LIMIT_PER_MINUTE, defaultCallerRateLimits.perMinute),
    burst: positive(env.PLM_RATE_LIMIT_BURST, defaultCallerRateLimits.burst),
  };
}

/** The counter key of a caller: `apikey:<id>`, `user:<id>` or `scim:<token hash prefix>`. */
export type CallerRateKey = `${'apikey' | 'user' | 'scim'}:${string}`;

/**
 * Counts the request against the caller's two sliding windows (the account routes' counters: one
 * UpdateItem each, in parallel, items with TTL) and refuses it with RateLimitedError past either limit.
 * The counters' cost is metered apart from the request's (CapacityMeter.rateLimit). Refused requests
 * count too, as on the account routes. Answers the share of its limit the caller has used (the larger of
 * the two windows', at most 1 when admitted).
 */
export async function applyCallerRateLimit(store: Store, key: CallerRateKey, limits: CallerRateLimits, now = Date.now()): Promise<number> {
  const windows = [
    { bucket: 'api-minute', limit: limits.perMinute, windowMs: callerMinuteMs },
    { bucket: 'api-burst', limit: limits.burst, windowMs: callerBurstWindowMs },
  ];
  const own = newMeter();
  const outer = currentMeter();
  const counted = await withMeter(own, () =>
    Promise.all(
      windows.map(async (window) => {
        const windowIndex = Math.floor(now / window.windowMs);
        const elapsedFraction = (now - windowIndex * window.windowMs) / window.windowMs;
        const counts = await countRequest(store, window.bucket, key, windowIndex, window.windowMs, now);
        return { ...window, counts, elapsedFraction, count: slidingCount(counts, elapsedFraction) };
      }),
    ),
  );
  if (outer) outer.rateLimit = own;
  const over = counted.filter((window) => window.count > window.limit);
  if (over.length === 0) return Math.max(...counted.map((window) => window.count / window.limit));
  const waits = over.map((window) => ({ window, wait: retryAfterSeconds(window.counts, window.elapsedFraction, window.limit, window.windowMs) }));
  const longest = waits.reduce((a, b) => (b.wait > a.wait ? b : a));
  throw new RateLimitedError(longest.wait, { limit: longest.window.limit, windowSeconds: longest.window.windowMs / 1000 });
}

/**
 * Requests of one caller that a process runs at once; the others wait their turn in order (they are not
 * refused: the rate limit does that), and a waiting request whose client goes away leaves the queue. A
 * Lambda instance runs one request at a time, so there it never waits; in a process that serves many
 * requests (the local stack) it keeps one caller's burst of heavy queries from taking every turn of the
 * event loop and of DynamoDB from the others. PLM_CALLER_CONCURRENCY changes it (default 1).
 */
export class CallerConcurrency {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(readonly perCaller: number) {}

  static fromEnv(env: NodeJS.ProcessEnv = process.env): CallerConcurrency {
    const value = Number(env.PLM_CALLER_CONCURRENCY);
    return new CallerConcurrency(Number.isInteger(value) && value > 0 ? value : 1);
  }

  /** Waits for a turn of `key`; the returned function ends it (calling it again does nothing). */
  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    if ((this.running.get(key) ?? 0) >= this.perCaller) {
      await new Promise<void>((resolve, reject) => {
        const queue = this.waiting.get(key) ?? [];
        this.waiting.set(key, queue);
        const turn = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          queue.splice(queue.indexOf(turn), 1);
          if (queue.length === 0) this.waiting.delete(key);
          reject(new RequestAbortedError());
        };
        queue.push(turn);
        signal?.addEventListener('abort', leave, { once: true });
      });
    } else {
      this.running.set(key, (this.running.get(key) ?? 0) + 1);
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.get(key)?.shift();
      if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
      // The turn passes on to the next waiting request of the caller, or is given back.
      if (next) next();
      else if ((this.running.get(key) ?? 1) <= 1) this.running.delete(key);
      else this.running.set(key, this.running.get(key)! - 1);
    };
  }
}
