import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { PlmStack } from '../../infra/stack.js';
import { tableDefinition } from '../../lib/store/table.js';

type Resource = { Type: string; Properties: Record<string, any> };

let app: App;
let stack: PlmStack;
let template: Template;

// Synthesizing bundles the three handlers with esbuild: do it once for the whole file.
beforeAll(() => {
  app = new App();
  stack = new PlmStack(app, 'PlmTest', {
    appUrl: 'https://app.example.com',
    authAllowedOrigins: 'https://app.example.com',
    mailFrom: 'PLM <no-reply@example.com>',
    passwordPolicy: 'nist',
  });
  template = Template.fromStack(stack);
}, 120_000);

function resourcesOfType(type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

/** Logical id of the Lambda function a route's integration invokes. */
function functionBehindRoute(route: Resource): string {
  const integrationId = (route.Properties.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
  const integration = resourcesOfType('AWS::ApiGatewayV2::Integration')[integrationId.Ref];
  expect(integration?.Properties.PayloadFormatVersion).toBe('2.0');
  return integration!.Properties.IntegrationUri['Fn::GetAtt'][0];
}

describe('HTTP API', () => {
  it('routes exactly the public paths to their handlers', () => {
    const routes = Object.values(resourcesOfType('AWS::ApiGatewayV2::Route'));
    const handlerOf = Object.fromEntries(
      routes.map((route) => [route.Properties.RouteKey, functionBehindRoute(route).replace(/Function[0-9A-F]{8}$/, '')]),
    );
    expect(handlerOf).toEqual({
      'POST /graphql': 'Graphql',
      'GET /graphql': 'Graphql',
      'ANY /auth/{proxy+}': 'Auth',
      'ANY /scim/v2': 'Scim',
      'ANY /scim/v2/{proxy+}': 'Scim',
    });
  });

  it('writes access logs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context\\.requestId') },
    });
  });
});

describe('Lambda functions', () => {
  it('are exactly three, arm64 on nodejs22.x, with the service configuration', () => {
    template.resourceCountIs('AWS::Lambda::Function', 3);
    template.allResourcesProperties('AWS::Lambda::Function', {
      Architectures: ['arm64'],
      Runtime: 'nodejs22.x',
      Handler: 'index.handler',
      MemorySize: 1024,
      Timeout: 29,
      Environment: {
        Variables: Match.objectLike({
          TABLE_NAME: Match.anyValue(),
          COGNITO_USER_POOL_ID: Match.anyValue(),
          COGNITO_CLIENT_ID: Match.anyValue(),
          APP_URL: 'https://app.example.com',
          AUTH_ALLOWED_ORIGINS: 'https://app.example.com',
          MAIL_FROM: 'PLM <no-reply@example.com>',
          PASSWORD_POLICY: 'nist',
        }),
      },
    });
  });

  it('lets only the auth function use Cognito admin APIs and SES, pinned to the sender address', () => {
    const policies = Object.entries(resourcesOfType('AWS::IAM::Policy'));
    const actionsOf = (policy: Resource) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) => s.Action);
    for (const [logicalId, policy] of policies) {
      const privileged = actionsOf(policy).filter((action) => /^(cognito-idp|ses):/.test(action));
      expect(privileged, logicalId).toEqual(logicalId.startsWith('AuthFunction') ? ['cognito-idp:Admin*', 'ses:SendEmail'] : []);
    }
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'ses:SendEmail',
            Condition: { StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } },
          }),
        ]),
      },
    });
  });
});

describe('DynamoDB table', () => {
  const stringAttribute = (AttributeName: string) => ({ AttributeName, AttributeType: 'S' });
  const keySchema = (partitionKey: string, sortKey: string) => [
    { AttributeName: partitionKey, KeyType: 'HASH' },
    { AttributeName: sortKey, KeyType: 'RANGE' },
  ];

  it('has the keys, indexes and TTL of tableDefinition, billed on demand', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    const indexKeys = tableDefinition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: keySchema(tableDefinition.partitionKey, tableDefinition.sortKey),
      AttributeDefinitions: [tableDefinition.partitionKey, tableDefinition.sortKey, ...indexKeys].map(stringAttribute),
      GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    });
  });

  // cdk-nag's DDB3 rule does not see TableV2 (AWS::DynamoDB::GlobalTable), so point-in-time recovery is checked here.
  it('has point-in-time recovery and deletion protection, and is retained on stack deletion', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            DeletionProtectionEnabled: true,
          }),
        ],
      },
    });
  });
});

describe('Cognito', () => {
  it('has an email user pool without self sign-up and a secretless admin-auth client', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      UsernameAttributes: ['email'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      DeletionProtection: 'ACTIVE',
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 15 }) },
    });
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      ExplicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    });
  });
});

it('outputs the API URL, table name and user pool ids', () => {
  for (const output of ['ApiUrl', 'TableName', 'UserPoolId', 'UserPoolClientId']) {
    template.hasOutput(output, {});
  }
});

it('has no unacknowledged cdk-nag AwsSolutions errors', { timeout: 30_000 }, () => {
  const report = new AwsSolutionsChecks(app).validateScope(stack);
  const errors = report.violations
    .filter((violation) => violation.severity === 'error')
    .map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`);
  expect(errors).toEqual([]);
});
