import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { originList, PlmStack } from '../../infra/stack.js';
import { tableDefinition } from '../../lib/store/table.js';

type Resource = { Type: string; Properties: Record<string, any> };

let app: App;
let stack: PlmStack;
let template: Template;

// Synthesizing bundles the five handlers with esbuild: do it once for the whole file.
beforeAll(() => {
  app = new App();
  stack = new PlmStack(app, 'PlmTest', {
    appUrl: 'https://app.example.com',
    authAllowedOrigins: 'https://app.example.com',
    mailFrom: 'PLM <no-reply@example.com>',
    passwordPolicy: 'nist',
    tenantName: 'acme',
    apiDomain: { domainName: 'api.acme.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/api' },
    scimDomain: { domainName: 'scim.acme.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/scim' },
    alarmEmail: 'ops@acme.example.com',
  });
  template = Template.fromStack(stack);
}, 120_000);

function resourcesOfType(type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

/** The service's functions: every Lambda function but the CDK trigger provider's (aws-cdk-lib/triggers). */
function serviceFunctions(of: Template = template): Record<string, Resource> {
  return Object.fromEntries(Object.entries(of.findResources('AWS::Lambda::Function') as Record<string, Resource>).filter(([id]) => !id.startsWith('AWSCDKTrigger')));
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
    const byApi = (apiPrefix: string) =>
      Object.fromEntries(
        routes.filter((route) => route.Properties.ApiId.Ref.startsWith(apiPrefix)).map((route) => [route.Properties.RouteKey, functionBehindRoute(route).replace(/Function[0-9A-F]{8}$/, '')]),
      );
    expect(byApi('HttpApi')).toEqual({
      'POST /graphql': 'Graphql',
      'GET /graphql': 'Graphql',
      'OPTIONS /graphql': 'Graphql',
      'ANY /auth/{proxy+}': 'Auth',
    });
    // SCIM is a host of its own.
    expect(byApi('ScimApi')).toEqual({ 'ANY /scim/v2': 'Scim', 'ANY /scim/v2/{proxy+}': 'Scim' });
    expect(routes).toHaveLength(6);
  });

  it('throttles each stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { DefaultRouteSettings: { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 } });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 } });
  });

  it('serves the API and SCIM on their custom domains with their certificates, and outputs {scim_url}', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 2);
    for (const [name, certificate] of [
      ['api.acme.example.com', 'api'],
      ['scim.acme.example.com', 'scim'],
    ]) {
      template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
        DomainName: name,
        DomainNameConfigurations: [Match.objectLike({ CertificateArn: `arn:aws:acm:eu-west-1:123456789012:certificate/${certificate}` })],
      });
    }
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 2);
    template.hasOutput('ApiUrl', { Value: 'https://api.acme.example.com' });
    template.hasOutput('ScimUrl', { Value: 'https://scim.acme.example.com/scim/v2' });
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
  it('are exactly six (three behind routes, webhooks, import jobs and the SAML resync) besides the CDK trigger provider, arm64 on nodejs22.x, with the service configuration', () => {
    expect(Object.keys(serviceFunctions())).toHaveLength(6);
    template.resourceCountIs('AWS::Lambda::Function', 7);
    for (const fn of Object.values(serviceFunctions())) expect(fn.Properties).toMatchObject({ Architectures: ['arm64'], Runtime: 'nodejs22.x', Handler: 'index.handler' });
    // The routed, stream and job functions share the service configuration (the resync needs only the pool and the table).
    for (const [id, fn] of Object.entries(serviceFunctions()).filter(([id]) => !id.startsWith('SamlResync'))) {
      expect(fn.Properties.Environment.Variables, id).toMatchObject({
        TABLE_NAME: expect.anything(),
        COGNITO_USER_POOL_ID: expect.anything(),
        COGNITO_CLIENT_ID: expect.anything(),
        APP_URL: 'https://app.example.com',
        AUTH_ALLOWED_ORIGINS: 'https://app.example.com',
        MAIL_FROM: 'PLM <no-reply@example.com>',
        PASSWORD_POLICY: 'nist',
      });
    }
  });

  it("routed functions answer within API Gateway's 29 s; the webhooks function has 120 s for a batch of attempts; an import job 15 minutes and more memory", () => {
    const functions = Object.entries(serviceFunctions()).map(([id, fn]) => [id.replace(/Function[0-9A-F]{8}$/, ''), fn.Properties] as const);
    expect(Object.fromEntries(functions.map(([id, fn]) => [id, fn.Timeout]))).toEqual({ Graphql: 29, Auth: 29, Scim: 29, Webhooks: 120, Jobs: 900, SamlResync: 300 });
    expect(Object.fromEntries(functions.map(([id, fn]) => [id, fn.MemorySize]))).toEqual({ Graphql: 1024, Auth: 1024, Scim: 1024, Webhooks: 1024, Jobs: 3008, SamlResync: 512 });
  });

  it('lets only the auth function use Cognito admin APIs (graphql only registers SAML identity providers), and only auth, graphql (invitations), webhooks (notifications) and jobs (change order mails) send mail, pinned to the sender address', () => {
    const policies = Object.entries(resourcesOfType('AWS::IAM::Policy'));
    const actionsOf = (policy: Resource) => (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) => s.Action);
    for (const [logicalId, policy] of policies) {
      const privileged = actionsOf(policy).filter((action) => /^(cognito-idp|ses):/.test(action));
      const federationActions = [
        'cognito-idp:CreateIdentityProvider',
        'cognito-idp:UpdateIdentityProvider',
        'cognito-idp:DescribeIdentityProvider',
        'cognito-idp:DescribeUserPoolClient',
        'cognito-idp:UpdateUserPoolClient',
      ];
      const expected = logicalId.startsWith('AuthFunction')
        ? ['cognito-idp:Admin*', 'ses:SendEmail']
        : logicalId.startsWith('GraphqlFunction')
          ? ['ses:SendEmail', ...federationActions]
          : logicalId.startsWith('SamlResyncFunction')
            ? federationActions
            : logicalId.startsWith('WebhooksFunction') || logicalId.startsWith('JobsFunction')
              ? ['ses:SendEmail']
              : [];
      expect(privileged, logicalId).toEqual(expected);
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

describe('files bucket', () => {
  const bucketId = (prefix: string) => {
    const ids = Object.keys(resourcesOfType('AWS::S3::Bucket')).filter((id) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id));
    expect(ids, prefix).toHaveLength(1);
    return ids[0]!;
  };
  const objectsOf = (id: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, '/*']] });
  const blockAll = { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true };

  it('is private, encrypted, retained, and logs access to a separate bucket', () => {
    // Files, their access logs, and the audit digests (see "audit digests").
    template.resourceCountIs('AWS::S3::Bucket', 3);
    const files = bucketId('FilesBucket');
    const logs = bucketId('AccessLogsBucket');
    const buckets = resourcesOfType('AWS::S3::Bucket');
    expect(buckets[files]).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        PublicAccessBlockConfiguration: blockAll,
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        VersioningConfiguration: { Status: 'Enabled' },
        LoggingConfiguration: { DestinationBucketName: { Ref: logs }, LogFilePrefix: 'files/' },
      },
    });
    expect(buckets[files]!.Properties.LifecycleConfiguration.Rules).toContainEqual(expect.objectContaining({ Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }));
    expect(buckets[logs]).toMatchObject({ DeletionPolicy: 'Retain', Properties: { PublicAccessBlockConfiguration: blockAll } });
    // Log delivery through a bucket policy limited to the files bucket (no LogDeliveryWrite ACL).
    expect(buckets[logs]!.Properties.AccessControl).toBeUndefined();
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logs },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'logging.s3.amazonaws.com' },
            Action: 's3:PutObject',
            Condition: Match.objectLike({ ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [files, 'Arn'] } } }),
          }),
        ]),
      },
    });
  });

  it('denies requests without TLS, on both buckets', () => {
    for (const id of [bucketId('FilesBucket'), bucketId('AccessLogsBucket')]) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              Resource: [{ 'Fn::GetAtt': [id, 'Arn'] }, objectsOf(id)],
            }),
          ]),
        },
      });
    }
  });

  it('lets the app origins PUT and GET with the signed upload headers', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          Match.objectLike({
            AllowedOrigins: ['https://app.example.com'],
            AllowedMethods: ['PUT', 'GET'],
            AllowedHeaders: ['content-type', 'content-length', 'x-amz-checksum-sha256'],
          }),
        ],
      },
    });
    expect(originList(' https://app.example.com,https://admin.example.com ,, ')).toEqual(['https://app.example.com', 'https://admin.example.com']);
  });

  it('leaves introspection on for the graphql function unless the stack turns it off', () => {
    const variables = Object.values(serviceFunctions()).map((fn) => fn.Properties.Environment.Variables.PLM_INTROSPECTION);
    expect(variables.filter((value) => value !== undefined)).toEqual(['true']);
    const off = Template.fromStack(
      new PlmStack(new App(), 'PlmNoIntrospection', {
        appUrl: 'https://app.example.com',
        authAllowedOrigins: 'https://app.example.com',
        mailFrom: 'no-reply@example.com',
        passwordPolicy: 'standard',
        graphqlIntrospection: false,
      }),
    );
    const offVariables = Object.values(serviceFunctions(off)).map((fn) => fn.Properties.Environment.Variables.PLM_INTROSPECTION);
    expect(offVariables.filter((value) => value !== undefined)).toEqual(['false']);
  }, 120_000);

  it('is passed as FILES_BUCKET to the graphql function only', () => {
    const files = bucketId('FilesBucket');
    const functions = serviceFunctions();
    const filesBucketOf = Object.fromEntries(Object.entries(functions).map(([id, fn]) => [id.replace(/Function[0-9A-F]{8}$/, ''), fn.Properties.Environment.Variables.FILES_BUCKET]));
    expect(filesBucketOf).toEqual({ Graphql: { Ref: files }, Auth: undefined, Scim: undefined, Webhooks: undefined, Jobs: { Ref: files }, SamlResync: undefined });
  });

  it('is readable and writable by the graphql function, readable and writable (GetObject, PutObject: an import copies files) by the jobs function', () => {
    const files = bucketId('FilesBucket');
    const s3Statements = Object.fromEntries(
      Object.entries(resourcesOfType('AWS::IAM::Policy')).map(([logicalId, policy]) => [
        logicalId.replace(/FunctionRoleDefaultPolicy[0-9A-F]{8}$/, ''),
        (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
          // Actions as a sorted list: the order differs with the @aws-cdk/aws-iam:minimizePolicies flag of cdk.json.
          .map((statement) => ({ ...statement, Action: [statement.Action].flat().sort() }))
          .filter((statement) => statement.Action.some((action) => action.startsWith('s3:'))),
      ]),
    );
    expect(s3Statements).toEqual({
      Graphql: [
        { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: objectsOf(files) },
        { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: { 'Fn::GetAtt': [files, 'Arn'] } },
      ],
      Auth: [],
      Scim: [],
      // The daily audit digests only (see "audit digests").
      Webhooks: [{ Effect: 'Allow', Action: ['s3:PutObject'], Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId('AuditDigestBucket'), 'Arn'] }, '/audit-digests/*']] } }],
      Jobs: [{ Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: objectsOf(files) }],
      SamlResync: [],
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

