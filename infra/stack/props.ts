import type { StackProps } from 'aws-cdk-lib';
import type { PasswordPolicyMode } from '../../lib/accounts/passwordPolicy.js';

/** What an operator sets for one tenant's stack: infra/app.ts builds it from CDK context or the environment (infra/README.md). */
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
