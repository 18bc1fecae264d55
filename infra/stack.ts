import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { AssetHashType, CfnOutput, CfnResource, Duration, Lazy, RemovalPolicy, Stack, Tags, Validations, type StackProps } from 'aws-cdk-lib';
import { ApiMapping, DomainName, HttpApi, HttpStage, HttpMethod, LogGroupLogDestination, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ses from 'aws-cdk-lib/aws-ses';
import { PlmAlarms } from './alarms.js';
import { projectRoot, stageFunctionBundle } from './bundle.js';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as triggers from 'aws-cdk-lib/triggers';
import type { Construct } from 'constructs';
import { passwordPolicies, type PasswordPolicyMode } from '../lib/accounts/passwordPolicy.js';
import { federatedClientLeaseKey } from '../lib/store/samlSignin.js';
import { tableDefinition } from '../lib/store/table.js';
import { committedWriteStreamFilter } from '../lib/items/settleStream.js';
import { importJobStreamFilter } from '../lib/transfer/jobStream.js';

export interface PlmStackProps extends StackProps {
  /** Origin of the web application; verification links point at `${appUrl}/verify-email`. */
  readonly appUrl: string;
  /** Comma-separated origins allowed to call the signup and verification routes, and to PUT/GET file bytes in S3. */
  readonly authAllowedOrigins: string;
  /** Sender address of outbound mail; must be a verified SES identity in the deployed account. */
  readonly mailFrom: string;
  /** Password policy mode of the account routes (spec: standard or nist). */
  readonly passwordPolicy: PasswordPolicyMode;
  /** Whether /graphql answers introspection (only ever to an authenticated caller). Default: true. */
  readonly graphqlIntrospection?: boolean;
  /**
   * Organization-creation gating (spec: Current user). enforced (default): creating a production
   * organization needs a creation grant or Site Admin of an entitled organization; open: any user may.
   */
  readonly orgCreationGating?: 'enforced' | 'open';
  /** The tenant this stack serves: tagged on every resource (`plm:tenant`). */
  readonly tenantName?: string;
  /** A custom domain for the API (GraphQL and account routes), with an ACM certificate of the stack's region. */
  readonly apiDomain?: CustomDomain;
  /** A custom domain for SCIM, a host of its own: {scim_url} is https://<domainName>/scim/v2. */
  readonly scimDomain?: CustomDomain;
  /**
   * The user pool's hosted domain for SAML federation (the IdPs' ACS URL is https://<domain>/saml2/idpresponse):
   * a Cognito prefix domain (default `plm-<tenantName>`, else `plm-<stack name>`), or a custom domain with an
   * ACM certificate in us-east-1.
   */
  readonly authDomain?: { readonly prefix: string } | CustomDomain;
  /** An address subscribed to the alarm topic. */
  readonly alarmEmail?: string;
}

export interface CustomDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

const functionNames = ['graphql', 'auth', 'scim'] as const;
/** The functions behind the HTTP API's routes. */
type FunctionName = (typeof functionNames)[number];

const logRetention = logs.RetentionDays.THREE_MONTHS;

/** What registering SAML identity providers and keeping the federated client's list takes (lib/saml/providers.ts). */
const samlFederationActions = [
  'cognito-idp:CreateIdentityProvider',
  'cognito-idp:UpdateIdentityProvider',
  'cognito-idp:DescribeIdentityProvider',
  'cognito-idp:DescribeUserPoolClient',
  'cognito-idp:UpdateUserPoolClient',
];

/**
 * The code of `functions/<name>/handler.ts`: built by infra/bundle.ts (esbuild, ESM, split into an entry and
 * chunks loaded on first use, the SDK bundled) in this process at synth, so synth needs neither Docker nor a
 * network; the image is the fallback where local bundling is refused. Every function's code comes from here.
 */
export function functionCode(name: string): lambda.Code {
  return lambda.Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: lambda.Runtime.NODEJS_22_X.bundlingImage,
      command: ['bash', '-c', `npx tsx infra/bundle.ts ${name} /asset-output`],
      local: {
        tryBundle(outputDir: string) {
          stageFunctionBundle(name, outputDir);
          return true;
        },
      },
    },
  });
}

