import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { applyCallerRateLimit, callerRateLimitsFromEnv } from '../../lib/accounts/rateLimit.js';
import { hashSecret } from '../../lib/access/apiKeySecrets.js';
import { RateLimitedError } from '../../lib/errors.js';
import { ScimError } from '../../lib/scim/errors.js';
import { errorSchema } from '../../lib/scim/schemas.js';
import { auditedScimRequest } from '../../lib/scim/audit.js';
import { handleScimRequest } from '../../lib/scim/service.js';
import { authenticateScim } from '../../lib/scim/tokens.js';
import { withAuditSource } from '../../lib/store/auditContext.js';
import { createStore, type Store } from '../../lib/store/client.js';
import { securityHeaders, sourceIp } from '../shared/apigw.js';
import { withRequestLog } from '../shared/requestLog.js';

const scimMediaType = 'application/scim+json';
const maxBodyBytes = 1024 * 1024;
let store: Store | undefined;
const rateLimits = callerRateLimitsFromEnv();

function result(status: number, body?: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { ...securityHeaders, ...(body === undefined ? {} : { 'content-type': scimMediaType }), ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
    isBase64Encoded: false,
  };
}

function errorResult(error: ScimError, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return result(error.status, { schemas: [errorSchema], status: String(error.status), ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.detail }, headers);
}

/** {scim_url} as the client reached it (meta.location), and the path below it. */
function locate(event: APIGatewayProxyEventV2): { baseUrl: string; path: string } {
  const host = event.headers?.host ?? event.requestContext.domainName ?? 'localhost';
  // The scheme the client used: API Gateway sets x-forwarded-proto (https); the local stack's plain-HTTP
  // server sets http. Only these two values are taken (the header ends up in Location and meta.location).
  const forwarded = event.headers?.['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase();
  const proto = forwarded === 'http' ? 'http' : 'https';
  const index = event.rawPath.indexOf('/scim/v2');
  const prefix = index >= 0 ? event.rawPath.slice(0, index + '/scim/v2'.length) : '/scim/v2';
  return { baseUrl: `${proto}://${host}${prefix}`, path: index >= 0 ? event.rawPath.slice(index + '/scim/v2'.length) : event.rawPath };
}

function parseBody(event: APIGatewayProxyEventV2): unknown {
  if (!event.body) return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > maxBodyBytes) throw new ScimError(413, `The request body is larger than ${maxBodyBytes} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ScimError(400, 'The request body is not valid JSON', 'invalidSyntax');
  }
}

/**
 * SCIM 2.0 (RFC 7644) for identity providers: a thin adapter from API Gateway events to lib/scim. The
 * bearer token and the organization's SCIM setting are read on every request (401 otherwise).
 */
export function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return withRequestLog('scim', event, async (summary) => {
    const { baseUrl, path } = locate(event);
    const method = event.requestContext.http.method.toUpperCase();
    summary.operation = `${method} ${path.replace(/^(\/\w+\/)[^/]+/, '$1{id}')}`;
    store ??= createStore();
    const authorization = event.headers?.authorization;
    const authenticated = await authenticateScim(store, authorization);
    if (!authenticated) {
      const detail = /^Bearer\s+\S+/i.test(authorization ?? '') ? 'The SCIM token is unknown or revoked, or SCIM is disabled' : 'A SCIM bearer token is required';
      return errorResult(new ScimError(401, detail), { 'www-authenticate': 'Bearer realm="scim"' });
    }
    try {
      // Per SCIM token (a prefix of its hash), after authentication, so an unknown token never makes a counter.
      await applyCallerRateLimit(store, `scim:${hashSecret(authorization!.replace(/^Bearer\s+/i, '').trim()).slice(0, 32)}`, rateLimits);
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      return errorResult(new ScimError(429, error.message), { 'retry-after': String(error.retryAfterSeconds) });
    }
    try {
      const query = new URLSearchParams(event.rawQueryString ?? '');
      // Writes are audited (lib/scim/audit.ts): one entry each, in the organization's chain.
      const response = await withAuditSource({ sourceIp: sourceIp(event), userAgent: event.headers?.['user-agent'] }, () =>
        auditedScimRequest(store!, authenticated, { method, path }, () => handleScimRequest(store!, authenticated.organization, { method, path, query, body: parseBody(event), baseUrl })),
      );
      return result(response.status, response.body, response.headers);
    } catch (error) {
      if (error instanceof ScimError) return errorResult(error);
      throw error;
    }
  });
}
