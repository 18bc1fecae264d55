import { UnauthenticatedError } from '../errors.js';

/** Who is calling, once the credential is verified. */
export type Caller =
  | { kind: 'apiKey'; userId: string; apiKeyId: string; organizationId: string; libraryId: string }
  | { kind: 'user'; userId: string };

export interface Credentials {
  apiKey?: string | undefined;
  authorization?: string | undefined;
}

/**
 * The credentials that are not a well-formed API key (those are verified with the request's context in
 * one read: requestContext.ts): none, a malformed key, or a Bearer token. Each is 401. Bearer tokens are
 * verified by the account sign-in work (Cognito JWTs); until a verifier is configured they are refused.
 */
export async function authenticate(credentials: Credentials): Promise<Caller> {
  if (credentials.apiKey) throw new UnauthenticatedError('The API key in x-api-key is unknown or revoked');
  if (credentials.authorization?.match(/^Bearer\s+/i)) {
    throw new UnauthenticatedError('Bearer tokens are not accepted by this deployment yet: send an API key in x-api-key');
  }
  throw new UnauthenticatedError();
}
