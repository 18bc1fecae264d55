import { afterEach, describe, expect, it, vi } from 'vitest';

/** The module loaded fresh with AWS_LAMBDA_FUNCTION_NAME set (or not); what it writes to stdout, collected. */
function inLambda(functionName: string): string[] {
  vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', functionName);
  vi.resetModules();
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe('request metrics (Powertools, embedded metric format)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('publishes one EMF record per request in Lambda, by handler, with its status class, latency and DynamoDB use', async () => {
    const lines = inLambda('plm-graphql');
    const { withRequestLog } = await import('../../functions/shared/requestLog.js');
    const event = { routeKey: 'POST /graphql', requestContext: { requestId: 'r1', http: { method: 'POST' } } } as never;
    await withRequestLog('graphql', event, async () => ({ statusCode: 403, body: '{"errors":[{"extensions":{"code":"FORBIDDEN"}}]}' }));
    const emf = lines
      .map((line) => line.trim())
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line));
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ handler: 'graphql', Requests: 1, ClientErrors: 1, ServerErrors: 0, DynamoDBRequests: 0 });
    expect(emf[0]._aws.CloudWatchMetrics[0].Namespace).toBe('PLM');
    expect(typeof emf[0].Latency).toBe('number');
  });

  it('counts a GraphQL answer masking a server fault (INTERNAL_SERVER_ERROR in a 200) as a server error, with the service and handler dimensions the alarm reads', async () => {
    const lines = inLambda('plm-graphql');
    const { withRequestLog } = await import('../../functions/shared/requestLog.js');
    const event = { routeKey: 'POST /graphql', requestContext: { requestId: 'r3', http: { method: 'POST' } } } as never;
    await withRequestLog('graphql', event, async () => ({ statusCode: 200, body: '{"errors":[{"message":"Unexpected error.","extensions":{"code":"INTERNAL_SERVER_ERROR"}}],"data":null}' }));
    const emf = lines
      .map((line) => line.trim())
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line));
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ service: 'plm', handler: 'graphql', Requests: 1, ClientErrors: 0, ServerErrors: 1 });
    expect(emf[0]._aws.CloudWatchMetrics[0].Dimensions[0]).toEqual(expect.arrayContaining(['service', 'handler']));
  });

  it('publishes nothing outside Lambda (the local stack)', async () => {
    const lines = inLambda('');
    const { withRequestLog } = await import('../../functions/shared/requestLog.js');
    await withRequestLog('graphql', { routeKey: 'POST /graphql', requestContext: { requestId: 'r2', http: { method: 'POST' } } } as never, async () => ({ statusCode: 200, body: '{}' }));
    expect(lines.some((line) => line.includes('"_aws"'))).toBe(false);
  });
});