describe('SAML federation', () => {
  const clients = () => Object.entries(resourcesOfType('AWS::Cognito::UserPoolClient'));
  const federatedClientId = () => clients().find(([id]) => id.startsWith('UserPoolFederatedClient'))![0];

  it('has a hosted prefix domain named after the tenant', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'plm-acme', UserPoolId: { Ref: Match.stringLikeRegexp('^UserPool') } });
  });

  it('has a second, secretless client for the code grant with PKCE, openid email profile, calling back /auth/saml/callback, with no provider until one is registered', () => {
    expect(clients()).toHaveLength(2);
    const federated = resourcesOfType('AWS::Cognito::UserPoolClient')[federatedClientId()]!.Properties;
    expect(federated).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      CallbackURLs: ['https://api.acme.example.com/auth/saml/callback'],
    });
    expect(federated.SupportedIdentityProviders ?? []).toEqual([]);
    // The password client stays without OAuth.
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', { ExplicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'], AllowedOAuthFlowsUserPoolClient: false });
  });

  it('tells the auth function the domain URL, the federated client and the callback, and the graphql function the client', () => {
    const functions = resourcesOfType('AWS::Lambda::Function');
    const env = (prefix: string) => Object.entries(functions).find(([id]) => id.startsWith(prefix))![1].Properties.Environment.Variables;
    expect(env('AuthFunction')).toMatchObject({
      COGNITO_FEDERATED_CLIENT_ID: { Ref: federatedClientId() },
      SAML_CALLBACK_URL: 'https://api.acme.example.com/auth/saml/callback',
      SAML_FEDERATION_URL: { 'Fn::Join': ['', ['https://', { Ref: Object.keys(resourcesOfType('AWS::Cognito::UserPoolDomain'))[0] }, '.auth.', { Ref: 'AWS::Region' }, '.amazoncognito.com']] },
    });
    expect(env('AuthFunction').SAML_TOKEN_ISSUER).toBeUndefined();
    expect(env('GraphqlFunction')).toMatchObject({ COGNITO_FEDERATED_CLIENT_ID: { Ref: federatedClientId() } });
    expect(env('ScimFunction').COGNITO_FEDERATED_CLIENT_ID).toBeUndefined();
  });

  it("re-syncs the pool after the federated client: a trigger whose properties are the client's, so any deployment that updates (or replaces) the client runs it", () => {
    const triggers = Object.entries(resourcesOfType('Custom::Trigger'));
    expect(triggers).toHaveLength(1);
    const [triggerId, trigger] = triggers[0]!;
    const resync = Object.entries(resourcesOfType('AWS::Lambda::Function')).find(([id]) => id.startsWith('SamlResyncFunction'))!;
    // The function's current version: a new one (so a run) whenever its code or configuration changes.
    expect(trigger.Properties.HandlerArn.Ref).toMatch(/^SamlResyncFunctionCurrentVersion/);
    expect(trigger.Properties.FederatedClient).toMatchObject({
      ClientId: { Ref: federatedClientId() },
      Resource: { Type: 'AWS::Cognito::UserPoolClient', Properties: resourcesOfType('AWS::Cognito::UserPoolClient')[federatedClientId()]!.Properties },
    });
    expect((template.toJSON().Resources[triggerId].DependsOn ?? []) as string[]).toContain(federatedClientId());
    expect(resync[1].Properties.Environment.Variables.COGNITO_FEDERATED_CLIENT_ID).toEqual({ Ref: federatedClientId() });
    expect(Object.keys(resync[1].Properties.Environment.Variables).sort()).toEqual(['COGNITO_FEDERATED_CLIENT_ID', 'COGNITO_USER_POOL_ID', 'TABLE_NAME']);
    template.hasOutput('FederatedClientId', { Value: { Ref: federatedClientId() } });
  });

  it("gives the resync function read access to the table, writes to the lease item only, and the pool's identity-provider and client actions only", () => {
    const policy = Object.entries(resourcesOfType('AWS::IAM::Policy')).find(([id]) => id.startsWith('SamlResyncFunctionRole'))![1];
    const statements = policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown; Resource: unknown }[];
    const actions = statements.flatMap((s) => s.Action);
    expect(actions.filter((a) => /^dynamodb:(Put|Delete|Update|BatchWrite)/.test(a))).toEqual(['dynamodb:PutItem', 'dynamodb:DeleteItem']);
    expect(statements.find((s) => ([] as string[]).concat(s.Action).includes('dynamodb:PutItem'))!.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['LOCK#SAMLFEDERATEDCLIENT'] },
    });
    expect(actions.filter((a) => a.startsWith('cognito-idp:')).sort()).toEqual([
      'cognito-idp:CreateIdentityProvider',
      'cognito-idp:DescribeIdentityProvider',
      'cognito-idp:DescribeUserPoolClient',
      'cognito-idp:UpdateIdentityProvider',
      'cognito-idp:UpdateUserPoolClient',
    ]);
    expect(actions.some((a) => a.startsWith('ses:') || a.startsWith('s3:'))).toBe(false);
  });

  it('outputs the ACS URL and the SP entity id for the identity providers', () => {
    template.hasOutput('SamlAcsUrl', { Value: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('^https://'), Match.stringLikeRegexp('/saml2/idpresponse$')])] } });
    template.hasOutput('SamlEntityId', { Value: { 'Fn::Join': ['', ['urn:amazon:cognito:sp:', { Ref: Match.stringLikeRegexp('^UserPool') }]] } });
  });
});

