export interface OutboundMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface CapturedMail extends OutboundMail {
  sentAt: string;
}

/** The longest subject the port sends, in characters (code points, the ellipsis included). */
export const maxSubjectLength = 150;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * A subject as every mail leaves the port: one line (line breaks, tabs, other whitespace and control
 * characters collapsed into single spaces, trimmed), at most `maxSubjectLength` characters, cut between
 * characters as seen (never inside a surrogate pair or an emoji sequence) and ended with an ellipsis when cut.
 * Subjects are built from what users wrote (comment text, names): a line break there is a broken header.
 */
export function oneLineSubject(subject: string): string {
  const line = subject.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  if ([...line].length <= maxSubjectLength) return line;
  let kept = '';
  let length = 0;
  for (const { segment } of graphemes.segment(line)) {
    const size = [...segment].length;
    if (length + size > maxSubjectLength - 1) break;
    kept += segment;
    length += size;
  }
  return `${kept.trimEnd()}…`;
}

/** The mail as the port sends it (the subject one line: `oneLineSubject`). Every Mailer's send goes through it. */
export const sendable = (mail: OutboundMail): OutboundMail => ({ ...mail, subject: oneLineSubject(mail.subject) });

/** The mail port: SES when deployed, a captured outbox in the local stack. */
export interface Mailer {
  send(mail: OutboundMail): Promise<void>;
}

/** Local stack only: mail is kept in memory, oldest first, and served at GET /_local/mail. */
export class OutboxMailer implements Mailer {
  readonly sent: CapturedMail[] = [];
  /** Test hook: sends to these addresses (with a subject starting so) still to be refused, as SES refuses a throttled send. */
  private readonly faults = new Map<string, { failures: number; subject: string }>();

  /** The next `failures` sends to `address` whose subject starts with `subject` fail (0 clears it). */
  failNext(address: string, failures: number, subject = ''): void {
    if (failures > 0) this.faults.set(address.toLowerCase(), { failures, subject });
    else this.faults.delete(address.toLowerCase());
  }

  async send(outbound: OutboundMail): Promise<void> {
    const mail = sendable(outbound);
    for (const address of mail.to) {
      const fault = this.faults.get(address.toLowerCase());
      if (!fault || !mail.subject.startsWith(fault.subject)) continue;
      this.failNext(address, fault.failures - 1, fault.subject);
      throw Object.assign(new Error(`Maximum sending rate exceeded (fault injected for ${address})`), { name: 'Throttling' });
    }
    this.sent.push({ ...mail, to: [...mail.to], sentAt: new Date().toISOString() });
  }
}

/** One outbox per process, shared by the handlers the local server runs in-process. */
export const localOutbox = new OutboxMailer();
