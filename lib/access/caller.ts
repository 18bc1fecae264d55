import { UnauthenticatedError } from '../errors.js';

/** Who is calling, once the credential is verified. */
export type Caller =
  /**
   * integrationId: the integration principal the key acts as (null: the native principal, like a person).
   * roleId: the role the key acts with, capped by its owner's permissions (null: the owner's permissions,
   * or for an integration's key the default integration key permissions: lib/apikeys/keyRole.ts).
   */
  { kind: 'apiKey'; userId: string; apiKeyId: string; organizationId: string; libraryId: string; integrationId: string | null; roleId: string | null } | { kind: 'user'; userId: string };

export interface Credentials {
  apiKey?: string | undefined;
  authorization?: string | undefined;
}

/**
 * The credentials that are not a well-formed API key (those are verified with the request's context in
 * one read: requestContext.ts): none, a malformed key, or an Authorization header that could not be
 * verified (requestContext.ts verifies Bearer tokens and session cookies). Each is 401.
 */
export async function authenticate(credentials: Credentials): Promise<Caller> {
  if (credentials.apiKey) throw new UnauthenticatedError('The API key in x-api-key is unknown or revoked');
  if (credentials.authorization?.match(/^Bearer\s+/i)) throw new UnauthenticatedError('The Bearer token is invalid or expired');
  if (credentials.authorization) throw new UnauthenticatedError('Authorization must be "Bearer <access token of the user pool>"');
  throw new UnauthenticatedError();
}