describe('operations', () => {
  it('alarms on errors, throttles and duration of every function, 5xx and latency of both APIs, masked GraphQL faults, table throttles and errors, webhook lag, and change order mails that failed for good', () => {
    const alarms = Object.values(resourcesOfType('AWS::CloudWatch::Alarm'));
    const metrics = alarms.map((alarm) => `${alarm.Properties.Namespace}:${alarm.Properties.MetricName}`).sort();
    expect(metrics).toEqual(
      [
        ...['Graphql', 'Auth', 'Scim', 'Webhooks', 'Jobs'].flatMap(() => ['AWS/Lambda:Errors', 'AWS/Lambda:Throttles', 'AWS/Lambda:Duration']),
        'AWS/ApiGateway:5xx',
        'AWS/ApiGateway:5xx',
        'AWS/ApiGateway:Latency',
        'AWS/ApiGateway:Latency',
        'AWS/DynamoDB:ReadThrottleEvents',
        'AWS/DynamoDB:WriteThrottleEvents',
        'AWS/DynamoDB:SystemErrors',
        'AWS/Lambda:IteratorAge',
        'PLM:ChangeOrderMailsFailed',
        'PLM:ServerErrors',
      ].sort(),
    );
    // A mail that failed for good: the jobs function's log line, counted by a metric filter on its log group.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: Match.stringLikeRegexp('^JobsFunctionLogs') },
      FilterPattern: '"change order mails failed: not sent after the last attempt"',
      MetricTransformations: [{ MetricNamespace: 'PLM', MetricName: 'ChangeOrderMailsFailed', MetricValue: '1' }],
    });
    // GraphQL masks a server fault in a 200: the request log's own ServerErrors metric counts it, alarmed at one.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'PLM',
      MetricName: 'ServerErrors',
      Dimensions: Match.arrayWith([
        { Name: 'handler', Value: 'graphql' },
        { Name: 'service', Value: 'plm' },
      ]),
      Threshold: 1,
    });
    const topic = Object.keys(resourcesOfType('AWS::SNS::Topic'))[0]!;
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@acme.example.com', TopicArn: { Ref: topic } });
  });

  it('tags every resource with its tenant, and declares the sender as an SES identity', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Tags: Match.arrayWith([{ Key: 'plm:tenant', Value: 'acme' }]) });
    template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'no-reply@example.com' });
  });
});

