import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { identitiesFromEnv } from '../../lib/accounts/identities.js';
import { passwordPolicyFromEnv } from '../../lib/accounts/passwordPolicy.js';
import { auditedAccountRoute } from '../../lib/accounts/audit.js';
import { applyRateLimit, type RateLimitedRoute } from '../../lib/accounts/rateLimit.js';
import { completePasswordReset, issueTokens, requestPasswordReset, signIn, signOut, signup, verifyEmail, type AccountDeps } from '../../lib/accounts/service.js';
import { federationFromEnv } from '../../lib/saml/federation.js';
import { clearedStateCookie, completeSamlSignin, samlStateCookieName, startSamlSignin } from '../../lib/saml/signin.js';
import { readCookie, sessionCookie, sessionCookieName, type IssuedSession } from '../../lib/people/sessions.js';
import { DomainError } from '../../lib/errors.js';
import { AccountError } from '../../lib/accounts/errors.js';
import { mailerFromEnv } from '../../lib/mail/ses.js';
import { withAuditSource } from '../../lib/store/auditContext.js';
import { createStore } from '../../lib/store/client.js';
import { allowedOriginsFromEnv, jsonResult, sourceIp } from '../shared/apigw.js';
import { withRequestLog } from '../shared/requestLog.js';

const passwordPolicy = passwordPolicyFromEnv();
const allowedOrigins = allowedOriginsFromEnv();
let deps: AccountDeps | undefined;
/** Created on the first request that needs them (GET /auth/config needs none). */
function accountDeps(): AccountDeps {
  deps ??= {
    store: createStore(),
    identities: identitiesFromEnv(),
    mailer: mailerFromEnv(),
    appUrl: (process.env.APP_URL || 'http://localhost:3000').replace(/\/+$/, ''),
    policy: passwordPolicy,
  };
  return deps;
}

/** Account bodies are small; anything larger is refused before it is parsed. */
const maxBodyBytes = 16 * 1024;

interface Route {
  /** Browser routes must come from an allowlisted Origin (403 AUTH_ORIGIN_REJECTED). */
  origin: boolean;
  limit: RateLimitedRoute;
  run: (deps: AccountDeps, body: unknown, event: APIGatewayProxyEventV2) => Promise<{ status: number; body: unknown; session?: IssuedSession | null }>;
}

const withSession = (status: string) => (session: IssuedSession) => ({ status: 200, body: { status, csrfToken: session.csrfToken }, session });

/** The account routes (schema/README.md: Account routes). Errors have the spec's flat body `{ code, message }`. */
const routes: Record<string, Route> = {
  '/auth/signup': { origin: true, limit: 'signup', run: async (d, body) => ({ status: 202, body: await signup(d, body) }) },
  '/auth/verify-email': { origin: true, limit: 'verify-email', run: async (d, body) => withSession('verified')(await verifyEmail(d, body)) },
  '/auth/signin': { origin: true, limit: 'signin', run: async (d, body) => withSession('signed_in')(await signIn(d, body)) },
  '/auth/signout': {
    origin: true,
    limit: 'signout',
    run: async (d, _body, event) => {
      await signOut(d, readCookie(event.cookies?.join('; '), sessionCookieName));
      return { status: 200, body: { status: 'signed_out' }, session: null };
    },
  },
  '/auth/password-reset/request': { origin: true, limit: 'password-reset', run: async (d, body) => ({ status: 202, body: await requestPasswordReset(d, body) }) },
  '/auth/password-reset/complete': { origin: true, limit: 'password-reset', run: async (d, body) => withSession('password_reset')(await completePasswordReset(d, body)) },
  '/auth/token': {
    // Machine clients (connectors, CLIs) call it without a browser Origin.
    origin: false,
    limit: 'token',
    run: async (d, body) => {
      const tokens = await issueTokens(d, body);
      return { status: 200, body: { tokenType: 'Bearer', accessToken: tokens.accessToken, idToken: tokens.idToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn } };
    },
  },
};

const federation = federationFromEnv();

/**
 * SAML single sign-on (schema/README.md: Single sign-on), browser navigations by GET: the start route redirects to the
 * user pool, the callback redirects to the application with the session cookie set and the csrfToken in the
 * URL fragment (`{APP_URL}/#csrfToken=…`, never sent to a server). Refusals are the flat `{ code, message }`.
 */
const redirectRoutes: Record<string, (deps: AccountDeps, event: APIGatewayProxyEventV2) => Promise<{ location: string; cookies: string[] }>> = {
  '/auth/saml/start': async (d, event) => {
    const { location, stateCookie } = await startSamlSignin({ store: d.store, federation, identities: d.identities }, event.queryStringParameters ?? {});
    return { location, cookies: [stateCookie] };
  },
  '/auth/saml/callback': async (d, event) => {
    const session = await completeSamlSignin({ store: d.store, federation, identities: d.identities }, event.queryStringParameters ?? {}, readCookie(event.cookies?.join('; '), samlStateCookieName));
    return { location: `${d.appUrl}/#csrfToken=${encodeURIComponent(session.csrfToken)}`, cookies: [sessionCookie(session), clearedStateCookie] };
  },
};

