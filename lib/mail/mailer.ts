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
  /** Test hook: sends to these addresses still to be refused (as SES refuses a throttled send). */
  private readonly faults = new Map<string, number>();

  /** The next `failures` sends to `address` fail (0 clears it). */
  failNext(address: string, failures: number): void {
    if (failures > 0) this.faults.set(address.toLowerCase(), failures);
    else this.faults.delete(address.toLowerCase());
  }

  async send(mail: OutboundMail): Promise<void> {
    for (const address of mail.to) {
      const left = this.faults.get(address.toLowerCase());
      if (!left) continue;
      this.failNext(address, left - 1);
      throw Object.assign(new Error(`Maximum sending rate exceeded (fault injected for ${address})`), { name: 'Throttling' });
    }
    this.sent.push({ ...mail, to: [...mail.to], sentAt: new Date().toISOString() });
  }
}

/** One outbox per process, shared by the handlers the local server runs in-process. */
export const localOutbox = new OutboxMailer();
