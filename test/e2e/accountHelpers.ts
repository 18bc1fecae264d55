import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import { checkPassword, passwordPolicyFromEnv } from '../../lib/accounts/passwordPolicy.js';
import { stack } from '../support/api.js';

let nextHost = 10 + Math.floor(Math.random() * 200);
let nextSubnet = Math.floor(Math.random() * 200) + 20;
/**
 * A fresh loopback address to send from (Linux routes all of 127.0.0.0/8 to loopback): the account routes
 * rate-limit per client IP, which the local server takes from the socket, so each test gets its own.
 */
export function freshClientIp(): string {
  nextHost += 1;
  if (nextHost > 250) {
    nextHost = 10;
    nextSubnet += 1;
  }
  return `127.${nextSubnet}.${Math.floor(Math.random() * 250) + 1}.${nextHost}`;
}

export interface AccountResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: any;
  durationMs: number;
}

/** An HTTP request to the local stack from a chosen source address. */
export function send(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; from?: string; rawBody?: string } = {}): Promise<AccountResponse> {
  const url = new URL(path, stack.baseUrl);
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: options.from ?? '127.0.0.1',
        headers: { ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}), ...options.headers },
      },
      (res) => {
        let raw = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (raw += chunk));
        res.on('end', () => {
          let body: unknown;
          try {
            body = raw ? JSON.parse(raw) : undefined;
          } catch {
            body = raw;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, body, durationMs: Date.now() - started });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** The Origin of the web application (APP_URL), which the account routes allow. */
export const appOrigin = () => new URL(stack.env.APP_URL ?? stack.baseUrl).origin;

export const postAuth = (path: string, body: unknown, from: string, headers: Record<string, string> = {}) => send('POST', path, { body, from, headers: { origin: appOrigin(), ...headers } });

const defaultPolicy = passwordPolicyFromEnv({});
/**
 * A fresh password the default policy accepts. Random hex alone is not enough: about one draw in a thousand
 * holds a refused pattern ("0000", "12345"), so draws are checked with the service's own rule.
 */
export function strongPassword(): string {
  for (;;) {
    const candidate = `Gear-${randomUUID().slice(0, 6)}-Tr4in!`;
    if (!checkPassword(defaultPolicy, candidate)) return candidate;
  }
}
export const newAddress = (label = 'person') => `${label}-${randomUUID().slice(0, 8)}@example.org`;

/** The session cookie's value from a Set-Cookie response header. */
export function sessionFrom(response: AccountResponse): string {
  const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  const cookie = cookies.find((c) => c.startsWith('__Host-service_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(response.headers)}`);
  return cookie.split(';')[0]!.split('=').slice(1).join('=');
}

/** The tokens of the emailed links to `path` for an address, oldest first. */
export async function emailedTokens(address: string, path: '/verify-email' | '/reset-password'): Promise<string[]> {
  const mails = (await (await fetch(`${stack.baseUrl}/_local/mail?to=${encodeURIComponent(address)}`)).json()) as { to: string[]; text: string }[];
  const mine = mails.filter((mail) => mail.to.includes(address.toLowerCase()) && mail.text.includes(`${path}?token=`));
  return mine.map((mail) => decodeURIComponent(/token=([^\s&]+)/.exec(mail.text)![1]!));
}

/** The token of the newest emailed link to `path` for an address. */
export async function emailedToken(address: string, path: '/verify-email' | '/reset-password'): Promise<string> {
  const last = (await emailedTokens(address, path)).at(-1);
  if (!last) throw new Error(`no ${path} email to ${address}`);
  return last;
}

/** Signs up and verifies an address; the session's cookie and CSRF token. */
export async function verifiedAccount(address: string, password: string, from = freshClientIp()): Promise<{ cookie: string; csrfToken: string }> {
  const signed = await postAuth('/auth/signup', { email: address, password }, from);
  if (signed.status !== 202) throw new Error(`signup: ${signed.status} ${signed.raw}`);
  const verified = await postAuth('/auth/verify-email', { token: await emailedToken(address, '/verify-email') }, from);
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.raw}`);
  return { cookie: sessionFrom(verified), csrfToken: verified.body.csrfToken };
}
