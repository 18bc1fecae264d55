/**
 * Bearer tokens of the GraphQL API: access tokens of the service's Cognito user pool, verified with
 * aws-jwt-verify (signature against the pool's JWKS, issuer, expiry, token_use access, client_id). The
 * deployed stack uses CognitoJwtVerifier; the local stack verifies cognito-local's tokens with the same
 * library against its JWKS, which cognito-local serves over plain http (so it is fetched with fetch).
 */
export type BearerVerifier = (token: string) => Promise<{ sub: string }>;

export function bearerVerifierFromEnv(env: NodeJS.ProcessEnv = process.env): BearerVerifier | undefined {
  const userPoolId = env.COGNITO_USER_POOL_ID;
  const clientId = env.COGNITO_CLIENT_ID;
  if (!userPoolId || !clientId) return undefined;
  let verifier: Promise<BearerVerifier> | undefined;
  const build = async (): Promise<BearerVerifier> => {
    if (!env.COGNITO_ENDPOINT) {
      const { CognitoJwtVerifier } = await import('aws-jwt-verify');
      const cognito = CognitoJwtVerifier.create({ userPoolId, tokenUse: 'access', clientId });
      return async (token) => ({ sub: (await cognito.verify(token)).sub });
    }
    const [{ JwtRsaVerifier }, { SimpleJwksCache }] = await Promise.all([import('aws-jwt-verify'), import('aws-jwt-verify/jwk')]);
    // cognito-local signs with issuer http://<host>:<port>/<pool id>, the address it listens on.
    const issuer = `${env.COGNITO_ENDPOINT.replace(/\/+$/, '')}/${userPoolId}`;
    const local = JwtRsaVerifier.create(
      {
        issuer,
        jwksUri: `${issuer}/.well-known/jwks.json`,
        audience: null,
        customJwtCheck: ({ payload }) => {
          if (payload.token_use !== 'access') throw new Error('not an access token');
          if (payload.client_id !== clientId) throw new Error('issued to another client');
        },
      },
      {
        jwksCache: new SimpleJwksCache({
          fetcher: { fetch: async (uri: string) => (await (await fetch(uri)).arrayBuffer()) },
        }),
      },
    );
    return async (token) => {
      const payload = await local.verify(token);
      if (typeof payload.sub !== 'string') throw new Error('no sub');
      return { sub: payload.sub };
    };
  };
  return async (token) => {
    verifier ??= build();
    return (await verifier)(token);
  };
}
