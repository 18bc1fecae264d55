import { createHash, randomBytes } from 'node:crypto';

const secretPrefix = 'plm_';

/** A new API key secret: 32 random bytes, base64url, with a recognisable prefix for secret scanners. */
export function generateApiKeySecret(): { secret: string; hash: string; displayPrefix: string } {
  const secret = `${secretPrefix}${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashSecret(secret), displayPrefix: secret.slice(0, secretPrefix.length + 6) };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