describe('webhooks', () => {
  const webhooksFunction = () => Object.keys(resourcesOfType('AWS::Lambda::Function')).find((id) => id.startsWith('WebhooksFunction'))!;

  it('the table streams new and old images to the webhooks function, from the latest record, in batches', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: webhooksFunction() },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'StreamArn'] },
      StartingPosition: 'LATEST',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 5,
    });
  });

  it('runs the webhooks function every minute for due retries', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [webhooksFunction(), 'Arn'] } })],
    });
  });

  it('runs the webhooks function daily at 07:00 UTC to mail the notification digests', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(0 7 * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [webhooksFunction(), 'Arn'] }, Input: JSON.stringify({ digest: true }) })],
    });
  });

  it('derives secrets from a generated key in Secrets Manager that only graphql and webhooks may read, named (never valued) in their environment', () => {
    const secrets = Object.keys(resourcesOfType('AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(1);
    template.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.objectLike({ PasswordLength: 64 }) });
    const functions = serviceFunctions();
    const withKey = Object.entries(functions)
      .filter(([, fn]) => fn.Properties.Environment.Variables.WEBHOOK_SIGNING_KEY_SECRET_ID)
      .map(([id]) => id.replace(/Function[0-9A-F]{8}$/, ''));
    expect(withKey.sort()).toEqual(['Graphql', 'Webhooks']);
    for (const fn of Object.values(functions)) expect(fn.Properties.Environment.Variables.WEBHOOK_SIGNING_KEY).toBeUndefined();
    const readers = Object.values(resourcesOfType('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.PolicyDocument).includes('secretsmanager:GetSecretValue'))
      .flatMap((policy) => policy.Properties.Roles.map((role: { Ref: string }) => role.Ref.replace(/FunctionRole[0-9A-F]{8}$/, '')));
    expect(readers.sort()).toEqual(['Graphql', 'Webhooks']);
  });
});

