import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { passwordPolicyFromEnv } from '../../lib/accounts/passwordPolicy.js';
import { jsonResult } from '../shared/apigw.js';
import { withRequestLog } from '../shared/requestLog.js';

const passwordPolicy = passwordPolicyFromEnv();

/**
 * The account routes. Errors have the spec's flat body `{ code, message }`. GET /auth/config answers the
 * password policy, unauthenticated; signup and verification arrive with the accounts work.
 */
export function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return withRequestLog('auth', event, async () => route(event));
}

async function route(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const method = event.requestContext.http.method;
  const path = event.rawPath.replace(/\/+$/, '');
  if (path === '/auth/config') {
    if (method !== 'GET' && method !== 'HEAD') {
      return jsonResult(405, { code: 'AUTH_REQUEST_REJECTED', message: 'Use GET for /auth/config' }, { allow: 'GET, HEAD' });
    }
    return jsonResult(200, { passwordPolicy }, { 'cache-control': 'public, max-age=300' });
  }
  return jsonResult(404, { code: 'NOT_FOUND', message: `No route ${method} ${event.rawPath}` });
}
