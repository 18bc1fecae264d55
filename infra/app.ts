import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { passwordPolicies, type PasswordPolicyMode } from '../lib/accounts/passwordPolicy.js';
import { PlmStack } from './stack.js';

const app = new App();

/** A deployment setting: CDK context (`-c key=value`) first, then the environment variable, then the default. */
function setting(contextKey: string, envName: string, fallback: string): string {
  const fromContext: unknown = app.node.tryGetContext(contextKey);
  if (typeof fromContext === 'string' && fromContext !== '') return fromContext;
  return process.env[envName] || fallback;
}

function passwordPolicyMode(mode: string): PasswordPolicyMode {
  if (!Object.hasOwn(passwordPolicies, mode)) {
    throw new Error(`passwordPolicy / PASSWORD_POLICY must be one of ${Object.keys(passwordPolicies).join(', ')}, not "${mode}"`);
  }
  return mode as PasswordPolicyMode;
}

function gatingMode(mode: string): 'enforced' | 'open' {
  if (mode !== 'enforced' && mode !== 'open') throw new Error(`orgCreationGating / ORG_CREATION_GATING must be enforced or open, not "${mode}"`);
  return mode;
}

/** `-c apiDomainName=... -c apiCertificateArn=...` (or PLM_API_DOMAIN_NAME / PLM_API_CERTIFICATE_ARN): both or neither. */
function domain(prefix: 'api' | 'scim') {
  const envPrefix = `PLM_${prefix.toUpperCase()}`;
  const domainName = setting(`${prefix}DomainName`, `${envPrefix}_DOMAIN_NAME`, '');
  const certificateArn = setting(`${prefix}CertificateArn`, `${envPrefix}_CERTIFICATE_ARN`, '');
  if (!domainName && !certificateArn) return undefined;
  if (!domainName || !certificateArn) throw new Error(`${prefix}DomainName and ${prefix}CertificateArn go together (an ACM certificate of the stack's region for that name)`);
  return { domainName, certificateArn };
}

/** The user pool's hosted domain: `-c authDomainPrefix=…`, or a custom `authDomainName` + `authCertificateArn` (us-east-1). */
function authDomain() {
  const prefix = setting('authDomainPrefix', 'PLM_AUTH_DOMAIN_PREFIX', '');
  const domainName = setting('authDomainName', 'PLM_AUTH_DOMAIN_NAME', '');
  const certificateArn = setting('authCertificateArn', 'PLM_AUTH_CERTIFICATE_ARN', '');
  if (domainName || certificateArn) {
    if (!domainName || !certificateArn) throw new Error('authDomainName and authCertificateArn go together (an ACM certificate in us-east-1 for that name)');
    return { domainName, certificateArn };
  }
  return prefix ? { prefix } : undefined;
}

// Without a trailing slash, so handlers can append paths such as /verify-email.
const appUrl = setting('appUrl', 'APP_URL', 'http://localhost:3000').replace(/\/+$/, '');

// Environment-agnostic on purpose: no lookups, so `cdk synth` runs offline without credentials.
new PlmStack(app, setting('stackName', 'PLM_STACK_NAME', 'Plm'), {
  description: 'PLM service: HTTP API, Lambda handlers, DynamoDB table, Cognito user pool, S3 file bucket',
  appUrl,
  authAllowedOrigins: setting('authAllowedOrigins', 'AUTH_ALLOWED_ORIGINS', new URL(appUrl).origin),
  mailFrom: setting('mailFrom', 'MAIL_FROM', 'no-reply@example.com'),
  passwordPolicy: passwordPolicyMode(setting('passwordPolicy', 'PASSWORD_POLICY', 'standard')),
  graphqlIntrospection: setting('graphqlIntrospection', 'PLM_INTROSPECTION', 'true') !== 'false',
  orgCreationGating: gatingMode(setting('orgCreationGating', 'ORG_CREATION_GATING', 'enforced')),
  tenantName: setting('tenantName', 'PLM_TENANT', '') || undefined,
  apiDomain: domain('api'),
  scimDomain: domain('scim'),
  alarmEmail: setting('alarmEmail', 'PLM_ALARM_EMAIL', '') || undefined,
  // Cognito prefix domains are unique per region across accounts: a taken default is overridden here.
  authDomain: authDomain(),
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
