import type { Mailer, OutboundMail } from '../mail/mailer.js';
import type { ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { getUser } from '../store/user.js';
import { changeOrderSummary, summaryLines } from './summary.js';

/**
 * The mails of change orders: who is told what, and the sending (one mail per address, with a link). Each
 * carries the order's redline and impact counts (`summary.ts`: counts, not the diff; bounded cost), read
 * once per mail after the action committed and only when the mail has someone to go to.
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

/** Sends a mail to its addresses and the (not archived) users it names, each address once. */
export async function deliver(deps: MailDeps, mail: StepMail, record: ChangeOrderRecord): Promise<void> {
  const to = [...new Set([...(await emailsOf(deps.store, mail.userIds)), ...mail.to])];
  if (to.length === 0) return;
  await sendAll(deps, to, mail.subject, [...mail.lines, ...(mail.summary === false ? [] : await summaryOf(deps.store, record))], record);
}

/** The counts, or a pointer to the order when they cannot be read: the action committed, its mail still goes. */
async function summaryOf(store: Store, record: ChangeOrderRecord): Promise<string[]> {
  try {
    return summaryLines(await changeOrderSummary(store, record));
  } catch {
    return ['Redlines and impact: open the change order to see them.'];
  }
}

async function emailsOf(store: Store, userIds: readonly string[]): Promise<string[]> {
  const users = await Promise.all([...new Set(userIds)].map((id) => getUser(store, id)));
  return users.flatMap((user) => (user && !user.archived ? [user.primaryEmail] : []));
}

async function sendAll(deps: MailDeps, to: string[], subject: string, lines: string[], record: ChangeOrderRecord): Promise<void> {
  const link = `${deps.appUrl}/change-orders/${record.id}`;
  for (const address of to) {
    const mail: OutboundMail = {
      to: [address],
      subject,
      text: [...lines, '', `Open: ${link}`].join('\n'),
      html: `${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(link)}">Open ${escapeHtml(record.number)}</a></p>`,
    };
    await deps.mailer.send(mail);
  }
}

const escapeHtml = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
