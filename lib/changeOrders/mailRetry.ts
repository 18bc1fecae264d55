import {
  defaultFirstAttemptDelayMs,
  failedChangeOrderMails,
  indexUnindexedChangeOrderMail,
  resendChangeOrderMail,
  unindexedChangeOrderMailsOfLibrary,
  unindexedChangeOrderMailsPage,
  type UnindexedChangeOrderMail,
} from '../store/changeOrderMail.js';
import { listLibraries } from '../store/library.js';
import { positiveSetting, retryWaitMs } from '../model/retrySchedule.js';
import { sesTimeouts } from '../mail/ses.js';
import { deployedStoreTimeouts, worstCaseCallMs, type Store } from '../store/client.js';

/**
 * When the mails of a change order action are tried again. The stream sends an outbox item at once (and the
 * event source mapping retries that twice); every item also waits in a due index (lib/store/changeOrderMail.ts)
 * from `firstAttemptDelayMs` after it was written, and a scheduled sweep (every minute; the local stack's
 * timer) sends the due ones. A failed attempt is due again after `retryBaseMs`, doubling with each attempt
 * (at most `maxRetryDelayMs`, up to 20 % later at random so a backlog does not come back at once); after
 * `maxAttempts` the item fails for good. Every sending holds a lease of `leaseMs` and starts no send in its
 * last fifth or its last `sendReserveMs`, whichever is longer, so a sender past its lease never overlaps the next.
 */
export interface MailRetrySettings {
  firstAttemptDelayMs: number;
  retryBaseMs: number;
  maxRetryDelayMs: number;
  /** Attempts per item, the stream's included. */
  maxAttempts: number;
  leaseMs: number;
}

/**
 * From the environment: CHANGE_ORDER_MAIL_FIRST_ATTEMPT_MS (default 5 minutes: the stream's own three
 * attempts take seconds), CHANGE_ORDER_MAIL_RETRY_BASE_MS (default 1 minute), CHANGE_ORDER_MAIL_MAX_RETRY_DELAY_MS
 * (default 1 hour), CHANGE_ORDER_MAIL_MAX_ATTEMPTS (default 12: about six hours of an SES outage),
 * CHANGE_ORDER_MAIL_LEASE_MS (default 5 minutes).
 */
export function mailRetrySettings(env: NodeJS.ProcessEnv = process.env): MailRetrySettings {
  return {
    firstAttemptDelayMs: positiveSetting(env.CHANGE_ORDER_MAIL_FIRST_ATTEMPT_MS, defaultFirstAttemptDelayMs),
    retryBaseMs: positiveSetting(env.CHANGE_ORDER_MAIL_RETRY_BASE_MS, 60_000),
    maxRetryDelayMs: positiveSetting(env.CHANGE_ORDER_MAIL_MAX_RETRY_DELAY_MS, 60 * 60_000),
    maxAttempts: Math.floor(positiveSetting(env.CHANGE_ORDER_MAIL_MAX_ATTEMPTS, 12)),
    leaseMs: positiveSetting(env.CHANGE_ORDER_MAIL_LEASE_MS, 5 * 60_000),
  };
}

/** When the sweep first may send an item written at `createdAt`. */
export function firstAttemptAt(settings: MailRetrySettings, createdAt: string): string {
  return new Date(Date.parse(createdAt) + settings.firstAttemptDelayMs).toISOString();
}

/**
 * After the `attempts`-th attempt failed at `at`: when the next is due, or null when that was the last
 * allowed one (the item fails for good). `random` in [0, 1) adds up to 20 % to the wait.
 */
export function nextAttemptAfterFailure(settings: MailRetrySettings, attempts: number, at: Date, random: () => number = Math.random): string | null {
  if (attempts >= settings.maxAttempts) return null;
  return new Date(at.getTime() + retryWaitMs(settings.retryBaseMs, attempts, settings.maxRetryDelayMs, random)).toISOString();
}

/** A claim made at `at` holds the item until then. */
export function leaseUntil(settings: MailRetrySettings, at: Date): string {
  return new Date(at.getTime() + settings.leaseMs).toISOString();
}

/**
 * The longest one send and its store writes can take in the deployed stack, once started: the SendEmail
 * (lib/mail/ses.ts: 58 s at worst), recording its address (one UpdateItem) and, after the last address,
 * recording the outcome (one UpdateItem), each DynamoDB call 44 s at worst (lib/store/client.ts):
 * 58 + 2 x 44 = 146 s. With the default lease of 5 minutes a sender starts sends for the first 154 s of it,
 * and what it started ends before the lease does, so the next claim never overlaps it (the sweep's own
 * 45 s budget and the jobs function's 15 minutes are beside the point: the lease is what the next claim reads).
 */
export const sendReserveMs = worstCaseCallMs(sesTimeouts) + 2 * worstCaseCallMs(deployedStoreTimeouts);

