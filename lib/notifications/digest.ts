import type { Mailer, OutboundMail } from '../mail/mailer.js';
import { findUser, mailAddressOf } from '../people/users.js';
import type { Store } from '../store/client.js';
import { clearDigestDue, listDigestsDue, listUnreadNotifications, type NotificationRecord } from '../store/notification.js';
import { memberAccessOf, ofDeletedComments, readableOnly } from './service.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const linkOf = (record: NotificationRecord, appUrl: string) => `${appUrl.replace(/\/$/, '')}/notifications/${record.id}`;

/** The mail of one notification (users who chose EACH, and every mention); the mail port makes the subject one bounded line. */
export function notificationMail(to: string, record: NotificationRecord, appUrl: string): OutboundMail {
  const link = linkOf(record, appUrl);
  return {
    to: [to],
    subject: record.kind === 'MENTION' ? 'You were mentioned' : `Update: ${record.summary}`,
    text: `${record.summary}\n\n${link}\n`,
    html: `<p>${escapeHtml(record.summary)}</p><p><a href="${escapeHtml(link)}">Open</a></p>`,
  };
}

/** The daily digest of a user's unread notifications, oldest first; undefined when there is nothing to send. */
export function buildDigest(to: string, notifications: readonly NotificationRecord[], appUrl: string): OutboundMail | undefined {
  if (notifications.length === 0) return undefined;
  const ordered = [...notifications].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const lines = ordered.map((n) => `- ${n.summary} (${n.createdAt.slice(0, 16).replace('T', ' ')} UTC) ${linkOf(n, appUrl)}`);
  return {
    to: [to],
    subject: `Your daily digest: ${ordered.length} notification${ordered.length === 1 ? '' : 's'}`,
    text: `${lines.join('\n')}\n`,
    html: `<ul>${ordered.map((n) => `<li>${escapeHtml(n.summary)} <a href="${escapeHtml(linkOf(n, appUrl))}">Open</a></li>`).join('')}</ul>`,
  };
}

/**
 * The daily run: one digest per user with unread notifications since their mark (what is read already,
 * and what they may no longer read, is left out). The mark is removed only if no newer one replaced it meanwhile. Returns the mails sent.
 */
export async function sendDueDigests(deps: { store: Store; mailer: Mailer; appUrl: string }): Promise<number> {
  let sent = 0;
  for (const due of await listDigestsDue(deps.store)) {
    const [user, unread] = await Promise.all([findUser(deps.store, due.userId), listUnreadNotifications(deps.store, due.userId)]);
    const address = mailAddressOf(user);
    // Only what the person may still read (as user.notifications shows it): a role narrowed or a membership
    // removed since a notification was made withholds its text from the digest too.
    // A comment deleted since is no news: left out (user.notifications shows it without its text).
    const since = unread.filter((n) => n.createdAt >= due.since && n.kind !== 'MENTION');
    const readable = address !== undefined ? await readableOnly(deps.store, since, memberAccessOf(deps.store, due.userId)) : [];
    const deleted = await ofDeletedComments(deps.store, readable);
    const mail =
      address !== undefined
        ? buildDigest(
            address,
            readable.filter((n) => !deleted.has(n)),
            deps.appUrl,
          )
        : undefined;
    if (mail) {
      await deps.mailer.send(mail);
      sent += 1;
    }
    await clearDigestDue(deps.store, due.userId, due.since);
  }
  return sent;
}
