import { createHash, randomBytes } from 'node:crypto';

const secretPrefix = 'plm_';
const uuidHex = (bytes: Buffer) => bytes.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/** The ids an API key secret carries in the clear, so that one round trip reads everything it needs. */
export interface ApiKeyScopeIds {
  organizationId: string;
  libraryId: string;
  userId: string;
}

/**
 * A new API key secret: `plm_` (for secret scanners), 32 random bytes, then `.` and the organization,
 * library and owner ids (base64url). The ids are not secret; the whole string is hashed and only the
 * hash is stored, so altering the ids gives an unknown key.
 */
export function generateApiKeySecret(scope: ApiKeyScopeIds): { secret: string; hash: string; displayPrefix: string } {
  const ids = Buffer.concat([scope.organizationId, scope.libraryId, scope.userId].map((id) => Buffer.from(id.replaceAll('-', ''), 'hex')));
  const secret = `${secretPrefix}${randomBytes(32).toString('base64url')}.${ids.toString('base64url')}`;
  return { secret, hash: hashSecret(secret), displayPrefix: secret.slice(0, secretPrefix.length + 6) };
}

/** The ids a secret claims to carry (unverified until its hash is found), or undefined for a malformed one. */
export function scopeOfSecret(secret: string): ApiKeyScopeIds | undefined {
  const match = /^plm_[A-Za-z0-9_-]{43}\.([A-Za-z0-9_-]{64})$/.exec(secret);
  if (!match) return undefined;
  const ids = Buffer.from(match[1]!, 'base64url');
  if (ids.length !== 48) return undefined;
  return { organizationId: uuidHex(ids.subarray(0, 16)), libraryId: uuidHex(ids.subarray(16, 32)), userId: uuidHex(ids.subarray(32, 48)) };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
