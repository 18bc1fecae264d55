import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** An API Gateway HTTP API (payload 2.0) event as a Fetch Request. */
/** The event as a fetch Request; `signal` aborts it when the client goes away (where the runtime tells). */
export function requestFromEvent(event: APIGatewayProxyEventV2, signal?: AbortSignal, RequestImpl: typeof Request = Request): Request {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  const host = event.headers?.host ?? event.requestContext.domainName ?? 'localhost';
  const proto = event.headers?.['x-forwarded-proto'] ?? 'https';
  const url = `${proto}://${host}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
  const method = event.requestContext.http.method;
  const hasBody = event.body !== undefined && event.body !== null && method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? (event.isBase64Encoded ? Buffer.from(event.body!, 'base64') : event.body) : undefined;
  return new RequestImpl(url, { method, headers, body, ...(signal ? { signal } : {}) });
}

/**
 * Sent with every response of the three handlers: API responses are never sniffed, framed, cached or
 * given a referrer, and browsers keep to HTTPS. GraphiQL (local stack only) sets its own page policy.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The browser origins of the web application (APP_URL's origin unless AUTH_ALLOWED_ORIGINS lists them). */
export function allowedOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = env.AUTH_ALLOWED_ORIGINS ?? (env.APP_URL ? new URL(env.APP_URL).origin : '');
  return listed
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/** A Fetch Response as an API Gateway HTTP API result; Set-Cookie headers become `cookies`. */
export async function resultFromResponse(response: Response): Promise<APIGatewayProxyStructuredResultV2> {
  const isPage = (response.headers.get('content-type') ?? '').startsWith('text/html');
  const headers: Record<string, string> = isPage ? { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } : { ...securityHeaders };
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  return {
    statusCode: response.status,
    headers,
    ...(cookies.length ? { cookies } : {}),
    body: await response.text(),
    isBase64Encoded: false,
  };
}

/** The source address API Gateway saw, for rate limits keyed on the client IP. */
export function sourceIp(event: APIGatewayProxyEventV2): string {
  return event.requestContext.http.sourceIp;
}

export function jsonResult(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...securityHeaders, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), isBase64Encoded: false };
}