describe('audit digests', () => {
  const digestBucket = () => {
    const ids = Object.keys(resourcesOfType('AWS::S3::Bucket')).filter((id) => /^AuditDigestBucket[0-9A-F]{8}$/.test(id));
    expect(ids).toHaveLength(1);
    return ids[0]!;
  };
  const webhooksFunction = () => Object.keys(resourcesOfType('AWS::Lambda::Function')).find((id) => id.startsWith('WebhooksFunction'))!;

  it('keeps them in a bucket of their own under Object Lock in COMPLIANCE mode for 400 days, versioned, private, encrypted, retained, access-logged', () => {
    const bucket = resourcesOfType('AWS::S3::Bucket')[digestBucket()]!;
    const accessLogs = Object.keys(resourcesOfType('AWS::S3::Bucket')).find((id) => id.startsWith('AccessLogsBucket'))!;
    expect(bucket).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        ObjectLockEnabled: true,
        ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 400 } } },
        VersioningConfiguration: { Status: 'Enabled' },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LoggingConfiguration: { DestinationBucketName: { Ref: accessLogs }, LogFilePrefix: 'audit-digests/' },
      },
    });
    // No lifecycle rule could expire a version early (COMPLIANCE refuses it anyway).
    expect(bucket.Properties.LifecycleConfiguration).toBeUndefined();
  });

  it('denies requests without TLS', () => {
    const id = digestBucket();
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: id },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: [{ 'Fn::GetAtt': [id, 'Arn'] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, '/*']] }],
          }),
        ]),
      },
    });
  });

  it('runs the webhooks function daily at 00:30 UTC to keep the digests, the bucket named in its environment only', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(30 0 * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [webhooksFunction(), 'Arn'] }, Input: JSON.stringify({ auditDigest: true }) })],
    });
    const withBucket = Object.entries(serviceFunctions())
      .filter(([, fn]) => fn.Properties.Environment.Variables.AUDIT_DIGEST_BUCKET)
      .map(([id, fn]) => [id.replace(/Function[0-9A-F]{8}$/, ''), fn.Properties.Environment.Variables.AUDIT_DIGEST_BUCKET]);
    expect(withBucket).toEqual([['Webhooks', { Ref: digestBucket() }]]);
    template.hasOutput('AuditDigestBucketName', { Value: { Ref: digestBucket() } });
  });

  it('lets no role delete digests, change their retention or lift a legal hold', () => {
    const actions = Object.values(resourcesOfType('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((statement) => JSON.stringify(statement.Resource).includes(digestBucket()))
        .flatMap((statement) => [statement.Action].flat()),
    );
    expect(actions).toEqual(['s3:PutObject']);
  });
});

