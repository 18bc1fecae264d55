import type { Mailer, OutboundMail } from '../mail/mailer.js';
import type { ChangeOrderRecord } from '../store/changeOrder.js';
import {
  changeOrderMailPut,
  claimChangeOrderMail,
  dueChangeOrderMails,
  getChangeOrderMail,
  leaveDueIndex,
  markChangeOrderMailSent,
  recordChangeOrderMailFailure,
  recordChangeOrderMailSent,
  type ChangeOrderMailRecord,
} from '../store/changeOrderMail.js';
import type { Store } from '../store/client.js';
import type { WriteItem } from '../store/items.js';
import { loadEffectiveAccesses } from '../access/effective.js';
import { getMemberships } from '../store/membership.js';
import { getUser } from '../store/user.js';
import { mailAddressOf } from '../people/users.js';
import { mailFailedForGoodMessage } from './mailStream.js';
import { firstAttemptAt, isLeased, leaseUntil, mailRetrySettings, mayStartSend, nextAttemptAfterFailure, type MailRetrySettings } from './mailRetry.js';
import { changeOrderSummary, summaryLines, summaryOrderOf, type SummaryOrder } from './summary.js';

/**
 * The mails of change orders: who is told what, and the sending (one mail per address, with a link). An
 * action does not send them: it writes them as one outbox item in its own transaction (`mailOutboxItem`), so
 * they go if and only if it committed, and the jobs function sends them when the table's stream hands it the
 * item (`sendChangeOrderMails`, lib/changeOrders/mailStream.ts). Each carries the order's redline and impact
 * counts (`summary.ts`: counts, not the diff; bounded cost) over the components and revisions the action
 * committed, read once per mail when it is sent (a component edited in between counts as it is then) and
 * only when the mail has someone to go to. Users named by id get it only if they may still read the order
 * then (`emailsOf`). What the stream did not send (SES
 * down or throttled past the mapping's retries, a function that died) the scheduled sweep sends
 * (`sendDueChangeOrderMails`, lib/changeOrders/mailRetry.ts has the rules).
 */

export interface MailDeps {
  store: Store;
  mailer: Mailer;
  appUrl: string;
  /** The retry rules; from the environment when not given. */
  retry?: MailRetrySettings;
}

/** A mail an action sends once it committed: to addresses, and to users by id (their primary address). */
export interface StepMail {
  to: string[];
  userIds: string[];
  subject: string;
  lines: string[];
  /** False: no redline and impact counts in this mail. */
  summary?: boolean;
}

export function reviewerMail(record: ChangeOrderRecord, stageIndex: number) {
  const stage = record.stages[stageIndex]!;
  return {
    to: [],
    userIds: stage.reviewers.map((r) => r.userId),
    subject: `Review requested: ${record.number} ${record.name} (${stage.name})`,
    lines: [`Stage "${stage.name}" of change order ${record.number} is open for your review (${stage.approvalType}).`],
  };
}

export function resolutionMail(record: ChangeOrderRecord) {
  return {
    to: [],
    userIds: [record.createdBy],
    subject: `${record.number} ${record.resolution!.toLowerCase()}: ${record.name}`,
    lines: [`Change order ${record.number} was ${record.resolution!.toLowerCase()} and is now ${record.status}.`],
  };
}

/** To each stage's notifyList: a change order was created. */
export function createdMail(record: ChangeOrderRecord, template: { name: string }): StepMail {
  return {
    to: record.stages.flatMap((stage) => stage.notifyEmails),
    userIds: record.stages.flatMap((stage) => stage.notifyUserIds),
    subject: `${record.number} created: ${record.name}`,
    lines: [
      `Change order ${record.number} "${record.name}" was created with ${record.components.length} component(s).`,
      `Template: ${template.name}. Stages: ${record.stages.map((s) => s.name).join(', ')}.`,
    ],
  };
}

/**
 * The outbox item of an action's mails, for its transaction (one item, or none when no mail names anyone):
 * keyed by the order and the revision the action commits (`record.rev`), with the order as the mails read it.
 */
export function mailOutboxItem(record: ChangeOrderRecord, mails: readonly StepMail[], at: string): WriteItem[] {
  if (!mails.some((mail) => mail.to.length > 0 || mail.userIds.length > 0)) return [];
  const nextAttemptAt = firstAttemptAt(mailRetrySettings(), at);
  return [changeOrderMailPut({ changeOrderId: record.id, rev: record.rev, order: summaryOrderOf(record), mails: [...mails], createdAt: at, nextAttemptAt })];
}

