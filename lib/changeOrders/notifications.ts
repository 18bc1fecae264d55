import type { Mailer, OutboundMail } from '../mail/mailer.js';
import type { ChangeOrderRecord } from '../store/changeOrder.js';
import { changeOrderMailPut, getChangeOrderMail, markChangeOrderMailSent, recordChangeOrderMailSent, type ChangeOrderMailRecord } from '../store/changeOrderMail.js';
import type { Store } from '../store/client.js';
import type { WriteItem } from '../store/items.js';
import { getUser } from '../store/user.js';
import { changeOrderSummary, summaryLines, summaryOrderOf, type SummaryOrder } from './summary.js';

/**
 * The mails of change orders: who is told what, and the sending (one mail per address, with a link). An
 * action does not send them: it writes them as one outbox item in its own transaction (`mailOutboxItem`), so
 * they go if and only if it committed, and the jobs function sends them when the table's stream hands it the
 * item (`sendChangeOrderMails`, lib/changeOrders/mailStream.ts). Each carries the order's redline and impact
 * counts (`summary.ts`: counts, not the diff; bounded cost) of the revision the action committed, read once
 * per mail when it is sent and only when the mail has someone to go to.
 */

export interface MailDeps {
  store: Store;
  mailer: Mailer;
  appUrl: string;
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
  return [changeOrderMailPut({ changeOrderId: record.id, rev: record.rev, order: summaryOrderOf(record), mails: [...mails], createdAt: at })];
}

/**
 * Sends the mails of an outbox item (the jobs function, from the stream's INSERT of it): each to its addresses
 * and the (not archived) users it names, each address once. Read again first (strongly consistent): an item
 * already sent, or gone, sends nothing; each address sent is recorded on the item before the next, so a
 * redelivery of the record (a retry after a failure) sends only what did not go. At least once: a process
 * that dies between a send and its record sends that one address again. A failed send throws (the event
 * source mapping retries) after the others of its mail went. Returns the mails sent now.
 */
export async function sendChangeOrderMails(deps: MailDeps, outbox: Pick<ChangeOrderMailRecord, 'changeOrderId' | 'rev' | 'order'>): Promise<number> {
  const item = await getChangeOrderMail(deps.store, outbox.order.organizationId, outbox.order.libraryId, outbox.changeOrderId, outbox.rev);
  if (!item || item.sentAt) return 0;
  const sent = new Set(item.sentTo);
  let count = 0;
  for (const [index, mail] of item.mails.entries()) {
    const to = [...new Set([...(await emailsOf(deps.store, mail.userIds)), ...mail.to])].filter((address) => !sent.has(`${index} ${address}`));
    if (to.length === 0) continue;
    const lines = [...mail.lines, ...(mail.summary === false ? [] : await summaryOf(deps.store, item.order))];
    let failure: unknown;
    for (const address of to) {
      try {
        await deps.mailer.send(outboundMail(deps.appUrl, address, mail.subject, lines, item.order));
      } catch (error) {
        failure ??= error;
        continue;
      }
      count += 1;
      if (!(await recordChangeOrderMailSent(deps.store, item, `${index} ${address}`))) return count;
    }
    if (failure) throw failure;
  }
  await markChangeOrderMailSent(deps.store, item, new Date().toISOString());
  return count;
}

/** The counts, or a pointer to the order when they cannot be read: the action committed, its mail still goes. */
async function summaryOf(store: Store, order: SummaryOrder): Promise<string[]> {
  try {
    return summaryLines(await changeOrderSummary(store, order));
  } catch {
    return ['Redlines and impact: open the change order to see them.'];
  }
}

async function emailsOf(store: Store, userIds: readonly string[]): Promise<string[]> {
  const users = await Promise.all([...new Set(userIds)].map((id) => getUser(store, id)));
  return users.flatMap((user) => (user && !user.archived ? [user.primaryEmail] : []));
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
