import { AccessAdminError } from '../errors.js';

/**
 * The user pool's SAML identity providers: an organization's IdP is registered in the Cognito user pool of
 * the deployed stack (CreateIdentityProvider, or UpdateIdentityProvider when it exists), with the
 * organization's email domains as IdP identifiers so that sign-in can route by address.
 *
 * cognito-local (the local stack) does not implement CreateIdentityProvider: there the configuration is
 * only recorded in the table (`registration: RECORDED`), which the README states.
 */
export interface SamlProviderRegistry {
  register(providerName: string, metadataXml: string, domains: string[]): Promise<'COGNITO' | 'RECORDED'>;
}

const errorName = (error: unknown) => String((error as { name?: string }).name ?? '');
const isUnsupportedLocally = (error: unknown) => /Unsupported/i.test(errorName(error)) || /Cognito Local unsupported/i.test(String((error as Error).message ?? ''));

export class CognitoSamlProviders implements SamlProviderRegistry {
  constructor(private readonly config: { userPoolId: string; endpoint?: string | undefined; region?: string | undefined }) {}

  async register(providerName: string, metadataXml: string, domains: string[]): Promise<'COGNITO' | 'RECORDED'> {
    const sdk = await import('@aws-sdk/client-cognito-identity-provider');
    const client = new sdk.CognitoIdentityProviderClient({
      ...(this.config.endpoint ? { endpoint: this.config.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 } : {}),
      ...(this.config.region ? { region: this.config.region } : {}),
    });
    const provider = {
      UserPoolId: this.config.userPoolId,
      ProviderName: providerName,
      ProviderDetails: { MetadataFile: metadataXml, IDPSignout: 'false' },
      AttributeMapping: { email: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress' },
      IdpIdentifiers: domains.slice(0, 50),
    };
    try {
      try {
        await client.send(new sdk.CreateIdentityProviderCommand({ ...provider, ProviderType: 'SAML' }));
      } catch (error) {
        if (errorName(error) !== 'DuplicateProviderException') throw error;
        await client.send(new sdk.UpdateIdentityProviderCommand(provider));
      }
    } catch (error) {
      if (this.config.endpoint && isUnsupportedLocally(error)) return 'RECORDED';
      // The pool validates the metadata again (and the domains as identifiers): its refusal is the client's.
      if (errorName(error) === 'InvalidParameterException') throw new AccessAdminError('SAML_METADATA_INVALID', `The user pool refused the identity provider: ${(error as Error).message}`, { field: 'input' });
      throw error;
    }
    return 'COGNITO';
  }
}

export function samlProvidersFromEnv(env: NodeJS.ProcessEnv = process.env): SamlProviderRegistry {
  if (!env.COGNITO_USER_POOL_ID) throw new Error('COGNITO_USER_POOL_ID must name the user pool');
  return new CognitoSamlProviders({ userPoolId: env.COGNITO_USER_POOL_ID, endpoint: env.COGNITO_ENDPOINT, region: env.AWS_REGION });
}
