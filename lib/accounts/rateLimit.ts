import { AccountError } from '../errors.js';
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
} as const;
export type RateLimitedRoute = keyof typeof routeBudgets;

export const rateWindowMs = 10 * 60 * 1000;
/** Past the budget requests are slowed; past this multiple of it they are refused (429 AUTH_RATE_LIMITED). */
export const refuseAtMultiple = 3;
/** Delay added per request over the budget, up to the cap. */
export const slowdownStepMs = 100;
export const slowdownCapMs = 2000;

/** What a request's count in its window means: go on, go on after a delay, or stop. */
export function rateDecision(count: number, budget: number): { delayMs: number } | 'refuse' {
  if (count > budget * refuseAtMultiple) return 'refuse';
  if (count <= budget) return { delayMs: 0 };
  return { delayMs: Math.min(slowdownCapMs, (count - budget) * slowdownStepMs) };
}

/**
 * Counts the request against its IP's window (a counter item in the table with TTL, so it holds across
 * Lambda instances) and slows or refuses it. Keyed on the client IP only, never on the account.
 */
export async function applyRateLimit(store: Store, route: RateLimitedRoute, ip: string, now = Date.now()): Promise<void> {
  const windowStart = Math.floor(now / rateWindowMs) * rateWindowMs;
  const count = await countRequest(store, route, ip, windowStart, rateWindowMs);
  const decision = rateDecision(count, routeBudgets[route]);
  if (decision === 'refuse') {
    const retryAfter = Math.ceil((windowStart + rateWindowMs - now) / 1000);
    throw new AccountError('AUTH_RATE_LIMITED', 429, 'Too many requests from this address: try again later', { retryAfterSeconds: retryAfter });
  }
  if (decision.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.delayMs));
}