/**
 * Sends the mails of an outbox item (the jobs function, from the stream's INSERT of it): each to its addresses
 * and the (not archived) users it names, each address once. Read again first (strongly consistent): an item
 * already sent, failed for good, gone, or claimed by a sending still under way (the sweep's) sends nothing.
 * The sending claims the item (`claimChangeOrderMail`); each address sent is recorded on the item before the
 * next, so a redelivery of the record (a retry after a failure) or the sweep sends only what did not go. At
 * least once: a process that dies between a send and its record sends that one address again. A failed send
 * is recorded (the sweep tries again when due) and thrown (the event source mapping retries it at once)
 * after the others of its mail went. Returns the mails sent now.
 */
export async function sendChangeOrderMails(deps: MailDeps, outbox: Pick<ChangeOrderMailRecord, 'changeOrderId' | 'rev' | 'order'>): Promise<number> {
  const item = await getChangeOrderMail(deps.store, outbox.order.organizationId, outbox.order.libraryId, outbox.changeOrderId, outbox.rev);
  const now = new Date();
  if (!item || item.sentAt || item.failedAt || isLeased(item.leasedUntil, now)) return 0;
  const outcome = await attemptChangeOrderMails(deps, item, now);
  if (outcome.failure && outcome.retryAt) throw outcome.failure;
  return outcome.sent;
}

export interface MailSweepResult {
  /** Items claimed and attempted. */
  attempted: number;
  /** Mails sent. */
  sent: number;
  /** Items that failed for good in this run. */
  failed: number;
}

/**
 * The scheduled sweep: the items whose next attempt is due, each claimed first (only one of two sweeps, or
 * of a sweep and the stream, sends it), 25 at a time, until none is due or `budgetMs` ran out.
 */
export async function sendDueChangeOrderMails(deps: MailDeps, budgetMs = 45_000): Promise<MailSweepResult> {
  const started = Date.now();
  const result: MailSweepResult = { attempted: 0, sent: 0, failed: 0 };
  for (;;) {
    const now = new Date();
    const due = await dueChangeOrderMails(deps.store, now.toISOString(), 25);
    // Sent already (by a build before the due index, which left its keys): out of the index, or a page of them
    // would hold the sweep up.
    const [stale, unsent] = [due.filter((item) => item.sentAt !== null), due.filter((item) => item.sentAt === null)];
    const cleared = await Promise.all(stale.map((item) => leaveDueIndex(deps.store, item)));
    // Every sending settles before the sweep answers, also when one of them throws (a DynamoDB error): none
    // is left running, past the sweep, with its claim.
    const settled = await Promise.allSettled(unsent.map((item) => attemptChangeOrderMails(deps, item, now)));
    const outcomes = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    for (const outcome of outcomes) {
      if (!outcome.claimed) continue;
      result.attempted += 1;
      result.sent += outcome.sent;
      if (outcome.failure && !outcome.retryAt) result.failed += 1;
    }
    const thrown = settled.find((outcome) => outcome.status === 'rejected');
    if (thrown) throw thrown.reason;
    // A full page may have more behind it; claimed, failed and cleared items moved out of the due window.
    const progressed = outcomes.some((outcome) => outcome.claimed) || cleared.some(Boolean);
    if (due.length < 25 || !progressed || Date.now() - started > budgetMs) return result;
  }
}

interface AttemptOutcome {
  claimed: boolean;
  sent: number;
  failure?: unknown;
  /** When the next attempt is due after a failure; absent when it failed for good. */
  retryAt?: string;
}

/** One claimed sending of an item, with its outcome recorded: sent, due again later, or failed for good. */
async function attemptChangeOrderMails(deps: MailDeps, item: ChangeOrderMailRecord, now: Date): Promise<AttemptOutcome> {
  const settings = deps.retry ?? mailRetrySettings();
  const lease = leaseUntil(settings, now);
  const claimed = await claimChangeOrderMail(deps.store, item, now.toISOString(), lease);
  if (!claimed) return { claimed: false, sent: 0 };
  // Reading the recipients or the counts can fail too (a DynamoDB error): an attempt that failed, as a send.
  const { sent, failure, stopped } = await sendClaimed(deps, claimed, (at) => mayStartSend(settings, lease, at)).catch((error: unknown) => ({ sent: 0, failure: error, stopped: false }));
  // Out of lease time: the claim's next attempt (the lease's end) lets the sweep take it over.
  if (stopped) return { claimed: true, sent };
  if (!failure) {
    await markChangeOrderMailSent(deps.store, claimed, new Date().toISOString());
    return { claimed: true, sent };
  }
  const failedAt = new Date();
  // Counted since the last operator's resend, if any.
  const attempts = claimed.attempts - claimed.attemptBase;
  const retryAt = nextAttemptAfterFailure(settings, attempts, failedAt);
  const lastError = errorText(failure);
  // Not recorded: another claim came first (this sending outlived its lease), and that sending reports.
  if (!(await recordChangeOrderMailFailure(deps.store, claimed, failedAt.toISOString(), lastError, retryAt))) return { claimed: true, sent };
  const where = { changeOrderId: claimed.changeOrderId, number: claimed.order.number, rev: claimed.rev, organizationId: claimed.order.organizationId, libraryId: claimed.order.libraryId };
  console.log(
    JSON.stringify(
      retryAt
        ? { level: 'WARN', message: 'change order mails: a send failed, retry scheduled', ...where, attempts, nextAttemptAt: retryAt, lastError }
        : { level: 'ERROR', message: mailFailedForGoodMessage, ...where, attempts, lastError },
    ),
  );
  return { claimed: true, sent, failure, ...(retryAt ? { retryAt } : {}) };
}

