import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';

export interface OutboundMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface CapturedMail extends OutboundMail {
  sentAt: string;
}

/** The mail port: SES when deployed, a captured outbox in the local stack. */
export interface Mailer {
  send(mail: OutboundMail): Promise<void>;
}

/** Local stack only: mail is kept in memory, oldest first, and served at GET /_local/mail. */
export class OutboxMailer implements Mailer {
  readonly sent: CapturedMail[] = [];

  async send(mail: OutboundMail): Promise<void> {
    this.sent.push({ ...mail, to: [...mail.to], sentAt: new Date().toISOString() });
  }
}

export class SesMailer implements Mailer {
  constructor(
    private readonly ses: SESClient,
    private readonly from: string,
  ) {}

  async send(mail: OutboundMail): Promise<void> {
    await this.ses.send(
      new SendEmailCommand({
        Source: this.from,
        Destination: { ToAddresses: mail.to },
        Message: {
          Subject: { Data: mail.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: mail.text, Charset: 'UTF-8' }, Html: { Data: mail.html, Charset: 'UTF-8' } },
        },
      }),
    );
  }
}

/** One outbox per process, shared by the handlers the local server runs in-process. */
export const localOutbox = new OutboxMailer();

export function mailerFromEnv(env: NodeJS.ProcessEnv = process.env): Mailer {
  if (env.MAIL_TRANSPORT === 'outbox') return localOutbox;
  return new SesMailer(new SESClient({}), env.MAIL_FROM || 'no-reply@example.com');
}
