import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** An API Gateway HTTP API (payload 2.0) event as a Fetch Request. */
export function requestFromEvent(event: APIGatewayProxyEventV2): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  if (event.cookies?.length) headers.set('cookie', event.cookies.join('; '));
  const host = event.headers?.host ?? event.requestContext.domainName ?? 'localhost';
  const proto = event.headers?.['x-forwarded-proto'] ?? 'https';
  const url = `${proto}://${host}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
  const method = event.requestContext.http.method;
  const hasBody = event.body !== undefined && event.body !== null && method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? (event.isBase64Encoded ? Buffer.from(event.body!, 'base64') : event.body) : undefined;
  return new Request(url, { method, headers, body });
}

/** A Fetch Response as an API Gateway HTTP API result; Set-Cookie headers become `cookies`. */
export async function resultFromResponse(response: Response): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = {};
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
  return { statusCode, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), isBase64Encoded: false };
}