/**
 * Sends what the claimed item did not send yet, mail by mail, recording each address once sent. A failed
 * send ends the sending after the other addresses of its mail; no send starts once `mayStart` says the
 * lease is running out (`stopped`).
 */
async function sendClaimed(deps: MailDeps, item: ChangeOrderMailRecord, mayStart: (at: Date) => boolean): Promise<{ sent: number; failure?: unknown; stopped?: boolean }> {
  // Addresses compare without case (one mailbox: a notify address and a user's primary address written
  // differently, or a primary address whose case changed between attempts); each is recorded as sent.
  const sent = new Set(item.sentTo.map((marker) => marker.toLowerCase()));
  // Read once for every mail of the item: the users' addresses, and the counts (the same order for each).
  const emails = await emailsOf(
    deps.store,
    item.order,
    item.mails.flatMap((mail) => mail.userIds),
  );
  let summary: Promise<string[]> | undefined;
  let count = 0;
  for (const [index, mail] of item.mails.entries()) {
    const addresses = new Map<string, string>();
    for (const address of [...mail.userIds.flatMap((id) => emails.get(id) ?? []), ...mail.to]) if (!addresses.has(address.toLowerCase())) addresses.set(address.toLowerCase(), address);
    const to = [...addresses].flatMap(([folded, address]) => (sent.has(`${index} ${folded}`) ? [] : [address]));
    if (to.length === 0) continue;
    const lines = [...mail.lines, ...(mail.summary === false ? [] : await (summary ??= summaryOf(deps.store, item.order)))];
    let failure: unknown;
    for (const address of to) {
      if (!mayStart(new Date())) return { sent: count, stopped: true };
      try {
        await deps.mailer.send(outboundMail(deps.appUrl, address, mail.subject, lines, item.order));
      } catch (error) {
        failure ??= error;
        continue;
      }
      count += 1;
      // Gone (expired): nothing more to send or record.
      if (!(await recordChangeOrderMailSent(deps.store, item, `${index} ${address}`))) return { sent: count, stopped: true };
    }
    if (failure) return { sent: count, failure };
  }
  return { sent: count };
}

const errorText = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500);

/** The counts, or a pointer to the order when they cannot be read: the action committed, its mail still goes. */
async function summaryOf(store: Store, order: SummaryOrder): Promise<string[]> {
  try {
    return summaryLines(await changeOrderSummary(store, order));
  } catch {
    return ['Redlines and impact: open the change order to see them.'];
  }
}

/**
 * The primary addresses, by user id, of the users the mails name who may still read the order when they are sent: not
 * archived, members of its organization, holding change_orders.read in its library. Someone removed from
 * the organization or the library between the action and the send (the stream's lag, a retry hours later)
 * is not told its number, name and counts. An address the account never verified is not mailed (mailAddressOf).
 */
async function emailsOf(store: Store, order: Pick<SummaryOrder, 'organizationId' | 'libraryId'>, userIds: readonly string[]): Promise<Map<string, string>> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return new Map();
  const memberships = await getMemberships(store, order.organizationId, ids, true);
  const access = await loadEffectiveAccesses(store, order.organizationId, [...memberships.values()]);
  const readers = ids.filter((id) => access.get(id)?.libraryPermissions(order.libraryId).has('change_orders.read'));
  const users = await Promise.all(readers.map((id) => getUser(store, id)));
  return new Map(
    users.flatMap((user) => {
      const address = mailAddressOf(user);
      return user && address ? [[user.id, address] as const] : [];
    }),
  );
}

function outboundMail(appUrl: string, address: string, subject: string, lines: string[], order: Pick<ChangeOrderRecord, 'id' | 'number'>): OutboundMail {
  const link = `${appUrl}/change-orders/${order.id}`;
  return {
    to: [address],
    subject,
    text: [...lines, '', `Open: ${link}`].join('\n'),
    html: `${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(link)}">Open ${escapeHtml(order.number)}</a></p>`,
  };
}

const escapeHtml = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
