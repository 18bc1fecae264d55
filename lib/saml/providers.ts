import { AccessAdminError } from '../errors.js';

/**
 * The user pool's SAML identity providers and the federated app client that signs in through them. An
 * organization's IdP is registered in the Cognito user pool of the deployed stack (CreateIdentityProvider, or
 * UpdateIdentityProvider when it exists), with the organization's email domains as IdP identifiers; the
 * federated app client's SupportedIdentityProviders lists the providers sign-in may go through
 * (DescribeUserPoolClient, then UpdateUserPoolClient with every setting it read: an update resets what it
 * omits). Which providers that list holds is decided from the table (lib/saml/resync.ts).
 *
 * cognito-local (the local stack) has no identity providers: there these calls go to the local federation
 * stand-in (infra/local/federation.ts, COGNITO_FEDERATION_ENDPOINT), which answers the same API, and the
 * configuration says `registration: RECORDED` (deployed: `COGNITO`), which schema/README.md states.
 */
export interface SamlProviderRegistry {
  /** Creates the provider in the pool, or updates it. */
  register(providerName: string, metadataXml: string, domains: string[]): Promise<'COGNITO' | 'RECORDED'>;
  /** Whether the pool has the provider, and the metadata XML it holds for it. */
  describe(providerName: string): Promise<{ metadataXml: string | undefined } | undefined>;
  /**
   * Rewrites the federated client's provider list to `next(current)` (no write when it is unchanged); the
   * lists before and after. Callers hold the federated client's lease (lib/saml/resync.ts).
   */
  updateClientProviders(next: (current: string[]) => string[]): Promise<{ before: string[]; after: string[] }>;
}

type Sdk = typeof import('@aws-sdk/client-cognito-identity-provider');
type Client = import('@aws-sdk/client-cognito-identity-provider').CognitoIdentityProviderClient;

const errorName = (error: unknown) => String((error as { name?: string }).name ?? '');

export class CognitoSamlProviders implements SamlProviderRegistry {
  private connection: Promise<{ sdk: Sdk; client: Client }> | undefined;

  constructor(private readonly config: { userPoolId: string; federatedClientId?: string | undefined; endpoint?: string | undefined; region?: string | undefined }) {}

  private connect(): Promise<{ sdk: Sdk; client: Client }> {
    this.connection ??= import('@aws-sdk/client-cognito-identity-provider').then((sdk) => ({
      sdk,
      client: new sdk.CognitoIdentityProviderClient({
        // Locally as deployed, the SDK's retries: a keep-alive socket the local server closed as the call reused it
        // (ECONNRESET) is tried again, not answered INTERNAL_SERVER_ERROR (seen in CI under load). The stand-in's
        // refusals are 400s, which are not retried.
        ...(this.config.endpoint ? { endpoint: this.config.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
        ...(this.config.region ? { region: this.config.region } : {}),
      }),
    }));
    return this.connection;
  }

  async register(providerName: string, metadataXml: string, domains: string[]): Promise<'COGNITO' | 'RECORDED'> {
    const { sdk, client } = await this.connect();
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
      if (errorName(error) === 'InvalidParameterException')
        throw new AccessAdminError('SAML_METADATA_INVALID', `The user pool refused the identity provider: ${(error as Error).message}`, { field: 'input' });
      throw error;
    }
    return this.config.endpoint ? 'RECORDED' : 'COGNITO';
  }

  async describe(providerName: string): Promise<{ metadataXml: string | undefined } | undefined> {
    const { sdk, client } = await this.connect();
    try {
      const { IdentityProvider } = await client.send(new sdk.DescribeIdentityProviderCommand({ UserPoolId: this.config.userPoolId, ProviderName: providerName }));
      return { metadataXml: IdentityProvider?.ProviderDetails?.MetadataFile };
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  }

  async updateClientProviders(next: (current: string[]) => string[]): Promise<{ before: string[]; after: string[] }> {
    const clientId = this.config.federatedClientId;
    if (!clientId) throw new Error('COGNITO_FEDERATED_CLIENT_ID must name the federated app client');
    const { sdk, client } = await this.connect();
    const { UserPoolClient: current } = await client.send(new sdk.DescribeUserPoolClientCommand({ UserPoolId: this.config.userPoolId, ClientId: clientId }));
    if (!current) throw new Error(`The federated app client ${clientId} is missing from the user pool`);
    const before = current.SupportedIdentityProviders ?? [];
    const after = next(before);
    if (after.length === before.length && after.every((name, index) => name === before[index])) return { before, after };
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
        SupportedIdentityProviders: after,
      }),
    );
    return { before, after };
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
