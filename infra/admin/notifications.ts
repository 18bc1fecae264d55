/** The operator's notifications command: the daily digest mails, now. */
import type { Mailer } from '../../lib/mail/mailer.js';
import { mailerFromEnv } from '../../lib/mail/ses.js';
import { sendDueDigests } from '../../lib/notifications/digest.js';
import { optionsOf, runCommand, targetEnv, type CommandHandlers } from './runCommand.js';

/** The daily digest run, by hand: SES when MAIL_FROM is set, otherwise the mails are printed. */
async function digests(args: string[]): Promise<void> {
  const values = optionsOf(args, {});
  const env = targetEnv(process.env);
  const printer: Mailer = { send: async (mail) => void process.stdout.write(`${JSON.stringify(mail)}\n`) };
  const mailer = env.MAIL_FROM ? mailerFromEnv(env) : printer;
  await runCommand('digests', values, async (store, operation) => {
    const sent = await sendDueDigests({ store, mailer, appUrl: env.APP_URL || 'http://localhost:3000' });
    operation.summary = `sent ${sent}`;
    process.stderr.write(`${sent} digest(s) sent\n`);
    return undefined;
  });
}

export const notificationCommands = { digests } satisfies CommandHandlers;
