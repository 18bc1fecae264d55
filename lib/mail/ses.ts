import type { Mailer, OutboundMail } from './mailer.js';
import { localOutbox, sendable } from './mailer.js';

/**
 * How long one SendEmail may take (in the shape of lib/store/client.ts's timeouts, whose `worstCaseCallMs`
 * bounds it: 3 x (10 + 5) s + (1 + 2) s + 2 x 5 s = 58 s). A send hung on the network must end well inside a
 * change order mail's lease (lib/changeOrders/mailRetry.ts, `sendReserveMs`); the SDK retries a timeout as
 * it does a throttle. The socket timeout bounds a response body that stalls after its headers.
 */
export const sesTimeouts = { connectionTimeoutMs: 3_000, requestTimeoutMs: 10_000, socketTimeoutMs: 5_000, maxAttempts: 3 };

/** The mail port in the deployed stack: SES SendEmail from MAIL_FROM (the SDK client is loaded on first send). */
export class SesMailer implements Mailer {
  private client?: Promise<{ send(mail: OutboundMail): Promise<void> }>;

  constructor(private readonly from: string) {}

  async send(mail: OutboundMail): Promise<void> {
    this.client ??= import('@aws-sdk/client-ses').then(({ SESClient, SendEmailCommand }) => {
      const ses = new SESClient({
        maxAttempts: sesTimeouts.maxAttempts,
        requestHandler: {
          connectionTimeout: sesTimeouts.connectionTimeoutMs,
          requestTimeout: sesTimeouts.requestTimeoutMs,
          socketTimeout: sesTimeouts.socketTimeoutMs,
          throwOnRequestTimeout: true,
        },
      });
      return {
        send: async (message: OutboundMail) => {
          await ses.send(
            new SendEmailCommand({
              Source: this.from,
              Destination: { ToAddresses: message.to },
              Message: {
                Subject: { Data: message.subject, Charset: 'UTF-8' },
                Body: { Text: { Data: message.text, Charset: 'UTF-8' }, Html: { Data: message.html, Charset: 'UTF-8' } },
              },
            }),
          );
        },
      };
    });
    await (await this.client).send(sendable(mail));
  }
}

/** MAIL_TRANSPORT=outbox (the local stack) captures mail; otherwise SES sends it from MAIL_FROM. */
export function mailerFromEnv(env: NodeJS.ProcessEnv = process.env): Mailer {
  if (env.MAIL_TRANSPORT === 'outbox') return localOutbox;
  if (!env.MAIL_FROM) throw new Error('MAIL_FROM must name the sender address (a verified SES identity)');
  return new SesMailer(env.MAIL_FROM);
}
