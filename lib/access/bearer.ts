/**
 * Bearer tokens of the GraphQL API: access tokens of the service's Cognito user pool, verified with
 * aws-jwt-verify (signature against the pool's JWKS, issuer, expiry, token_use access, client_id: the app
 * client of /auth/token, or the federated client that SSO users get tokens from; any other client's are
 * refused). The
 * deployed stack uses CognitoJwtVerifier; the local stack verifies cognito-local's tokens with the same
 * library against its JWKS, which cognito-local serves over plain http (so it is fetched with fetch).
 */
/** The token's user-pool identity, and when it signed in (`auth_time`, which refreshed tokens keep; else `iat`). */
export type BearerVerifier = (token: string) => Promise<{ sub: string; authTime: number }>;

const authTimeOf = (payload: { auth_time?: unknown; iat?: unknown }) => Number(payload.auth_time ?? payload.iat ?? 0);

export function bearerVerifierFromEnv(env: NodeJS.ProcessEnv = process.env): BearerVerifier | undefined {
  const userPoolId = env.COGNITO_USER_POOL_ID;
  const clientId = env.COGNITO_CLIENT_ID;
  if (!userPoolId || !clientId) return undefined;
  // SSO users' tokens: the pool issues them to the federated client (schema/README.md: Bearer tokens for SSO users).
  const federatedClientId = env.COGNITO_FEDERATED_CLIENT_ID || undefined;
  let verifier: Promise<BearerVerifier> | undefined;
  const build = async (): Promise<BearerVerifier> => {
    if (!env.COGNITO_ENDPOINT) {
      const { CognitoJwtVerifier } = await import('aws-jwt-verify');
      const cognito = CognitoJwtVerifier.create({ userPoolId, tokenUse: 'access', clientId: federatedClientId ? [clientId, federatedClientId] : clientId });
      return async (token) => {
        const payload = await cognito.verify(token);
        return { sub: payload.sub, authTime: authTimeOf(payload) };
      };
    }
    const [{ JwtRsaVerifier }, { SimpleJwksCache }] = await Promise.all([import('aws-jwt-verify'), import('aws-jwt-verify/jwk')]);
    const issuerOf = (issuer: string, client: string) => ({
      issuer,
      jwksUri: `${issuer}/.well-known/jwks.json`,
      audience: null,
      customJwtCheck: ({ payload }: { payload: Record<string, unknown> }) => {
        if (payload.token_use !== 'access') throw new Error('not an access token');
        if (payload.client_id !== client) throw new Error('issued to another client');
      },
    });
    // cognito-local signs with issuer http://<host>:<port>/<pool id>, the address it listens on; the local
    // federation stand-in (infra/local/federation.ts) signs the federated client's tokens as SAML_TOKEN_ISSUER.
    const issuers = [issuerOf(`${env.COGNITO_ENDPOINT.replace(/\/+$/, '')}/${userPoolId}`, clientId)];
    if (federatedClientId && env.SAML_TOKEN_ISSUER) issuers.push(issuerOf(env.SAML_TOKEN_ISSUER.replace(/\/+$/, ''), federatedClientId));
    const local = JwtRsaVerifier.create(issuers, {
      jwksCache: new SimpleJwksCache({
        fetcher: { fetch: async (uri: string) => await (await fetch(uri)).arrayBuffer() },
      }),
    });
    return async (token) => {
      // Every check is in the issuers' configuration; the multi-issuer signature wants the (empty) overrides.
      const payload = await local.verify(token, {} as never);
      if (typeof payload.sub !== 'string') throw new Error('no sub');
      return { sub: payload.sub, authTime: authTimeOf(payload) };
    };
  };
  return async (token) => {
    verifier ??= build();
    return (await verifier)(token);
  };
}