export function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return withRequestLog('auth', event, async () => {
    const origin = event.headers?.origin;
    const cors: Record<string, string> = origin && allowedOrigins.includes(origin) ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' } : {};
    const result = await route(event, cors);
    return { ...result, headers: { ...cors, ...result.headers } };
  });
}

const auditSource = (event: APIGatewayProxyEventV2) => ({ sourceIp: sourceIp(event), userAgent: event.headers?.['user-agent'] });

const fail = (status: number, code: string, message: string, headers: Record<string, string> = {}) => jsonResult(status, { code, message }, headers);

async function route(event: APIGatewayProxyEventV2, cors: Record<string, string>): Promise<APIGatewayProxyStructuredResultV2> {
  const method = event.requestContext.http.method;
  const path = event.rawPath.replace(/\/+$/, '');
  if (path === '/auth/config') {
    if (method !== 'GET' && method !== 'HEAD') return fail(405, 'AUTH_REQUEST_REJECTED', 'Use GET for /auth/config', { allow: 'GET, HEAD' });
    return jsonResult(200, { passwordPolicy }, { 'cache-control': 'public, max-age=300' });
  }
  const redirect = redirectRoutes[path];
  if (redirect) {
    if (method !== 'GET') return fail(405, 'AUTH_REQUEST_REJECTED', `Use GET for ${path}`, { allow: 'GET' });
    return answerErrors(
      async () => {
        const d = accountDeps();
        await applyRateLimit(d.store, 'sso', sourceIp(event));
        const run = () => redirect(d, event);
        // The callback signs a person in: audited (lib/accounts/audit.ts); the start route changes nothing.
        const { location, cookies } = await withAuditSource(auditSource(event), () => (path === '/auth/saml/callback' ? auditedAccountRoute(d.store, 'samlSignin', {}, run) : run()));
        return { statusCode: 302, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, cookies, body: '' };
      },
      path === '/auth/saml/callback' ? [clearedStateCookie] : [],
    );
  }
  const known = routes[path];
  if (!known) return fail(404, 'NOT_FOUND', `No route ${method} ${event.rawPath}`);
  if (method === 'OPTIONS' && cors['access-control-allow-origin']) {
    return { statusCode: 204, headers: { 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type', 'access-control-max-age': '600' }, body: '' };
  }
  if (method !== 'POST') return fail(405, 'AUTH_REQUEST_REJECTED', `Use POST for ${path}`, { allow: 'POST' });
  return answerErrors(async () => {
    if (known.origin && !cors['access-control-allow-origin']) {
      throw new AccountError('AUTH_ORIGIN_REJECTED', 403, 'The Origin header is missing or not allowed to call the account routes');
    }
    const d = accountDeps();
    await applyRateLimit(d.store, known.limit, sourceIp(event));
    const body = parseBody(event);
    // Every route but /auth/token is audited (lib/accounts/audit.ts): one entry in the person's chain.
    const run = () => known.run(d, body, event);
    const result = await withAuditSource(auditSource(event), () =>
      path === '/auth/token'
        ? run()
        : auditedAccountRoute(d.store, path.slice('/auth/'.length), { body, sessionCookie: path === '/auth/signout' ? readCookie(event.cookies?.join('; '), sessionCookieName) : undefined }, run),
    );
    const response = jsonResult(result.status, result.body);
    if (result.session !== undefined) response.cookies = [sessionCookie(result.session)];
    return response;
  });
}

/** Domain refusals as the flat `{ code, message }` with their status (and Retry-After for rate limits). */
async function answerErrors(work: () => Promise<APIGatewayProxyStructuredResultV2>, cookiesOnError: string[] = []): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError && error.httpStatus) {
      const extra: Record<string, string> = typeof error.details.retryAfterSeconds === 'number' ? { 'retry-after': String(error.details.retryAfterSeconds) } : {};
      const response = fail(error.httpStatus, error.code, error.message, extra);
      if (cookiesOnError.length) response.cookies = cookiesOnError;
      return response;
    }
    throw error;
  }
}

function parseBody(event: APIGatewayProxyEventV2): unknown {
  const type = (event.headers?.['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new AccountError('AUTH_REQUEST_REJECTED', 400, 'Send a JSON body (Content-Type: application/json)');
  const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
  if (Buffer.byteLength(raw) > maxBodyBytes) throw new AccountError('AUTH_REQUEST_REJECTED', 400, `The body is larger than ${maxBodyBytes} bytes`);
  try {
    return JSON.parse(raw);
  } catch {
    throw new AccountError('AUTH_REQUEST_REJECTED', 400, 'The body is not valid JSON');
  }
}