/** Whether a sender holding a lease until `leasedUntil` may still start a send at `now`: not in the lease's last fifth, nor in its last `sendReserveMs`. */
export function mayStartSend(settings: MailRetrySettings, leasedUntil: string, now: Date): boolean {
  return now.getTime() < Date.parse(leasedUntil) - Math.max(settings.leaseMs / 5, sendReserveMs);
}

/** Whether an item leased until `leasedUntil` (null: not leased) is held by another sender at `now`. */
export function isLeased(leasedUntil: string | null, now: Date): boolean {
  return leasedUntil !== null && Date.parse(leasedUntil) > now.getTime();
}

/** A failed item as an operator sees it (`npm run admin -- mails failed`): whose, which mails, why; no addresses. */
export interface FailedChangeOrderMail {
  organizationId: string;
  libraryId: string;
  changeOrderId: string;
  number: string;
  rev: number;
  subjects: string[];
  /** Addresses that did go before it failed. */
  sentCount: number;
  attempts: number;
  failedAt: string;
  lastError: string | null;
}

/** Every item that failed for good and is not expired yet (a week after its action), newest first. */
export async function listFailedChangeOrderMails(store: Store): Promise<FailedChangeOrderMail[]> {
  return (await failedChangeOrderMails(store)).map((item) => ({
    organizationId: item.order.organizationId,
    libraryId: item.order.libraryId,
    changeOrderId: item.changeOrderId,
    number: item.order.number,
    rev: item.rev,
    subjects: item.mails.map((mail) => mail.subject),
    sentCount: item.sentTo.length,
    attempts: item.attempts - item.attemptBase,
    failedAt: item.failedAt!,
    lastError: item.lastError,
  }));
}

/**
 * After the cause is fixed: the failed items (all, or one change order's) back in the due index now, each
 * with a full set of attempts; the next sweep (within a minute) sends what did not go. Returns how many.
 */
export async function resendFailedChangeOrderMails(store: Store, options: { changeOrderId?: string | undefined } = {}, now = new Date()): Promise<number> {
  const failed = (await failedChangeOrderMails(store)).filter((item) => !options.changeOrderId || item.changeOrderId === options.changeOrderId);
  const resent = await Promise.all(failed.map((item) => resendChangeOrderMail(store, item, now.toISOString())));
  return resent.filter(Boolean).length;
}

/** What `npm run admin -- mails backfill` found and did (one summary line; a progress line per page on stderr). */
export interface MailBackfillResult {
  dryRun: boolean;
  /** Pages read and items read (the whole table, once). */
  pages: number;
  scanned: number;
  /** Unsent outbox items without index keys (written before the due index), not expired. */
  found: number;
  /** Of those, put in the due index now (none in a dry run). */
  indexed: number;
  /** Of those, left alone because they changed between the read and the write (claimed or sent by the stream meanwhile). */
  changed: number;
  /** Unindexed and unsent, but past their week: left to their TTL, no mail goes a week late. */
  expired: number;
}

/**
 * Outbox items a build before the due index wrote have no due keys: the sweep never sees them, only the
 * stream sends them. This pass finds the unsent ones and puts them in the due index, due now, so the next
 * sweep sends them (claimed first, as any item): over the whole table (paged: a stack serves one tenant), or
 * with `organizationId` over that organization's libraries only (a Query of each library's outbox). Each
 * write is conditioned on the item still being unsent, not failed and unindexed, so one the stream claimed
 * or sent meanwhile is not sent again; a second run finds nothing. `dryRun`: only counts.
 */
export async function backfillChangeOrderMailDueKeys(
  store: Store,
  options: { dryRun?: boolean; now?: Date; organizationId?: string; onPage?: (progress: Omit<MailBackfillResult, 'dryRun'>) => void } = {},
): Promise<MailBackfillResult> {
  const now = options.now ?? new Date();
  const at = now.toISOString();
  const result: MailBackfillResult = { dryRun: options.dryRun === true, pages: 0, scanned: 0, found: 0, indexed: 0, changed: 0, expired: 0 };
  const onPage = async (items: UnindexedChangeOrderMail[], scanned: number) => {
    result.pages += 1;
    result.scanned += scanned;
    const live = items.filter((item) => item.expiresAt === undefined || item.expiresAt * 1000 > now.getTime());
    result.expired += items.length - live.length;
    result.found += live.length;
    if (!result.dryRun) {
      const written = await Promise.all(live.map((item) => indexUnindexedChangeOrderMail(store, item, at)));
      result.indexed += written.filter(Boolean).length;
      result.changed += written.filter((applied) => !applied).length;
    }
    const { dryRun: _dryRun, ...progress } = result;
    options.onPage?.(progress);
  };
  if (options.organizationId) {
    for (const library of await listLibraries(store, options.organizationId)) {
      const items = await unindexedChangeOrderMailsOfLibrary(store, options.organizationId, library.id);
      await onPage(items, items.length);
    }
    return result;
  }
  let start: Record<string, unknown> | undefined;
  do {
    const page = await unindexedChangeOrderMailsPage(store, start);
    await onPage(page.items, page.scanned);
    start = page.next;
  } while (start);
  return result;
}
