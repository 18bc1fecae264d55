import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { LocalBlobStorage } from '../../lib/files/blobStorage.js';
import { maxFileSize } from '../../lib/files/files.js';
import type { CapturedMail } from '../../lib/mail/mailer.js';
import type { FederationStandIn } from './federation.js';
import { newMeter, stopMeterOn, withMeter } from '../../lib/store/meter.js';
import { resetPasswordPage, verifyEmailPage } from './pages.js';

export type LambdaHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export interface LocalHandlers {
  graphql: LambdaHandler;
  auth: LambdaHandler;
  scim: LambdaHandler;
}

export interface LocalServerState {
  /** Where uploaded file bytes go (the deployed stack uses presigned S3 URLs instead). */
  files?: LocalBlobStorage;
  /** Set once the emulators and the table are ready; /health answers 503 until then. */
  handlers?: LocalHandlers;
  outbox?: () => CapturedMail[];
  /** Test hook of the local stack (PLM_FAULT_INJECTION=true only): the next sends to an address fail. */
  mailFaults?: (address: string, failures: number, subject?: string) => void;
  /** The user pool's federation stand-in (infra/local/federation.ts), served under /_local/pool. */
  federation?: FederationStandIn;
}

/** The request's whole body (by its events: an async iterator per request cost more than the read itself). */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.once('error', reject);
    // A client gone before the end: as the iterator did, the read fails.
    request.once('close', () => {
      if (!request.complete) reject(new Error('The request was closed before its body ended'));
    });
  });
}

/** The API Gateway HTTP API (payload 2.0) event that the deployed stack would hand the function. */
export function eventFromRequest(request: IncomingMessage, body: Buffer, routeKey: string): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // API Gateway tells the function the scheme the client used (https there); this server speaks plain HTTP.
  headers['x-forwarded-proto'] ??= 'http';
  const cookies = request.headers.cookie?.split(/;\s*/).filter(Boolean);
  const textual = /json|text|graphql|x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '');
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(cookies?.length ? { cookies } : {}),
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: request.headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? (textual ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !textual,
  } as APIGatewayProxyEventV2;
}

function route(pathname: string, method: string): { name: keyof LocalHandlers; routeKey: string } | undefined {
  if (pathname === '/graphql') return { name: 'graphql', routeKey: `${method} /graphql` };
  if (pathname.startsWith('/auth/')) return { name: 'auth', routeKey: 'ANY /auth/{proxy+}' };
  if (pathname === '/scim/v2' || pathname.startsWith('/scim/v2/')) return { name: 'scim', routeKey: 'ANY /scim/v2/{proxy+}' };
  return undefined;
}

/**
 * PUT stores an upload's bytes, GET returns them, each only with a valid, unexpired signature from the URL
 * the API handed out (as a presigned S3 URL); a PUT must carry the content type, length and checksum
 * header it was signed for.
 */
