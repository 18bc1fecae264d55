import { CfnOutput, Stack, Tags } from 'aws-cdk-lib';
import * as ses from 'aws-cdk-lib/aws-ses';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { PlmAlarms } from './stack/alarms.js';
import { createHttpApi, createScimApi, customDomain } from './stack/api.js';
import { createAuditDigests, createFilesBucket, grantFilesPermissions } from './stack/buckets.js';
import { createFunction, functionNames, grantSendMail, mailAddress, type FunctionName } from './stack/functions.js';
import { createImportJobs, createWebhooks } from './stack/streamFunctions.js';
import { createTable } from './stack/table.js';
import type { PlmStackProps } from './stack/props.js';
import { createFederation, createSamlResync, createUserPool, grantAuthPermissions, samlFederationActions } from './stack/userPool.js';

/** `'https://a.example, https://b.example'` -> `['https://a.example', 'https://b.example']` (as infra/local/config.ts reads it). */
export function originList(origins: string): string[] {
  return origins
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/**
 * The stack of one tenant, composed of the parts in infra/stack/: the table (`table.ts`), the functions and
 * their roles (`functions.ts`), the user pool with SAML federation and its resync (`userPool.ts`), the
 * buckets (`buckets.ts`: files, access logs, audit digests with their schedule), the stream- and
 * schedule-fed functions (`streamFunctions.ts`: webhooks and notification digests, import jobs), the HTTP
 * APIs and custom domains (`api.ts`) and the alarms (`alarms.ts`). Every resource is created in the stack's
 * own scope, in this order: the logical ids and the template are the ones the stack always had.
 */
export class PlmStack extends Stack {
  constructor(scope: Construct, id: string, props: PlmStackProps) {
    super(scope, id, props);
    // Server access logs are delivered through a bucket policy for logging.s3.amazonaws.com (the AWS
    // recommendation, and compatible with ACLs disabled) instead of the legacy LogDeliveryWrite ACL.
    // Set here rather than in cdk.json so that tests, which build their own App, synthesize the same template.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    const table = createTable(this);
    const { userPool, userPoolClient } = createUserPool(this, props.passwordPolicy);
    const { filesBucket, accessLogsBucket } = createFilesBucket(this, originList(props.authAllowedOrigins));

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
    const functions = Object.fromEntries(functionNames.map((name) => [name, createFunction(this, name, functionEnvironment[name], table)])) as Record<FunctionName, NodejsFunction>;
    grantAuthPermissions(this, functions.auth, userPool, props.mailFrom);
    // Invitations are emailed from the GraphQL function (organization.bulkInvite).
    grantSendMail(this, functions.graphql, props.mailFrom);
    grantFilesPermissions(this, functions.graphql, filesBucket);
    // saml.configure registers the organization's SAML identity provider in the user pool, and adds it to (or
    // takes it off) the federated client's SupportedIdentityProviders (read first: an update resets what it omits).
    userPool.grant(functions.graphql, ...samlFederationActions);
    const webhooks = createWebhooks(this, table, environment, functions.graphql);
    const auditDigestBucket = createAuditDigests(this, webhooks, accessLogsBucket);
    const jobs = createImportJobs(this, table, environment, filesBucket);

    const api = createHttpApi(this, functions);
    const scimApi = createScimApi(this, functions.scim);
    const apiUrl = props.apiDomain ? customDomain(this, 'Api', api, props.apiDomain) : api.api.apiEndpoint;
    const scimBase = props.scimDomain ? customDomain(this, 'Scim', scimApi, props.scimDomain) : scimApi.api.apiEndpoint;
    const federation = createFederation(this, userPool, apiUrl, props);
    functions.graphql.addEnvironment('COGNITO_FEDERATED_CLIENT_ID', federation.client.userPoolClientId);
    for (const [name, value] of Object.entries({
      SAML_FEDERATION_URL: federation.domainUrl,
      COGNITO_FEDERATED_CLIENT_ID: federation.client.userPoolClientId,
      SAML_CALLBACK_URL: federation.callbackUrl,
    })) {
      functions.auth.addEnvironment(name, value);
    }

    createSamlResync(this, table, userPool, federation.client);

    const mailIdentity = new ses.EmailIdentity(this, 'MailFromIdentity', { identity: ses.Identity.email(mailAddress(props.mailFrom)) });
    const alarms = new PlmAlarms(this, 'Alarms', {
      functions: { ...functions, webhooks, jobs },
      timeouts: { graphql: 29, auth: 29, scim: 29, webhooks: 120, jobs: 900 },
      apis: { api: api.api, scim: scimApi.api },
      tableName: table.tableName,
      streamFunction: webhooks,
      mailFunctionLogs: jobs.logGroup,
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
}
