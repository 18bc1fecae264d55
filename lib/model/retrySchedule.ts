/**
 * What the retried deliveries of this service (webhook deliveries, lib/webhooks/delivery.ts; change order
 * mails, lib/changeOrders/mailRetry.ts) share: their settings read from the environment, and the wait
 * before the next attempt.
 */

/** A positive number from an environment variable, or `fallback` when it is absent or not one. */
export function positiveSetting(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}

/**
 * The wait after the `attempt`-th failed attempt (1 for the first): `baseMs`, doubling with each attempt,
 * at most `maxMs`, then up to 20 % more at random (`random` in [0, 1)) so a backlog does not come back at once.
 */
export function retryWaitMs(baseMs: number, attempt: number, maxMs = Number.POSITIVE_INFINITY, random: () => number = Math.random): number {
  return Math.min(baseMs * 2 ** (Math.max(attempt, 1) - 1), maxMs) * (1 + random() * 0.2);
}
