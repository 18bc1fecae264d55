/**
 * The user pool's federation endpoints, as SAML sign-in uses them: the hosted domain's /oauth2/authorize
 * (which hands the browser to the organization's IdP) and /oauth2/token (code + PKCE verifier -> tokens),
 * and the ID token's verification with aws-jwt-verify (issuer = the pool, audience = the federated app
 * client, token_use id). The deployed stack verifies with CognitoJwtVerifier; the local stack's stand-in
 * (infra/local/federation.ts) signs with a key of its own, so there the issuer is SAML_TOKEN_ISSUER and the
 * JWKS is fetched from it over plain http, with the same library.
 */
export interface IdTokenClaims {
  sub: string;
  email?: unknown;
  identities?: unknown;
}

export interface Federation {
  /** The authorize URL that sends the browser through `providerName` back to the callback. */
  authorizeUrl(input: { providerName: string; state: string; codeChallenge: string }): string;
  /** Exchanges an authorization code; undefined when the pool refuses it. */
  exchangeCode(code: string, codeVerifier: string): Promise<string | undefined>;
  /** Verifies an ID token of the federated client; throws when it is not one. */
  verifyIdToken(token: string): Promise<IdTokenClaims>;
}

export interface FederationConfig {
  /** The pool's hosted domain, e.g. https://acme-plm.auth.eu-west-1.amazoncognito.com (no trailing slash). */
  domainUrl: string;
  clientId: string;
  callbackUrl: string;
  userPoolId: string;
  /** Local stack only: the issuer of the stand-in's tokens (its JWKS is `${issuer}/.well-known/jwks.json`). */
  tokenIssuer?: string | undefined;
}

export function federationFromEnv(env: NodeJS.ProcessEnv = process.env): Federation | undefined {
  const domainUrl = env.SAML_FEDERATION_URL?.replace(/\/+$/, '');
  const clientId = env.COGNITO_FEDERATED_CLIENT_ID;
  const callbackUrl = env.SAML_CALLBACK_URL;
  const userPoolId = env.COGNITO_USER_POOL_ID;
  if (!domainUrl || !clientId || !callbackUrl || !userPoolId) return undefined;
  return new PoolFederation({ domainUrl, clientId, callbackUrl, userPoolId, tokenIssuer: env.SAML_TOKEN_ISSUER || undefined });
}

export class PoolFederation implements Federation {
  private verifier: Promise<(token: string) => Promise<IdTokenClaims>> | undefined;

  constructor(private readonly config: FederationConfig) {}

  authorizeUrl(input: { providerName: string; state: string; codeChallenge: string }): string {
    const url = new URL(`${this.config.domainUrl}/oauth2/authorize`);
    url.search = new URLSearchParams({
      identity_provider: input.providerName,
      response_type: 'code',
      client_id: this.config.clientId,
      redirect_uri: this.config.callbackUrl,
      scope: 'openid email profile',
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  async exchangeCode(code: string, codeVerifier: string): Promise<string | undefined> {
    const response = await fetch(`${this.config.domainUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: this.config.clientId, code, redirect_uri: this.config.callbackUrl, code_verifier: codeVerifier }),
      signal: AbortSignal.timeout(10_000),
    });
    // 400 invalid_grant: an unknown, used or expired code, or a verifier that does not match.
    if (response.status >= 400 && response.status < 500) return undefined;
    if (!response.ok) throw new Error(`The user pool's token endpoint answered ${response.status}`);
    const body = (await response.json()) as { id_token?: unknown };
    return typeof body.id_token === 'string' ? body.id_token : undefined;
  }

  async verifyIdToken(token: string): Promise<IdTokenClaims> {
    this.verifier ??= this.buildVerifier();
    return (await this.verifier)(token);
  }

  private async buildVerifier(): Promise<(token: string) => Promise<IdTokenClaims>> {
    const { clientId, userPoolId, tokenIssuer } = this.config;
    if (!tokenIssuer) {
      const { CognitoJwtVerifier } = await import('aws-jwt-verify');
      const cognito = CognitoJwtVerifier.create({ userPoolId, tokenUse: 'id', clientId });
      return async (token) => (await cognito.verify(token)) as IdTokenClaims;
    }
    const [{ JwtRsaVerifier }, { SimpleJwksCache }] = await Promise.all([import('aws-jwt-verify'), import('aws-jwt-verify/jwk')]);
    const local = JwtRsaVerifier.create(
      {
        issuer: tokenIssuer,
        jwksUri: `${tokenIssuer}/.well-known/jwks.json`,
        audience: clientId,
        customJwtCheck: ({ payload }) => {
          if (payload.token_use !== 'id') throw new Error('not an ID token');
        },
      },
      { jwksCache: new SimpleJwksCache({ fetcher: { fetch: async (uri: string) => await (await fetch(uri)).arrayBuffer() } }) },
    );
    return async (token) => {
      const payload = await local.verify(token);
      if (typeof payload.sub !== 'string') throw new Error('no sub');
      return payload as IdTokenClaims;
    };
  }
}
