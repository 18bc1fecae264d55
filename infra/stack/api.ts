import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CfnOutput, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import { ApiMapping, DomainName, HttpApi, HttpMethod, LogGroupLogDestination, PayloadFormatVersion, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { CustomDomain } from './props.js';
import { logRetention, pascalCase, type FunctionName } from './functions.js';

/** An HTTP API with the one stage it is served from (custom domains map to it). */
export interface StagedApi {
  readonly api: HttpApi;
  readonly stage: HttpStage;
}

/** JSON access log lines from HTTP API context variables (the CDK default format uses REST API variables). */
const httpApiAccessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    sourceIp: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    routeKey: '$context.routeKey',
    path: '$context.path',
    protocol: '$context.protocol',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/** The API of GraphQL and the account routes. */
export function createHttpApi(stack: Stack, functions: Record<FunctionName, NodejsFunction>): StagedApi {
  const accessLogs = new logs.LogGroup(stack, 'ApiAccessLogs', {
    retention: logRetention,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const api = new HttpApi(stack, 'HttpApi', {
    description: 'PLM service: GraphQL and account routes',
    createDefaultStage: false,
  });
  const stage = api.addStage('DefaultStage', {
    stageName: '$default',
    autoDeploy: true,
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: httpApiAccessLogFormat },
    // The stage's rate limit of the GraphQL and SCIM routes (per deployment, i.e. per tenant); account
    // routes add their own per-IP limits.
    throttle: { rateLimit: 200, burstLimit: 400 },
  });

  const integrate = (name: FunctionName) =>
    new HttpLambdaIntegration(`${pascalCase(name)}Integration`, functions[name], {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
  const graphql = integrate('graphql');
  const auth = integrate('auth');

  // OPTIONS reaches the handler, which answers CORS preflights for the allowed origins only.
  api.addRoutes({ path: '/graphql', methods: [HttpMethod.POST, HttpMethod.GET, HttpMethod.OPTIONS], integration: graphql });
  api.addRoutes({ path: '/auth/{proxy+}', methods: [HttpMethod.ANY], integration: auth });

  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'Every handler authenticates the caller itself (x-api-key, Bearer JWT, session cookie with CSRF header, SCIM bearer token), as the interface spec requires; /auth/signup and /auth/config are public by design.',
  });
  return { api, stage };
}

/**
 * SCIM on an API of its own ({scim_url} is a host separate from the API host, as the spec says): the
 * identity provider's traffic has its own throttle, access log and custom domain.
 */
export function createScimApi(stack: Stack, scimFunction: NodejsFunction): StagedApi {
  const accessLogs = new logs.LogGroup(stack, 'ScimApiAccessLogs', { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
  const api = new HttpApi(stack, 'ScimApi', { description: 'PLM service: SCIM 2.0 for identity providers', createDefaultStage: false });
  const stage = api.addStage('ScimDefaultStage', {
    stageName: '$default',
    autoDeploy: true,
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: httpApiAccessLogFormat },
    throttle: { rateLimit: 50, burstLimit: 100 },
  });
  const scim = new HttpLambdaIntegration('ScimIntegration', scimFunction, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 });
  api.addRoutes({ path: '/scim/v2', methods: [HttpMethod.ANY], integration: scim });
  api.addRoutes({ path: '/scim/v2/{proxy+}', methods: [HttpMethod.ANY], integration: scim });
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason: "The SCIM handler authenticates every request with the organization's SCIM bearer token (RFC 7644), checked against its hash on every request.",
  });
  return { api, stage };
}

/** Serves an API at https://<domainName> with its certificate; returns that base address. */
export function customDomain(stack: Stack, id: string, { api, stage }: StagedApi, domain: CustomDomain): string {
  const domainName = new DomainName(stack, `${id}DomainName`, {
    domainName: domain.domainName,
    certificate: acm.Certificate.fromCertificateArn(stack, `${id}Certificate`, domain.certificateArn),
  });
  new ApiMapping(stack, `${id}ApiMapping`, { api, domainName, stage });
  new CfnOutput(stack, `${id}DomainTarget`, { value: domainName.regionalDomainName, description: `CNAME (or alias) ${domain.domainName} to this` });
  return `https://${domain.domainName}`;
}
