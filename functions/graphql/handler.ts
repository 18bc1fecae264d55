import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { bearerVerifierFromEnv } from '../../lib/access/bearer.js';
import type { BlobStorage } from '../../lib/files/port.js';
import { lazyBlobStorageFromEnv } from '../../lib/files/lazyBlobStorage.js';
import type { Mailer } from '../../lib/mail/mailer.js';
import { mailerFromEnv } from '../../lib/mail/ses.js';
import { CallerConcurrency, callerRateLimitsFromEnv } from '../../lib/accounts/rateLimit.js';
import { createStore } from '../../lib/store/client.js';
import { currentMeter, meterSignal } from '../../lib/store/meter.js';
import { withAuditSource } from '../../lib/store/auditContext.js';
import { allowedOriginsFromEnv, jsonResult, requestFromEvent, resultFromResponse, sourceIp } from '../shared/apigw.js';
import { withRequestLog } from '../shared/requestLog.js';
import { queryBudgetFromEnv, requestLimits } from './limits.js';
import { createGraphQLServer, finishRequest, requestOperations } from './yoga.js';

let blobs: BlobStorage | undefined;
let mailer: Mailer | undefined;
const yoga = createGraphQLServer({
  store: createStore(),
  blobs: () => (blobs ??= lazyBlobStorageFromEnv()),
  graphiql: process.env.PLM_GRAPHIQL === 'true',
  faultInjection: process.env.PLM_FAULT_INJECTION === 'true',
  introspection: process.env.PLM_INTROSPECTION !== 'false',
  allowedOrigins: allowedOriginsFromEnv(),
  mail: { mailer: () => (mailer ??= mailerFromEnv()), appUrl: process.env.APP_URL || 'http://localhost:3000' },
  bearer: bearerVerifierFromEnv(),
  rateLimits: callerRateLimitsFromEnv(),
  queryBudget: queryBudgetFromEnv(),
  concurrency: CallerConcurrency.fromEnv(),
});

export function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return withRequestLog('graphql', event, async (summary) => {
    // API Gateway has read the whole body already; refuse it before anything decodes or parses it.
    if ((event.body?.length ?? 0) > requestLimits.maxBodyBytes * (event.isBase64Encoded ? 4 / 3 : 1)) {
      return jsonResult(400, { errors: [{ message: `The request is larger than ${requestLimits.maxBodyBytes} bytes`, extensions: { code: 'REQUEST_TOO_LARGE', limit: requestLimits.maxBodyBytes } }] });
    }
    // Where the runtime tells when the client goes away (the local server), the request carries it.
    // yoga's own Request (its fetch API): a string body is handed over as it is, not through a web stream.
    const request = requestFromEvent(event, meterSignal(currentMeter()), yoga.fetchAPI.Request);
    try {
      // Every mutation's audit entry names where the request came from (lib/audit/operations.ts).
      const response = await withAuditSource({ sourceIp: sourceIp(event), userAgent: event.headers?.['user-agent'] }, () =>
        // The body as delivered: the read-ahead looks at it without reading the request's stream again.
        yoga.fetch(request, { rawBody: event.isBase64Encoded || typeof event.body !== 'string' ? undefined : event.body }),
      );
      summary.operation = requestOperations.get(request);
      return await resultFromResponse(response);
    } finally {
      finishRequest(request);
    }
  });
}
