import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { jsonResult } from '../shared/apigw.js';
import { withRequestLog } from '../shared/requestLog.js';

const scimError = 'urn:ietf:params:scim:api:messages:2.0:Error';

function scimErrorResult(status: number, detail: string, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  const result = jsonResult(status, { schemas: [scimError], status: String(status), detail }, headers);
  return { ...result, headers: { ...result.headers, 'content-type': 'application/scim+json' } };
}

/**
 * SCIM 2.0 (RFC 7644) for identity providers. Every request must carry the organization's SCIM bearer
 * token; tokens are minted by configureScim, which arrives with the SCIM work. Until an organization has
 * one, every request is unauthorized, with the RFC's error body.
 */
export function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return withRequestLog('scim', event, async () => route(event));
}

async function route(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const authorization = event.headers?.authorization ?? '';
  const detail = /^Bearer\s+\S+/i.test(authorization) ? 'The SCIM token is unknown or revoked, or SCIM is disabled' : 'A SCIM bearer token is required';
  return scimErrorResult(401, detail, { 'www-authenticate': 'Bearer realm="scim"' });
}
