import { UnauthenticatedError } from '../errors.js';
import { hashSecret } from '../apikeys/secrets.js';
import type { Store } from '../store/client.js';
import { getApiKeySecret } from '../store/apiKey.js';

/** Who is calling, once the credential is verified. */
export type Caller =
  | { kind: 'apiKey'; userId: string; apiKeyId: string; organizationId: string; libraryId: string }
  | { kind: 'user'; userId: string };

export interface Credentials {
  apiKey?: string | undefined;
  authorization?: string | undefined;
}

/**
 * Verifies the request's credential. An unknown, revoked or expired key is 401, and so is a request with
 * none. Bearer tokens are verified by the account sign-in work (Cognito JWTs); until a verifier is
 * configured they are refused with 401 rather than trusted.
 */
export async function authenticate(store: Store, credentials: Credentials, now = new Date()): Promise<Caller> {
  if (credentials.apiKey) {
    const secret = await getApiKeySecret(store, hashSecret(credentials.apiKey.trim()));
    if (!secret) throw new UnauthenticatedError('The API key in x-api-key is unknown or revoked');
    if (secret.expiresAtIso && Date.parse(secret.expiresAtIso) <= now.getTime()) {
      throw new UnauthenticatedError('The API key in x-api-key has expired');
    }
    return {
      kind: 'apiKey',
      userId: secret.ownerUserId,
      apiKeyId: secret.keyId,
      organizationId: secret.organizationId,
      libraryId: secret.libraryId,
    };
  }
  if (credentials.authorization?.match(/^Bearer\s+/i)) {
    throw new UnauthenticatedError('Bearer tokens are not accepted by this deployment yet: send an API key in x-api-key');
  }
  throw new UnauthenticatedError();
}
