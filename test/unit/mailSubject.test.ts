import { describe, expect, it } from 'vitest';
import { OutboxMailer } from '../../lib/mail/mailer.js';

/** The longest subject the port sends, in characters (code points). */
const maxSubjectLength = 150;

/** Every mail leaves the mail port with a one-line subject of bounded length, whatever built it. */
describe('mail subjects', () => {
  const sent = async (subject: string) => {
    const outbox = new OutboxMailer();
    await outbox.send({ to: ['a@example.com'], subject, text: 'body\nkept', html: '<p>kept</p>' });
    return outbox.sent[0]!;
  };

  it('collapses line breaks, tabs and other control characters into single spaces, trimmed', async () => {
    const mail = await sent('  Update: New comment: first line\r\n\r\nsecond\tline\u2028third\u0000\u001bfourth  ');
    expect(mail.subject).toBe('Update: New comment: first line second line third fourth');
    expect(mail.text).toBe('body\nkept');
  });

  it('bounds the length, cutting between characters (not inside a surrogate pair) and saying so', async () => {
    const long = `Update: ${'é😀'.repeat(200)}`;
    const { subject } = await sent(long);
    expect([...subject]).toHaveLength(maxSubjectLength);
    expect(subject.endsWith('…')).toBe(true);
    expect(subject).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(long.startsWith(subject.slice(0, -1))).toBe(true);
    // One within the bound is left as it is.
    expect((await sent('Short subject')).subject).toBe('Short subject');
  });
});
