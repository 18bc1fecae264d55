import { RateLimitedError, RequestAbortedError } from '../errors.js';
import { AccountError } from './errors.js';
import { currentMeter, newMeter, withMeter } from '../store/meter.js';
import type { Store } from '../store/client.js';

/**
 * The counters' store code (lib/store/account.ts, with lib/store's item code and zod) loads with the first
 * count, not when a function imports this module: the GraphQL function's cold start (issue 25) reads the
 * limits from the environment at import and counts only once a caller is known.
 */
let accountStore: Promise<typeof import('../store/account.js')> | undefined;
const loadAccountStore = () => (accountStore ??= import('../store/account.js'));

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
  const { countRequest } = await loadAccountStore();
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
 * Requests an instance counts on its own before it writes them to the table (below): it writes at the latest
 * with the `localBatch`-th, so the table is at most `localBatch - 1` requests behind per instance and caller.
 */
export const localBatch = 10;
/** A caller is counted in the instance only while each window, counting the request, stays below this share of its limit. */
export const localBelow = 0.5;

/**
 * What this instance knows of a caller: the counts its last write to the table answered (in the windows of
 * that moment), and the requests it has admitted since without writing them ("pending", by window).
 */
interface CallerTally {
  minuteIndex: number;
  burstIndex: number;
  /** The table's counts at the last write: [minute, burst]. */
  counts: { current: number; previous: number }[];
  /** Requests admitted here and not yet written, by `<minute index>:<burst index>`. */
  pending: Map<string, { minuteIndex: number; burstIndex: number; count: number }>;
  /** Requests in writes under way (not yet in `counts`): part of the estimate, so that a burst of concurrent requests is not admitted here on a stale count. */
  writing: number;
}

/** What one instance (process) knows of its callers: one per process; tests make more to act as several instances. */
export type CallerTallies = Map<CallerRateKey, CallerTally>;
export const newCallerTallies = (): CallerTallies => new Map();
const processTallies = newCallerTallies();
const talliesKept = 10_000;

function pendingCount(tally: CallerTally): number {
  let sum = 0;
  for (const entry of tally.pending.values()) sum += entry.count;
  return sum;
}

/**
 * Counts the request against the caller's two sliding windows and refuses it with RateLimitedError past
 * either limit. Refused requests count too, as on the account routes. Answers the share of its limit the
 * caller has used (the larger of the two windows', at most 1 when admitted).
 *
 * The counts live in the table (one item per caller, both windows: countCallerRequests), so they hold across
 * Lambda instances. Writing every request costs one UpdateItem (about 4 ms on DynamoDB Local, more than the
 * GetItem of a simple query), so an instance counts a caller on its own while the caller is far below its
 * limits: when the last counts the table answered it, plus the requests it has admitted since, plus this one,
 * stay below `localBelow` of both limits, in the same windows (neither has turned since), and fewer than
 * `localBatch` requests are unwritten, the request is admitted without a DynamoDB call. Otherwise the request
 * is written with all the unwritten ones (one UpdateItem) and decided on the table's counts, as before. So:
 * near a limit (at half of it or more, as this instance last saw it) every request is counted in the table
 * and the 429 is exact; the table lags the true count by at most `localBatch - 1` requests per instance
 * serving the caller, which is also the most a caller another instance has pushed over its limit gets
 * through this one before it is refused. In one process (the local stack) nothing is lost: the local
 * counts are part of the estimate. The counters' cost is metered apart from the request's
 * (CapacityMeter.rateLimit; zero when counted here).
 */
