import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { currentMeter, newMeter, withMeter } from '../../lib/store/meter.js';

/**
 * One structured JSON line per request (Powertools Logger): request id, route, operation, HTTP status,
 * error code, duration and the DynamoDB capacity the request consumed. Never a header, a body or a
 * credential; a stack trace only for a server fault, never for the client's own mistakes.
 */
const logger = new Logger({ serviceName: 'plm', logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'INFO' });

/**
 * CloudWatch metrics in the embedded metric format (Powertools Metrics), namespace PLM, by handler: Requests,
 * ClientErrors (4xx), ServerErrors (5xx), Latency, and the DynamoDB requests and capacity a request used.
 * Published only in Lambda (the local stack's output stays the request lines).
 */
const metrics = process.env.AWS_LAMBDA_FUNCTION_NAME ? new Metrics({ namespace: 'PLM', serviceName: 'plm' }) : undefined;

/**
 * A server fault: a 5xx, or an answer whose error `code` is INTERNAL_SERVER_ERROR (GraphQL
 * masks a fault in a 200, which no API Gateway 5xx metric counts). The stack alarms on it (infra/stack/alarms.ts).
 */
function publishMetrics(handlerName: string, status: number, durationMs: number, meter: { requests: number; readCapacityUnits: number; writeCapacityUnits: number }, code?: string): void {
  const fault = status >= 500 || code === 'INTERNAL_SERVER_ERROR';
  if (!metrics) return;
  metrics.addDimension('handler', handlerName);
  metrics.addMetric('Requests', MetricUnit.Count, 1);
  metrics.addMetric('ClientErrors', MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
  metrics.addMetric('ServerErrors', MetricUnit.Count, fault ? 1 : 0);
  metrics.addMetric('Latency', MetricUnit.Milliseconds, durationMs);
  metrics.addMetric('DynamoDBRequests', MetricUnit.Count, meter.requests);
  metrics.addMetric('ReadCapacityUnits', MetricUnit.Count, meter.readCapacityUnits);
  metrics.addMetric('WriteCapacityUnits', MetricUnit.Count, meter.writeCapacityUnits);
  metrics.publishStoredMetrics();
}

/**
 * A server fault that the answer hides from the client (GraphQL masks it as INTERNAL_SERVER_ERROR in a 200):
 * logged at ERROR with its stack, so that the operator sees what the client was not told.
 */
export function logServerFault(error: unknown, details: Record<string, unknown> = {}): void {
  logger.error('server fault', { ...details, error: error instanceof Error ? error : new Error(String(error)) });
}

export interface RequestSummary {
  /** GraphQL root fields (`component.findOne`); the route for REST and SCIM. */
  operation?: string | undefined;
}

/** The first error code a response body carries: GraphQL `errors[].extensions.code` or a flat `{ code }`. */
function errorCodeOf(result: APIGatewayProxyStructuredResultV2): string | undefined {
  const body = typeof result.body === 'string' ? result.body : '';
  // Only error bodies are parsed: a large successful answer is never read twice.
  if ((result.statusCode ?? 200) < 400 && !body.includes('"errors"')) return undefined;
  try {
    const parsed = JSON.parse(body) as { code?: unknown; errors?: { extensions?: { code?: unknown } }[]; status?: unknown; scimType?: unknown };
    const code = parsed.errors?.[0]?.extensions?.code ?? parsed.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a handler with a capacity meter (the local server's, when it already measures), answers with the
 * request id in `x-request-id`, and writes the request's line.
 */
export async function withRequestLog(
  handlerName: string,
  event: APIGatewayProxyEventV2,
  run: (summary: RequestSummary) => Promise<APIGatewayProxyStructuredResultV2>,
): Promise<APIGatewayProxyStructuredResultV2> {
  const started = performance.now();
  const meter = currentMeter() ?? newMeter();
  const summary: RequestSummary = {};
  const requestId = event.requestContext.requestId;
  const line = {
    requestId,
    handler: handlerName,
    route: event.routeKey,
    method: event.requestContext.http.method,
  };
  try {
    const result = await withMeter(meter, () => run(summary));
    const status = result.statusCode ?? 200;
    const durationMs = Math.round(performance.now() - started);
    const code = errorCodeOf(result);
    logger.info('request', {
      ...line,
      operation: summary.operation,
      status,
      code,
      durationMs,
      dynamodb: { ...meter },
    });
    publishMetrics(handlerName, status, durationMs, meter, code);
    return { ...result, headers: { ...result.headers, 'x-request-id': requestId } };
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    logger.error('request failed', { ...line, status: 500, durationMs, dynamodb: { ...meter }, error: error as Error });
    publishMetrics(handlerName, 500, durationMs, meter);
    throw error;
  }
}
