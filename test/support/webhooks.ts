import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../lib/webhooks/signing.js';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

/**
 * A webhook receiver as an integrator writes one: it verifies x-plm-signature over the raw body with the
 * secret it is given, keeps every delivery, and answers `answer(count)` (401 when the signature fails, unless
 * `answerUnverified` says otherwise), after `delayMs`.
 */
export function webhookReceiver(answer: (count: number) => number, secret: () => string | undefined, options: { delayMs?: number; answerUnverified?: number } = {}) {
  const received: ReceivedDelivery[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const key = secret();
      const verified = key !== undefined && verifySignature(key, body, String(request.headers['x-plm-signature'] ?? ''));
      received.push({ headers: request.headers, body, verified });
      response.statusCode = verified ? answer(received.length) : (options.answerUnverified ?? 401);
      setTimeout(() => response.end(), options.delayMs ?? 0);
    });
  });
  return {
    received,
    server,
    async url(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    },
  };
}

/**
 * Reads until `done` holds, every 100 ms. Generous by default: the local stack's stream (webhooks, the jobs
 * function) is shared with every test file running beside the caller, which may have a backlog on it.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 50_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
