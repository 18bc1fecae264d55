import { CfnResource, Duration, Lazy, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as triggers from 'aws-cdk-lib/triggers';
import { passwordPolicies, type PasswordPolicyMode } from '../../lib/accounts/passwordPolicy.js';
import type { PlmStackProps } from './props.js';
import { createFunction, grantSendMail } from './functions.js';

/** What registering SAML identity providers and keeping the federated client's list takes (lib/saml/providers.ts). */
export const samlFederationActions = [
  'cognito-idp:CreateIdentityProvider',
  'cognito-idp:UpdateIdentityProvider',
  'cognito-idp:DescribeIdentityProvider',
  'cognito-idp:DescribeUserPoolClient',
  'cognito-idp:UpdateUserPoolClient',
];

/** The user pool of every account, and the app client the auth routes sign in with (Admin APIs, no OAuth). */
export function createUserPool(stack: Stack, passwordPolicy: PasswordPolicyMode) {
  const userPool = new cognito.UserPool(stack, 'UserPool', {
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

/** The auth function drives identities through the pool's Admin APIs and mails verification links. */
export function grantAuthPermissions(stack: Stack, authFunction: NodejsFunction, userPool: cognito.UserPool, mailFrom: string): void {
  userPool.grant(authFunction, 'cognito-idp:Admin*');
  grantSendMail(stack, authFunction, mailFrom);
  Validations.of(authFunction.role!).acknowledge({
    id: 'AwsSolutions-IAM5[Action::cognito-idp:Admin*]',
    reason: 'The auth routes drive identities only through the Cognito Admin APIs (AdminCreateUser, AdminSetUserPassword, AdminInitiateAuth and their kin); the grant is scoped to this one user pool.',
  });
}

/**
 * SAML sign-in is federated through the pool: its hosted domain (the IdPs post to /saml2/idpresponse) and a
 * second app client for the authorization code grant with PKCE, whose callback is the auth function's
 * /auth/saml/callback. It starts with no identity provider: saml.configure adds each organization's.
 */
export function createFederation(stack: Stack, userPool: cognito.UserPool, apiUrl: string, props: PlmStackProps) {
  const domainProp = props.authDomain ?? { prefix: `plm-${props.tenantName ?? stack.stackName}` };
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
          customDomain: { domainName: domainProp.domainName, certificate: acm.Certificate.fromCertificateArn(stack, 'FederationCertificate', domainProp.certificateArn) },
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
export function createSamlResync(stack: Stack, table: dynamodb.TableV2, userPool: cognito.UserPool, client: cognito.UserPoolClient): void {
  const environment = { TABLE_NAME: table.tableName, COGNITO_USER_POOL_ID: userPool.userPoolId, COGNITO_FEDERATED_CLIENT_ID: client.userPoolClientId };
  const fn = createFunction(stack, 'samlResync', environment, table, Duration.minutes(5), 512, 'saml-resync');
  userPool.grant(fn, ...samlFederationActions);
  const trigger = new triggers.Trigger(stack, 'SamlResyncTrigger', { handler: fn, timeout: Duration.minutes(5), executeAfter: [client] });
  const clientResource = client.node.defaultChild as cognito.CfnUserPoolClient;
  // The client's resource as the template renders it (type, properties, tokens resolved at deploy time).
  const rendered = Lazy.any({ produce: () => Object.values((clientResource as unknown as { _toCloudFormation(): { Resources: Record<string, unknown> } })._toCloudFormation().Resources)[0] });
  (trigger.node.findChild('Default').node.defaultChild as CfnResource).addPropertyOverride('FederatedClient', { ClientId: client.userPoolClientId, Resource: rendered });
  const provider = stack.node.tryFindChild('AWSCDK.TriggerCustomResourceProviderCustomResourceProvider');
  if (provider) {
    Validations.of(provider).acknowledge(
      {
        id: 'AwsSolutions-IAM4',
        reason: "The CDK's trigger provider (aws-cdk-lib/triggers) logs with AWSLambdaBasicExecutionRole; it only invokes the resync function's versions (lambda:InvokeFunction on that one function).",
      },
      {
        id: 'AwsSolutions-L1',
        reason: "The trigger provider's runtime is chosen by aws-cdk-lib; it moves with CDK upgrades.",
      },
    );
  }
}
