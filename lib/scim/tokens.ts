import { randomBytes } from 'node:crypto';
import { hashSecret } from '../access/apiKeySecrets.js';
import { entitlementsOf } from '../orgs/plans.js';
import type { Store } from '../store/client.js';
import type { OrganizationRecord } from '../store/organization.js';
import { readScimCredential } from '../store/scim.js';

const secretPrefix = 'scim_';
const uuidHex = (bytes: Buffer) => bytes.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * A new SCIM token secret: `scim_`, 32 random bytes, `.` and the organization id (base64url). The id is not
 * secret: it lets one BatchGetItem read the token's hash item with its organization. Only the SHA-256 of
 * the whole string is stored (the API keys' hashing), so altering the id gives an unknown token.
 */
export function generateScimSecret(organizationId: string): { secret: string; hash: string; displayPrefix: string } {
  const org = Buffer.from(organizationId.replaceAll('-', ''), 'hex').toString('base64url');
  const secret = `${secretPrefix}${randomBytes(32).toString('base64url')}.${org}`;
  return { secret, hash: hashSecret(secret), displayPrefix: secret.slice(0, secretPrefix.length + 6) };
}

function organizationOfSecret(secret: string): string | undefined {
  const match = /^scim_[A-Za-z0-9_-]{43}\.([A-Za-z0-9_-]{22})$/.exec(secret);
  if (!match) return undefined;
  const id = Buffer.from(match[1]!, 'base64url');
  return id.length === 16 ? uuidHex(id) : undefined;
}

/**
 * The organization a SCIM request acts for, or undefined (401): the bearer token must be known and
 * unrevoked (a retiring one only until its grace period ends), and the organization must exist, be active,
 * have SAML and SCIM enabled and a plan with the scim entitlement. Read fresh, strongly consistent, on every request.
 */
export async function authenticateScim(store: Store, authorization: string | undefined, now = new Date()): Promise<{ organization: OrganizationRecord; tokenId: string } | undefined> {
  const secret = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const organizationId = secret ? organizationOfSecret(secret) : undefined;
  if (!secret || !organizationId) return undefined;
  const { token, organization } = await readScimCredential(store, hashSecret(secret), organizationId);
  if (!token || !organization || token.organizationId !== organization.id) return undefined;
  if (token.retiresAt && Date.parse(token.retiresAt) <= now.getTime()) return undefined;
  // A plan that lost the scim entitlement stops SCIM as disabling it would.
  if (organization.archived || !organization.scimEnabled || !organization.saml?.enabled || !entitlementsOf(organization).scim) return undefined;
  return { organization, tokenId: token.tokenId };
}
