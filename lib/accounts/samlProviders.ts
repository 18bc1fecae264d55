import { AccessAdminError } from '../errors.js';

/**
 * The user pool's SAML identity providers: an organization's IdP is registered in the Cognito user pool of
 * the deployed stack (CreateIdentityProvider, or UpdateIdentityProvider when it exists), with the
 * organization's email domains as IdP identifiers, and added to the federated app client's
 * SupportedIdentityProviders (DescribeUserPoolClient, then UpdateUserPoolClient with every setting it read:
 * an update resets what it omits), so that sign-in can go through it (lib/accounts/samlSignin.ts).
 *
 * cognito-local (the local stack) has no identity providers: there these calls go to the local federation
 * stand-in (infra/local/federation.ts, COGNITO_FEDERATION_ENDPOINT), which answers the same API, and the
 * configuration says `registration: RECORDED` (deployed: `COGNITO`), which the README states.
 */
export interface SamlProviderRegistry {
  register(providerName: string, metadataXml: string, domains: string[]): Promise<'COGNITO' | 'RECORDED'>;
}

const errorName = (error: unknown) => String((error as { name?: string }).name ?? '');

export class CognitoSamlProviders implements SamlProviderRegistry {
  constructor(private readonly config: { userPoolId: string; federatedClientId?: string | undefined; endpoint?: string | undefined; region?: string | undefined }) {}

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
      // The pool validates the metadata again (and the domains as identifiers): its refusal is the client's.
      if (errorName(error) === 'InvalidParameterException') throw new AccessAdminError('SAML_METADATA_INVALID', `The user pool refused the identity provider: ${(error as Error).message}`, { field: 'input' });
      throw error;
    }
    if (this.config.federatedClientId) await this.supportOnFederatedClient(client, sdk, this.config.federatedClientId, providerName);
    return this.config.endpoint ? 'RECORDED' : 'COGNITO';
  }

  private async supportOnFederatedClient(
    client: import('@aws-sdk/client-cognito-identity-provider').CognitoIdentityProviderClient,
    sdk: typeof import('@aws-sdk/client-cognito-identity-provider'),
    clientId: string,
    providerName: string,
  ): Promise<void> {
    // Callers hold the federated client's lease (lib/orgs/saml.ts): the list read here is written whole.
    const { UserPoolClient: current } = await client.send(new sdk.DescribeUserPoolClientCommand({ UserPoolId: this.config.userPoolId, ClientId: clientId }));
    if (!current) throw new Error(`The federated app client ${clientId} is missing from the user pool`);
    if (current.SupportedIdentityProviders?.includes(providerName)) return;
    await this.updateFederatedClient(client, sdk, current, providerName);
  }

  private async updateFederatedClient(
    client: import('@aws-sdk/client-cognito-identity-provider').CognitoIdentityProviderClient,
    sdk: typeof import('@aws-sdk/client-cognito-identity-provider'),
    current: import('@aws-sdk/client-cognito-identity-provider').UserPoolClientType,
    providerName: string,
  ): Promise<void> {
    const supported = current.SupportedIdentityProviders ?? [];
    // Every updatable setting as read: UpdateUserPoolClient resets the ones it is not given to their defaults.
    await client.send(
      new sdk.UpdateUserPoolClientCommand({
        UserPoolId: this.config.userPoolId,
        ClientId: current.ClientId,
        ClientName: current.ClientName,
        RefreshTokenValidity: current.RefreshTokenValidity,
        AccessTokenValidity: current.AccessTokenValidity,
        IdTokenValidity: current.IdTokenValidity,
        TokenValidityUnits: current.TokenValidityUnits,
        ReadAttributes: current.ReadAttributes,
        WriteAttributes: current.WriteAttributes,
        ExplicitAuthFlows: current.ExplicitAuthFlows,
        CallbackURLs: current.CallbackURLs,
        LogoutURLs: current.LogoutURLs,
        DefaultRedirectURI: current.DefaultRedirectURI,
        AllowedOAuthFlows: current.AllowedOAuthFlows,
        AllowedOAuthScopes: current.AllowedOAuthScopes,
        AllowedOAuthFlowsUserPoolClient: current.AllowedOAuthFlowsUserPoolClient,
        AnalyticsConfiguration: current.AnalyticsConfiguration,
        PreventUserExistenceErrors: current.PreventUserExistenceErrors,
        EnableTokenRevocation: current.EnableTokenRevocation,
        EnablePropagateAdditionalUserContextData: current.EnablePropagateAdditionalUserContextData,
        AuthSessionValidity: current.AuthSessionValidity,
        RefreshTokenRotation: current.RefreshTokenRotation,
        SupportedIdentityProviders: [...supported, providerName],
      }),
    );
  }
}

export function samlProvidersFromEnv(env: NodeJS.ProcessEnv = process.env): SamlProviderRegistry {
  if (!env.COGNITO_USER_POOL_ID) throw new Error('COGNITO_USER_POOL_ID must name the user pool');
  return new CognitoSamlProviders({
    userPoolId: env.COGNITO_USER_POOL_ID,
    federatedClientId: env.COGNITO_FEDERATED_CLIENT_ID,
    endpoint: env.COGNITO_FEDERATION_ENDPOINT || env.COGNITO_ENDPOINT,
    region: env.AWS_REGION,
  });
}