async function serveFile(files: LocalBlobStorage, url: URL, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const key = url.pathname.slice('/_local/files/'.length);
  if (!/^[0-9a-f-]{36}\/[0-9a-f-]{36}\/[0-9a-f-]{36}$/.test(key)) return send(response, 404, { code: 'NOT_FOUND', message: 'No such file' });
  const expires = Number(url.searchParams.get('expires'));
  const signature = url.searchParams.get('signature');
  const refuse = (verdict: 'expired' | 'invalid') =>
    send(response, 403, {
      code: verdict === 'expired' ? 'URL_EXPIRED' : 'SIGNATURE_INVALID',
      message: verdict === 'expired' ? 'This file URL has expired: ask the API for a new one' : 'This file URL is not signed for this request',
    });
  if (request.method === 'PUT') {
    const declared = Number(request.headers['content-length']);
    if (!Number.isFinite(declared) || declared > maxFileSize) return send(response, 413, { code: 'FILE_TOO_LARGE', message: `At most ${maxFileSize} bytes` });
    const checksum = String(request.headers['x-amz-checksum-sha256'] ?? '');
    const sha256 = Buffer.from(checksum, 'base64').toString('hex');
    const verdict = files.verify({ method: 'PUT', key, expires, contentType: request.headers['content-type'] ?? '', size: declared, sha256 }, signature);
    if (verdict !== 'ok') return refuse(verdict);
    // The bytes themselves are checked when the upload is completed (size and SHA-256), as with S3.
    await files.store(key, await readBody(request));
    response.writeHead(200).end();
    return;
  }
  if (request.method === 'GET') {
    const verdict = files.verify({ method: 'GET', key, expires }, signature);
    if (verdict !== 'ok') return refuse(verdict);
    const bytes = await files.read(key);
    if (!bytes) return send(response, 404, { code: 'NOT_FOUND', message: 'No such file' });
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) }).end(bytes);
    return;
  }
  send(response, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Use PUT or GET' });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * One HTTP server for the whole local stack: it routes like the deployed HTTP API and calls the same
 * Lambda handlers in-process. Each response carries x-plm-consumed-capacity (local only) with the
 * DynamoDB requests and capacity units the call used, for the benchmark (the caller's rate counter apart,
 * under `rateLimit`). When the client closes the connection first, the request's work stops at its next
 * DynamoDB call.
 */
export function createLocalServer(state: LocalServerState): Server {
  return createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const method = request.method ?? 'GET';
      if (url.pathname === '/health') {
        return send(response, state.handlers ? 200 : 503, { status: state.handlers ? 'ok' : 'starting' });
      }
      if (!state.handlers) return send(response, 503, { code: 'STARTING', message: 'The local stack is still starting' });
      if (url.pathname === '/_local/mail' && method === 'GET') {
        // ?to=ADDRESS: only the mail to that address (case-insensitively), so that a poll does not copy the whole outbox.
        const to = url.searchParams.get('to')?.toLowerCase();
        const sent = state.outbox?.() ?? [];
        return send(response, 200, to === undefined ? sent : sent.filter((mail) => mail.to.some((recipient) => recipient.toLowerCase() === to)));
      }
      if (url.pathname === '/_local/mail/faults' && method === 'PUT' && state.mailFaults) {
        let fault: { address?: unknown; failures?: unknown; subject?: unknown } = {};
        try {
          fault = JSON.parse((await readBody(request)).toString('utf8')) as typeof fault;
        } catch {
          // Not JSON: refused below.
        }
        const { address, failures, subject = '' } = fault;
        if (typeof address !== 'string' || typeof subject !== 'string' || !Number.isInteger(failures) || (failures as number) < 0) {
          return send(response, 400, { code: 'BAD_REQUEST', message: 'Send {"address": string, "failures": integer >= 0, "subject"?: string (its start)}' });
        }
        state.mailFaults(address, failures as number, subject);
        return send(response, 200, { address, failures, subject });
      }
      // The web application's account pages (APP_URL is this server unless configured otherwise).
      const accountPage = method === 'GET' ? { '/verify-email': verifyEmailPage, '/reset-password': resetPasswordPage }[url.pathname] : undefined;
      if (accountPage) {
        response
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
            'referrer-policy': 'no-referrer',
            'cache-control': 'no-store',
          })
          .end(accountPage);
        return;
      }
      if (url.pathname.startsWith('/_local/files/') && state.files) return serveFile(state.files, url, request, response);
      if ((url.pathname === '/_local/pool' || url.pathname.startsWith('/_local/pool/')) && state.federation) return state.federation.handle(request, response, url, await readBody(request));
      const target = route(url.pathname, method);
      if (!target) return send(response, 404, { code: 'NOT_FOUND', message: `No route ${method} ${url.pathname}` });
      const event = eventFromRequest(request, await readBody(request), target.routeKey);
      const meter = newMeter();
      // A client that goes away stops the request's work: its next DynamoDB call throws (lib/store/meter.ts).
      const disconnected = new AbortController();
      response.once('close', () => {
        if (!response.writableFinished) disconnected.abort();
      });
      stopMeterOn(meter, disconnected.signal);
      const result = await withMeter(meter, () => state.handlers![target.name](event));
      if (disconnected.signal.aborted) return;
      const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
      if (result.cookies?.length) headers['set-cookie'] = result.cookies;
      headers['x-plm-consumed-capacity'] = JSON.stringify(meter);
      // With its length, as API Gateway answers (not chunked): a text body goes out with the head in one write.
      const body = result.body ? (result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body) : undefined;
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      response.writeHead(result.statusCode ?? 200, headers).end(body);
    } catch (error) {
      console.error('local server: handler failed', error);
      if (!response.headersSent) send(response, 500, { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
      else response.end();
    }
  });
}