describe('import jobs', () => {
  it('the table streams only the INSERTs of import jobs, the commits of large writes settled from the stream and the INSERTs of change order mail outbox items to the jobs function, one record per invocation', () => {
    const jobsFunction = Object.keys(resourcesOfType('AWS::Lambda::Function')).find((id) => id.startsWith('JobsFunction'))!;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: jobsFunction },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'StreamArn'] },
      StartingPosition: 'LATEST',
      BatchSize: 1,
      ParallelizationFactor: 10,
      MaximumRetryAttempts: 2,
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['ImportJob'] }, status: { S: ['QUEUED'] } } } }) },
          {
            Pattern: JSON.stringify({
              eventName: ['MODIFY'],
              dynamodb: {
                OldImage: { entity: { S: ['PendingWrite'] }, status: { S: ['PENDING'] } },
                NewImage: { entity: { S: ['PendingWrite'] }, status: { S: ['COMMITTED'] }, settleOn: { S: ['STREAM'] } },
              },
            }),
          },
          { Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['ChangeOrderMail'] } } } }) },
        ],
      },
    });
  });

  it('runs the jobs function every minute to send the change order mails that are due (the ones the stream did not send), with SES pinned to the sender', () => {
    const jobsFunction = Object.keys(resourcesOfType('AWS::Lambda::Function')).find((id) => id.startsWith('JobsFunction'))!;
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [jobsFunction, 'Arn'] }, Input: JSON.stringify({ changeOrderMailSweep: true }) })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunction', Principal: 'events.amazonaws.com', FunctionName: { 'Fn::GetAtt': [jobsFunction, 'Arn'] } });
  });
});

it('outputs the API URL, table name, user pool ids and files bucket name', () => {
  for (const output of ['ApiUrl', 'TableName', 'UserPoolId', 'UserPoolClientId']) {
    template.hasOutput(output, {});
  }
  const filesBucket = Object.keys(resourcesOfType('AWS::S3::Bucket')).find((id) => id.startsWith('FilesBucket'));
  template.hasOutput('FilesBucketName', { Value: { Ref: filesBucket } });
});

it('has no unacknowledged cdk-nag AwsSolutions errors', { timeout: 30_000 }, () => {
  const report = new AwsSolutionsChecks(app).validateScope(stack);
  const errors = report.violations
    .filter((violation) => violation.severity === 'error')
    .map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`);
  expect(errors).toEqual([]);
});
