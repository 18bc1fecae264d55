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

/** One outbox per process, shared by the handlers the local server runs in-process. */
export const localOutbox = new OutboxMailer();