/** `'https://a.example, https://b.example'` -> `['https://a.example', 'https://b.example']` (as infra/local/config.ts reads it). */
export function originList(origins: string): string[] {
  return origins
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
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

export class PlmStack extends Stack {
  private readonly stages = new Map<HttpApi, HttpStage>();
  /** Destination of the buckets' server access logs (created with the files bucket). */
  private accessLogsBucket?: s3.Bucket;

  constructor(scope: Construct, id: string, props: PlmStackProps) {
    super(scope, id, props);
    // Server access logs are delivered through a bucket policy for logging.s3.amazonaws.com (the AWS
    // recommendation, and compatible with ACLs disabled) instead of the legacy LogDeliveryWrite ACL.
    // Set here rather than in cdk.json so that tests, which build their own App, synthesize the same template.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    const table = this.createTable();
    const { userPool, userPoolClient } = this.createUserPool(props.passwordPolicy);
    const filesBucket = this.createFilesBucket(originList(props.authAllowedOrigins));

    const environment = {
      TABLE_NAME: table.tableName,
      COGNITO_USER_POOL_ID: userPool.userPoolId,
      COGNITO_CLIENT_ID: userPoolClient.userPoolClientId,
      APP_URL: props.appUrl,
      AUTH_ALLOWED_ORIGINS: props.authAllowedOrigins,
      MAIL_FROM: props.mailFrom,
      PASSWORD_POLICY: props.passwordPolicy,
      ORG_CREATION_GATING: props.orgCreationGating ?? 'enforced',
    };
    // Only the GraphQL function handles files (lib/files/blobStorage.ts reads FILES_BUCKET).
    const functionEnvironment: Record<FunctionName, Record<string, string>> = {
      graphql: { ...environment, FILES_BUCKET: filesBucket.bucketName, PLM_INTROSPECTION: String(props.graphqlIntrospection ?? true) },
      auth: environment,
      scim: environment,
    };
    const functions = Object.fromEntries(functionNames.map((name) => [name, this.createFunction(name, functionEnvironment[name], table)])) as Record<FunctionName, NodejsFunction>;
    this.grantAuthPermissions(functions.auth, userPool, props.mailFrom);
    // Invitations are emailed from the GraphQL function (organization.bulkInvite).
    this.grantSendMail(functions.graphql, props.mailFrom);
    this.grantFilesPermissions(functions.graphql, filesBucket);
    // saml.configure registers the organization's SAML identity provider in the user pool, and adds it to (or
    // takes it off) the federated client's SupportedIdentityProviders (read first: an update resets what it omits).
    userPool.grant(functions.graphql, ...samlFederationActions);
    const webhooks = this.createWebhooks(table, environment, functions.graphql);
    const auditDigestBucket = this.createAuditDigests(webhooks);
    const jobs = this.createImportJobs(table, environment, filesBucket);

    const api = this.createHttpApi(functions);
    const scimApi = this.createScimApi(functions.scim);
    const apiUrl = props.apiDomain ? this.customDomain('Api', api, props.apiDomain) : api.apiEndpoint;
    const scimBase = props.scimDomain ? this.customDomain('Scim', scimApi, props.scimDomain) : scimApi.apiEndpoint;
    const federation = this.createFederation(userPool, apiUrl, props);
    functions.graphql.addEnvironment('COGNITO_FEDERATED_CLIENT_ID', federation.client.userPoolClientId);
    for (const [name, value] of Object.entries({
      SAML_FEDERATION_URL: federation.domainUrl,
      COGNITO_FEDERATED_CLIENT_ID: federation.client.userPoolClientId,
      SAML_CALLBACK_URL: federation.callbackUrl,
    })) {
      functions.auth.addEnvironment(name, value);
    }

    this.createSamlResync(table, userPool, federation.client);

    const mailIdentity = new ses.EmailIdentity(this, 'MailFromIdentity', { identity: ses.Identity.email(mailAddress(props.mailFrom)) });
    const alarms = new PlmAlarms(this, 'Alarms', {
      functions: { ...functions, webhooks, jobs },
      timeouts: { graphql: 29, auth: 29, scim: 29, webhooks: 120, jobs: 900 },
      apis: { api, scim: scimApi },
      tableName: table.tableName,
      streamFunction: webhooks,
      alarmEmail: props.alarmEmail,
    });
    if (props.tenantName) Tags.of(this).add('plm:tenant', props.tenantName);

    new CfnOutput(this, 'ApiUrl', { value: apiUrl });
    new CfnOutput(this, 'ScimUrl', { value: `${scimBase}/scim/v2`, description: 'The {scim_url} to give the identity provider' });
    new CfnOutput(this, 'MailFromIdentityName', { value: mailIdentity.emailIdentityName, description: 'SES sends a verification email to this address once' });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'UserPoolId', { value: userPool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: userPoolClient.userPoolClientId });
    new CfnOutput(this, 'FederatedClientId', {
      value: federation.client.userPoolClientId,
      description: "The app client SSO users sign in with (COGNITO_FEDERATED_CLIENT_ID of npm run admin -- saml-resync; client_id of a CLI's code flow)",
    });
    new CfnOutput(this, 'SamlAcsUrl', { value: `${federation.domainUrl}/saml2/idpresponse`, description: 'The ACS (single sign-on) URL to give the identity provider' });
    new CfnOutput(this, 'SamlEntityId', { value: `urn:amazon:cognito:sp:${userPool.userPoolId}`, description: 'The SP entity id (audience) to give the identity provider' });
    new CfnOutput(this, 'FilesBucketName', { value: filesBucket.bucketName });
    new CfnOutput(this, 'WebhooksFunctionName', { value: webhooks.functionName });
    new CfnOutput(this, 'AuditDigestBucketName', {
      value: auditDigestBucket.bucketName,
      description: 'The daily audit chain digests under Object Lock (AUDIT_DIGEST_BUCKET of npm run admin -- audit digest)',
    });
  }

  /**
   * SAML sign-in is federated through the pool: its hosted domain (the IdPs post to /saml2/idpresponse) and a
   * second app client for the authorization code grant with PKCE, whose callback is the auth function's
   * /auth/saml/callback. It starts with no identity provider: saml.configure adds each organization's.
   */
  private createFederation(userPool: cognito.UserPool, apiUrl: string, props: PlmStackProps) {
    const domainProp = props.authDomain ?? { prefix: `plm-${props.tenantName ?? this.stackName}` };
    const domain =
      'prefix' in domainProp
        ? userPool.addDomain('FederationDomain', {
            cognitoDomain: {
              domainPrefix: domainProp.prefix
                .toLowerCase()
                .replace(/[^a-z0-9-]/g, '-')
                .slice(0, 63),
            },
          })
        : userPool.addDomain('FederationDomain', {
            customDomain: { domainName: domainProp.domainName, certificate: acm.Certificate.fromCertificateArn(this, 'FederationCertificate', domainProp.certificateArn) },
          });
    const domainUrl = 'prefix' in domainProp ? domain.baseUrl() : `https://${domainProp.domainName}`;
    const callbackUrl = `${apiUrl}/auth/saml/callback`;
    const client = userPool.addClient('FederatedClient', {
      generateSecret: false,
      authFlows: {},
      oAuth: { flows: { authorizationCodeGrant: true }, scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE], callbackUrls: [callbackUrl] },
      // The organizations' SAML providers are put on it by saml.configure and by the resync after each
      // deployment (createSamlResync), from the table: a deployment that updates this resource writes [] back.
      supportedIdentityProviders: [],
      preventUserExistenceErrors: true,
    });
    return { domainUrl, callbackUrl, client };
  }

  /**
   * The SAML federation resync (lib/saml/resync.ts) as a trigger: CloudFormation owns the federated
   * client, and any update of it (callback URL, scopes, a CDK upgrade, a replacement) writes the template's
   * empty provider list back. The trigger runs after the client, whenever the client's resolved properties or
   * id change (they are properties of the trigger, so CloudFormation updates the trigger with them) or the
   * function does: exactly the deployments that can reset the list. Its role reads the table, writes only the
   * federated client's lease item, and calls only the five identity-provider/client actions on this pool.
   */
  private createSamlResync(table: dynamodb.TableV2, userPool: cognito.UserPool, client: cognito.UserPoolClient): void {
    const environment = { TABLE_NAME: table.tableName, COGNITO_USER_POOL_ID: userPool.userPoolId, COGNITO_FEDERATED_CLIENT_ID: client.userPoolClientId };
    const fn = this.createFunction('samlResync', environment, table, Duration.minutes(5), 512, 'saml-resync');
    userPool.grant(fn, ...samlFederationActions);
    const trigger = new triggers.Trigger(this, 'SamlResyncTrigger', { handler: fn, timeout: Duration.minutes(5), executeAfter: [client] });
    const clientResource = client.node.defaultChild as cognito.CfnUserPoolClient;
    // The client's resource as the template renders it (type, properties, tokens resolved at deploy time).
    const rendered = Lazy.any({ produce: () => Object.values((clientResource as unknown as { _toCloudFormation(): { Resources: Record<string, unknown> } })._toCloudFormation().Resources)[0] });
    (trigger.node.findChild('Default').node.defaultChild as CfnResource).addPropertyOverride('FederatedClient', { ClientId: client.userPoolClientId, Resource: rendered });
    const provider = Stack.of(this).node.tryFindChild('AWSCDK.TriggerCustomResourceProviderCustomResourceProvider');
    if (provider) {
      Validations.of(provider).acknowledge(
        {
          id: 'AwsSolutions-IAM4',
          reason:
            "The CDK's trigger provider (aws-cdk-lib/triggers) logs with AWSLambdaBasicExecutionRole; it only invokes the resync function's versions (lambda:InvokeFunction on that one function).",
        },
        {
          id: 'AwsSolutions-L1',
          reason: "The trigger provider's runtime is chosen by aws-cdk-lib; it moves with CDK upgrades.",
        },
      );
    }
  }

  /**
   * The fourth function: the table's stream feeds it changed items, which it turns into webhook deliveries;
   * a schedule runs it every minute for the retries that are due. Webhook secrets derive from a generated
   * key in Secrets Manager that the GraphQL function (which shows a new secret once) and this one read.
   */
  private createWebhooks(table: dynamodb.TableV2, environment: Record<string, string>, graphql: NodejsFunction): NodejsFunction {
    const signingKey = new secretsmanager.Secret(this, 'WebhookSigningKey', {
      description: 'The key webhook signing secrets are derived from (lib/webhooks/signing.ts)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(signingKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Every webhook secret derives from this key: rotating it would break every receiver at once. Receivers rotate their own secret with webhooks.rotateSecret.',
    });
    const webhookEnvironment = { ...environment, WEBHOOK_SIGNING_KEY_SECRET_ID: signingKey.secretArn };
    graphql.addEnvironment('WEBHOOK_SIGNING_KEY_SECRET_ID', signingKey.secretArn);
    signingKey.grantRead(graphql);
    const fn = this.createFunction('webhooks', webhookEnvironment, table, Duration.seconds(120));
    signingKey.grantRead(fn);
    // Notifications of watchers are mailed from here (lib/notifications/fanout.ts), and the daily digests.
    this.grantSendMail(fn, environment.MAIL_FROM!);
    fn.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: lambda.StartingPosition.LATEST,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        retryAttempts: 5,
        reportBatchItemFailures: false,
      }),
    );
    new events.Rule(this, 'WebhookRetrySchedule', {
      description: 'Attempts the webhook deliveries whose retry is due',
      schedule: events.Schedule.rate(Duration.minutes(1)),
      targets: [new targets.LambdaFunction(fn)],
    });
    new events.Rule(this, 'NotificationDigestSchedule', {
      description: 'Mails the daily digest of notifications to the users who chose it',
      schedule: events.Schedule.cron({ minute: '0', hour: '7' }),
      targets: [new targets.LambdaFunction(fn, { event: events.RuleTargetInput.fromObject({ digest: true }) })],
    });
    return fn;
  }

  /**
   * The audit chain's daily digest kept apart (lib/audit/digest.ts): a schedule runs the webhooks function
   * at 00:30 UTC to link what is pending, write each organization's `DIGEST#<day>` item, and put the same
   * digest as an object in a bucket of its own under Object Lock in COMPLIANCE mode: for 400 days (the
   * default audit retention) no one, the account's root user included, can overwrite or delete a version,
   * nor shorten its retention. An edit of the table that moves a chain's head then no longer matches the
   * digests outside it. The function may only put objects under audit-digests/ (no delete, no retention
   * change); the bucket is private, versioned (Object Lock needs it), encrypted, TLS only, access-logged.
   */
  private createAuditDigests(fn: NodejsFunction): s3.Bucket {
    const bucket = new s3.Bucket(this, 'AuditDigestBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      objectLockEnabled: true,
      objectLockDefaultRetention: s3.ObjectLockRetention.compliance(Duration.days(400)),
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'audit-digests/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    fn.addEnvironment('AUDIT_DIGEST_BUCKET', bucket.bucketName);
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects('audit-digests/*')] }));
    Validations.of(fn.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(bucket.node.defaultChild as s3.CfnBucket)}.Arn>/audit-digests/*]`,
      reason: 'Digest objects are keyed audit-digests/<organizationId>/<day>.json (lib/audit/digest.ts); PutObject only, under that prefix of this one bucket, whose Object Lock keeps every version.',
    });
    new events.Rule(this, 'AuditDigestSchedule', {
      description: "Keeps each organization's audit chain head apart: a digest item and an Object Lock object a day",
      schedule: events.Schedule.cron({ minute: '30', hour: '0' }),
      targets: [new targets.LambdaFunction(fn, { event: events.RuleTargetInput.fromObject({ auditDigest: true }) })],
    });
    return bucket;
  }

  /**
   * The fifth function: runs API imports as jobs (lib/transfer/jobs.ts). The table's stream hands it the
   * INSERT of each ImportJob item, and only those (event filtering; the local stack applies the same
   * filter). An import of 10,000 components takes over a minute, beyond API Gateway's 30 s: hence 15 minutes,
   * and memory for the whole file, its parsed components and their items. The job records its own failure
   * (FAILED), so the mapping never retries; parallelization lets jobs of other libraries on the same shard
   * start while one runs. It reads the uploaded files (GetObject only) and the table. The same mapping hands
   * it the commit of each large change order release (a second filter, lib/items/settleStream.ts): it settles
   * the release (marks put in place, search entries, change requests closed), which takes longer than the
   * approval's request may; a failed settling is retried twice, cleanupAbandonedWrites is the backstop.
   */
  private createImportJobs(table: dynamodb.TableV2, environment: Record<string, string>, filesBucket: s3.Bucket): NodejsFunction {
    const fn = this.createFunction('jobs', { ...environment, FILES_BUCKET: filesBucket.bucketName }, table, Duration.minutes(15), 3008);
    // GetObject: the uploaded import file, and the files of the library a bundle was exported from; PutObject: their copies.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [filesBucket.arnForObjects('*')] }));
    Validations.of(fn.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(filesBucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
      reason:
        'Imports read the uploaded file of any library and the files of the library a bundle came from, and write their copies (keys <organizationId>/<libraryId>/<file id>); GetObject and PutObject only, on the objects of this one bucket.',
    });
    fn.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: lambda.StartingPosition.LATEST,
        batchSize: 1,
        parallelizationFactor: 10,
        // A failure before the job is claimed (init, throttle) is retried; a retry of a claimed job does nothing
        // (the claim is conditional on QUEUED) and a claimed job records its own failure.
        retryAttempts: 2,
        filters: [lambda.FilterCriteria.filter(importJobStreamFilter), lambda.FilterCriteria.filter(committedWriteStreamFilter)],
      }),
    );
    return fn;
  }

  private createTable(): dynamodb.TableV2 {
    const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    return new dynamodb.TableV2(this, 'Table', {
      partitionKey: stringKey(tableDefinition.partitionKey),
      sortKey: stringKey(tableDefinition.sortKey),
      globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
        indexName: index.indexName,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
      })),
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      // Webhooks read every change, with the item before and after (lib/webhooks/events.ts).
      dynamoStream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private createUserPool(passwordPolicy: PasswordPolicyMode) {
    const userPool = new cognito.UserPool(this, 'UserPool', {
      signInAliases: { email: true },
      // Accounts are created and verified by the /auth routes through the Admin APIs; Cognito sends no mail
      // and offers no self-service flows of its own.
      selfSignUpEnabled: false,
      autoVerify: { email: false },
      accountRecovery: cognito.AccountRecovery.NONE,
      // lib/accounts enforces the spec policy before Cognito sees a password. Cognito repeats the length only:
      // its character classes are narrower than the spec's (a symbol is any non-letter, non-digit, non-space).
      passwordPolicy: {
        minLength: passwordPolicies[passwordPolicy].minLength,
        requireLowercase: false,
        requireUppercase: false,
        requireDigits: false,
        requireSymbols: false,
      },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(userPool).acknowledge(
      {
        id: 'AwsSolutions-COG1',
        reason:
          "Password rules are the spec's: lib/accounts enforces 12-256 characters with four character classes (standard) or 15-256 without (nist, after NIST SP 800-63B), plus a common-pattern check. Cognito enforces the same minimum length; its fixed symbol list would reject passwords the spec accepts, so it requires no classes.",
      },
      {
        id: 'AwsSolutions-COG2',
        reason: 'The interface spec defines no MFA step: sign-in is API key, session after email verification, or Bearer JWT issued to already authenticated users.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'Threat protection is a paid per-user tier and is not a spec requirement; sign-in goes through our /auth routes, which rate-limit per client IP and apply the spec password policy with its common-pattern check. Choose FeaturePlan.PLUS (and pass ContextData to AdminInitiateAuth) where a deployment wants it.',
      },
    );

    const userPoolClient = userPool.addClient('AppClient', {
      generateSecret: false,
      authFlows: { adminUserPassword: true },
      disableOAuth: true,
      preventUserExistenceErrors: true,
    });
    return { userPool, userPoolClient };
  }

  /**
   * Bytes of uploaded files. Browsers PUT and GET them directly with URLs the GraphQL function presigns
   * (lib/files/blobStorage.ts); the bucket itself is never public.
   */
  private createFilesBucket(allowedOrigins: string[]): s3.Bucket {
    // Destination of the files bucket's server access logs; it does not log itself (each delivery would
    // generate further records), and cdk-nag AwsSolutions-S1 accepts a bucket that is a log destination.
    const accessLogsBucket = new s3.Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      // Server access log delivery supports SSE-S3 only on the destination bucket.
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: Duration.days(90) }],
      // Audit records outlive the stack; CloudFormation could not delete a non-empty bucket anyway.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.accessLogsBucket = accessLogsBucket;

    return new s3.Bucket(this, 'FilesBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Objects are write-once (random key per file, PUT bound to its length and SHA-256) and the service
      // never deletes them, so versioning costs next to nothing in normal operation; it makes an accidental delete
      // or overwrite (by an operator or a future bug) recoverable, as point-in-time recovery does for the table.
      versioned: true,
      lifecycleRules: [
        { id: 'AbortIncompleteMultipartUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // The recovery window of replaced and deleted objects: the same 35 days as the table's point-in-time recovery.
        { id: 'ExpireNoncurrentVersions', noncurrentVersionExpiration: Duration.days(35), expiredObjectDeleteMarker: true },
      ],
      cors: [
        {
          allowedOrigins,
          allowedMethods: [s3.HttpMethods.PUT, s3.HttpMethods.GET],
          // The headers S3BlobStorage signs into upload URLs and returns for the client to send.
          allowedHeaders: ['content-type', 'content-length', 'x-amz-checksum-sha256'],
          exposedHeaders: ['ETag'],
          maxAge: 3600,
        },
      ],
      serverAccessLogsBucket: accessLogsBucket,
      serverAccessLogsPrefix: 'files/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** `tableAccess` saml-resync: reads, and writes only the federated client's lease item. */
  private createFunction(
    name: FunctionName | 'webhooks' | 'jobs' | 'samlResync',
    environment: Record<string, string>,
    table: dynamodb.TableV2,
    timeout = Duration.seconds(29),
    memorySize = 1024,
    tableAccess: 'read-write' | 'saml-resync' = 'read-write',
  ): NodejsFunction {
    const logGroup = new logs.LogGroup(this, `${pascalCase(name)}FunctionLogs`, {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // An explicit role that may write only to this function's log group, instead of the
    // AWSLambdaBasicExecutionRole managed policy (which grants logs:* on every log group).
    const role = new iam.Role(this, `${pascalCase(name)}FunctionRole`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    if (tableAccess === 'read-write') table.grantReadWriteData(role);
    else {
      table.grantReadData(role);
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [federatedClientLeaseKey.PK] } },
        }),
      );
    }
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(table.node.defaultChild as dynamodb.CfnGlobalTable)}.Arn>/index/*]`,
      reason: 'Queries on the table GSIs (tableDefinition.globalSecondaryIndexes); the wildcard covers only indexes of this one table.',
    });

    const fn = new NodejsFunction(this, `${pascalCase(name)}Function`, {
      code: functionCode(name),
      handler: 'index.handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize,
      timeout,
      role,
      logGroup,
      environment,
    });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'nodejs22.x is the runtime the architecture fixes (code must also run on Node 20 locally); moving to a newer runtime is a deliberate upgrade, not a synth-time default.',
    });
    return fn;
  }

  private grantAuthPermissions(authFunction: NodejsFunction, userPool: cognito.UserPool, mailFrom: string): void {
    userPool.grant(authFunction, 'cognito-idp:Admin*');
    this.grantSendMail(authFunction, mailFrom);
    Validations.of(authFunction.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Action::cognito-idp:Admin*]',
      reason:
        'The auth routes drive identities only through the Cognito Admin APIs (AdminCreateUser, AdminSetUserPassword, AdminInitiateAuth and their kin); the grant is scoped to this one user pool.',
    });
  }

  /** SES SendEmail, pinned to the sender address MAIL_FROM. */
  private grantSendMail(fn: NodejsFunction, mailFrom: string): void {
    const sesIdentities = this.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [sesIdentities],
        conditions: { StringEquals: { 'ses:FromAddress': mailAddress(mailFrom) } },
      }),
    );
    Validations.of(fn.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
      reason:
        'SendEmail is authorized against SES identity ARNs, and whether MAIL_FROM is verified as an address or as its domain is decided per account; the ses:FromAddress condition pins the sender to MAIL_FROM.',
    });
  }

  /**
   * Presigned URLs act with the signer's permissions: PutObject for uploads, GetObject for downloads and for
   * HeadObject (also with ChecksumMode ENABLED under SSE-S3). ListBucket makes HeadObject of a key that was
   * never uploaded answer 404 rather than 403, which S3BlobStorage.inspect reports as "nothing uploaded yet".
   */
  private grantFilesPermissions(graphqlFunction: NodejsFunction, filesBucket: s3.Bucket): void {
    graphqlFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [filesBucket.arnForObjects('*')] }));
    graphqlFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [filesBucket.bucketArn] }));
    Validations.of(graphqlFunction.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(filesBucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
      reason:
        'Object keys are <organizationId>/<libraryId>/<random file id> (lib/files/files.ts), so no narrower prefix covers them; the wildcard spans the objects of this one bucket, with only PutObject and GetObject.',
    });
  }

  /**
   * SCIM on an API of its own ({scim_url} is a host separate from the API host, as the spec says): the
   * identity provider's traffic has its own throttle, access log and custom domain.
   */
  private createScimApi(scimFunction: NodejsFunction): HttpApi {
    const accessLogs = new logs.LogGroup(this, 'ScimApiAccessLogs', { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
    const api = new HttpApi(this, 'ScimApi', { description: 'PLM service: SCIM 2.0 for identity providers', createDefaultStage: false });
    this.stages.set(
      api,
      api.addStage('ScimDefaultStage', {
        stageName: '$default',
        autoDeploy: true,
        accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: httpApiAccessLogFormat },
        throttle: { rateLimit: 50, burstLimit: 100 },
      }),
    );
    const scim = new HttpLambdaIntegration('ScimIntegration', scimFunction, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 });
    api.addRoutes({ path: '/scim/v2', methods: [HttpMethod.ANY], integration: scim });
    api.addRoutes({ path: '/scim/v2/{proxy+}', methods: [HttpMethod.ANY], integration: scim });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: "The SCIM handler authenticates every request with the organization's SCIM bearer token (RFC 7644), checked against its hash on every request.",
    });
    return api;
  }

  /** Serves an API at https://<domainName> with its certificate; returns that base address. */
  private customDomain(id: string, api: HttpApi, domain: CustomDomain): string {
    const domainName = new DomainName(this, `${id}DomainName`, {
      domainName: domain.domainName,
      certificate: acm.Certificate.fromCertificateArn(this, `${id}Certificate`, domain.certificateArn),
    });
    new ApiMapping(this, `${id}ApiMapping`, { api, domainName, stage: this.stages.get(api)! });
    new CfnOutput(this, `${id}DomainTarget`, { value: domainName.regionalDomainName, description: `CNAME (or alias) ${domain.domainName} to this` });
    return `https://${domain.domainName}`;
  }

  private createHttpApi(functions: Record<FunctionName, NodejsFunction>): HttpApi {
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const api = new HttpApi(this, 'HttpApi', {
      description: 'PLM service: GraphQL and account routes',
      createDefaultStage: false,
    });
    this.stages.set(
      api,
      api.addStage('DefaultStage', {
        stageName: '$default',
        autoDeploy: true,
        accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: httpApiAccessLogFormat },
        // The stage's rate limit of the GraphQL and SCIM routes (per deployment, i.e. per tenant); account
        // routes add their own per-IP limits.
        throttle: { rateLimit: 200, burstLimit: 400 },
      }),
    );

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
    return api;
  }
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** `PLM <noreply@example.com>` -> `noreply@example.com`; a bare address is returned as is. */
function mailAddress(mailFrom: string): string {
  return /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom;
}