export async function applyCallerRateLimit(store: Store, key: CallerRateKey, limits: CallerRateLimits, now = Date.now(), tallies = processTallies): Promise<number> {
  const windows = [
    { prefix: 'm', limit: limits.perMinute, windowMs: callerMinuteMs },
    { prefix: 'b', limit: limits.burst, windowMs: callerBurstWindowMs },
  ].map((window) => {
    const index = Math.floor(now / window.windowMs);
    return { ...window, index, elapsedFraction: (now - index * window.windowMs) / window.windowMs };
  });
  const [minute, burst] = windows as [(typeof windows)[0], (typeof windows)[0]];
  const outer = currentMeter();
  const tally = tallies.get(key);
  // Counted here (synchronously: no other request of this process runs between the check and the count).
  if (tally && tally.minuteIndex === minute.index && tally.burstIndex === burst.index) {
    const unwritten = pendingCount(tally) + 1;
    if (unwritten < localBatch) {
      const load = Math.max(
        ...windows.map((window, w) => slidingCount({ current: tally.counts[w]!.current + tally.writing + unwritten, previous: tally.counts[w]!.previous }, window.elapsedFraction) / window.limit),
      );
      if (load < localBelow) {
        const slot = `${minute.index}:${burst.index}`;
        const entry = tally.pending.get(slot) ?? { minuteIndex: minute.index, burstIndex: burst.index, count: 0 };
        entry.count += 1;
        tally.pending.set(slot, entry);
        if (outer) outer.rateLimit = newMeter();
        return load;
      }
    }
  }
  // Written: this request and every unwritten one (those of windows two or more back no longer count).
  const drained = tally ? [...tally.pending.values()] : [];
  tally?.pending.clear();
  const writing = drained.reduce((total, entry) => total + entry.count, 1);
  if (tally) tally.writing += writing;
  const own = newMeter();
  let counts: { current: number; previous: number }[];
  try {
    const { countCallerRequests } = await loadAccountStore();
    counts = await withMeter(own, () =>
      countCallerRequests(
        store,
        key,
        windows.map((window) => {
          const indexOf = (entry: { minuteIndex: number; burstIndex: number }) => (window === minute ? entry.minuteIndex : entry.burstIndex);
          const sum = (back: number) => drained.filter((entry) => indexOf(entry) === window.index - back).reduce((total, entry) => total + entry.count, 0);
          return { prefix: window.prefix, windowMs: window.windowMs, index: window.index, add: 1 + sum(0), addPrevious: sum(1) };
        }),
        now,
      ),
    );
  } catch (error) {
    // Not written: they stay to be written with the next request.
    for (const entry of drained) {
      const slot = `${entry.minuteIndex}:${entry.burstIndex}`;
      const kept = tally!.pending.get(slot);
      if (kept) kept.count += entry.count;
      else tally!.pending.set(slot, entry);
    }
    throw error;
  } finally {
    if (tally) tally.writing -= writing;
    if (outer) outer.rateLimit = own;
  }
  remember(tallies, key, minute.index, burst.index, counts);
  const counted = windows.map((window, w) => ({ ...window, counts: counts[w]!, count: slidingCount(counts[w]!, window.elapsedFraction) }));
  const over = counted.filter((window) => window.count > window.limit);
  if (over.length === 0) return Math.max(...counted.map((window) => window.count / window.limit));
  const waits = over.map((window) => ({ window, wait: retryAfterSeconds(window.counts, window.elapsedFraction, window.limit, window.windowMs) }));
  const longest = waits.reduce((a, b) => (b.wait > a.wait ? b : a));
  throw new RateLimitedError(longest.wait, { limit: longest.window.limit, windowSeconds: longest.window.windowMs / 1000 });
}

/**
 * Keeps what the table answered for the caller (bounded: the least recently written callers are forgotten
 * first, their unwritten requests with them, at most `localBatch - 1` each). Requests admitted here while the
 * write was under way stay unwritten. Writes of one caller can answer out of order: an older window's answer,
 * never replaces a newer one, and of the same windows the larger count is kept.
 */
function remember(tallies: CallerTallies, key: CallerRateKey, minuteIndex: number, burstIndex: number, counts: { current: number; previous: number }[]): void {
  const tally = tallies.get(key);
  if (!tally) {
    tallies.set(key, { minuteIndex, burstIndex, counts, pending: new Map(), writing: 0 });
    if (tallies.size > talliesKept) tallies.delete(tallies.keys().next().value!);
    return;
  }
  tallies.delete(key);
  tallies.set(key, tally);
  if (minuteIndex === tally.minuteIndex && burstIndex === tally.burstIndex) {
    // A window's counts only grow: the larger of two answers is the later.
    tally.counts = counts.map((count, w) => ({ current: Math.max(count.current, tally.counts[w]!.current), previous: Math.max(count.previous, tally.counts[w]!.previous) }));
  } else if (minuteIndex >= tally.minuteIndex && burstIndex >= tally.burstIndex) {
    tally.minuteIndex = minuteIndex;
    tally.burstIndex = burstIndex;
    tally.counts = counts;
  }
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
