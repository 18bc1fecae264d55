import { randomUUID } from 'node:crypto';
import type { EffectiveAccess } from '../access/effective.js';
import { AccessAdminError, ConflictError, FeatureNotInPlanError, NotFoundError, SiteAdminRequiredError } from '../errors.js';
import { generateScimSecret } from './tokens.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { getOrganization, scimActiveTokenClear, scimActiveTokenSet, setScimEnabled, type OrganizationRecord } from '../store/organization.js';
import { getScimToken, listScimTokens, scimTokenPuts, scimTokenRetireItems, scimTokenRevokeItems, type ScimTokenRecord } from '../store/scim.js';
import { entitlementsOf } from '../orgs/plans.js';
import { isUuid } from '../model/slugs.js';

/**
 * How long a replaced token keeps working: long enough to paste the new one into the identity provider,
 * short enough that a forgotten old token dies by itself. Revoking it ends it at once.
 */
export const scimTokenGracePeriodMs = 60 * 60 * 1000;

export interface ScimSettings {
  enabled: boolean;
  samlEnabled: boolean;
  tokens: ScimTokenRecord[];
}

async function freshOrganization(store: Store, organization: OrganizationRecord): Promise<OrganizationRecord> {
  const fresh = await getOrganization(store, organization.id);
  if (!fresh) throw new NotFoundError('Organization', organization.id);
  return fresh;
}

/** The tokens that still work (active first, then retiring), never their secrets. */
export async function liveScimTokens(store: Store, organizationId: string, now = new Date()): Promise<ScimTokenRecord[]> {
  const tokens = await listScimTokens(store, organizationId);
  return tokens
    .filter((token) => token.status === 'ACTIVE' || (token.status === 'RETIRING' && token.retiresAt !== null && Date.parse(token.retiresAt) > now.getTime()))
    .sort((a, b) => (a.status === b.status ? b.createdAt.localeCompare(a.createdAt) : a.status === 'ACTIVE' ? -1 : 1));
}

export async function scimSettings(store: Store, organization: OrganizationRecord): Promise<ScimSettings> {
  const fresh = await freshOrganization(store, organization);
  return { enabled: fresh.scimEnabled, samlEnabled: fresh.saml?.enabled ?? false, tokens: await liveScimTokens(store, fresh.id) };
}

/**
 * configureScim: enabling needs a Site Admin (the operation itself needs integrations.configure), the plan's `scim` entitlement (FEATURE_NOT_IN_PLAN) and SAML enabled
 * (SAML_NOT_ENABLED), the latter as a condition of the write so a concurrent SAML disable cannot slip
 * between. Disabling takes effect on the next SCIM request (401).
 */
export async function configureScim(store: Store, organization: OrganizationRecord, actor: EffectiveAccess, enabled: boolean): Promise<ScimSettings> {
  if (enabled) {
    // The spec: an organization admin (Site Admin) with the authentication-settings permission.
    if (!actor.isSiteAdmin) throw new SiteAdminRequiredError('Enabling SCIM', 'integrations.configure');
    if (!entitlementsOf(organization).scim) throw new FeatureNotInPlanError('SCIM');
    const applied = await setScimEnabled(store, organization.id, true);
    if (!applied) throw new AccessAdminError('SAML_NOT_ENABLED', 'Enable SAML single sign-on (saml.configure) before SCIM');
  } else {
    await setScimEnabled(store, organization.id, false);
  }
  return scimSettings(store, organization);
}

/**
 * scimToken.create: a new token becomes the organization's one ACTIVE token; the previous active token
 * becomes RETIRING and works for scimTokenGracePeriodMs more (or until revoked), and any token already
 * retiring is revoked. Rotation: create, paste the new secret into the identity provider, revoke the old.
 * The secret is returned here and never again.
 */
export interface CreatedScimToken {
  token: ScimTokenRecord;
  secret: string;
}

export async function createScimToken(store: Store, organization: OrganizationRecord, createdBy: string, now = new Date()): Promise<CreatedScimToken> {
  const fresh = await freshOrganization(store, organization);
  const tokens = await listScimTokens(store, fresh.id);
  const at = now.toISOString();
  const { secret, hash, displayPrefix } = generateScimSecret(fresh.id);
  const token: ScimTokenRecord = { id: randomUUID(), organizationId: fresh.id, displayPrefix, createdAt: at, createdBy, status: 'ACTIVE', retiresAt: null, revokedAt: null, hash };
  const previous = tokens.find((candidate) => candidate.id === fresh.scimActiveTokenId && candidate.status === 'ACTIVE');
  const retiring = tokens.filter((candidate) => candidate.status === 'RETIRING');
  const items: WriteItem[] = [
    scimActiveTokenSet(fresh.id, fresh.scimActiveTokenId, token.id),
    ...scimTokenPuts(token),
    ...(previous ? scimTokenRetireItems(previous, new Date(now.getTime() + scimTokenGracePeriodMs).toISOString()) : []),
    ...retiring.flatMap((old) => scimTokenRevokeItems(old, at)),
  ];
  const changedMeanwhile = () => new ConflictError('The SCIM token of organization', fresh.id);
  await transactWrite(store, items, { otherwise: changedMeanwhile, onConflict: changedMeanwhile });
  return { token, secret };
}

/** scimToken.revoke: the token stops working at once (its hash item is deleted). Revoking twice is fine. */
export async function revokeScimToken(store: Store, organization: OrganizationRecord, tokenId: string, now = new Date()): Promise<boolean> {
  const token = isUuid(tokenId) ? await getScimToken(store, organization.id, tokenId.toLowerCase()) : undefined;
  if (!token) throw new NotFoundError('SCIM token', tokenId);
  if (token.status === 'REVOKED') return true;
  const items: WriteItem[] = scimTokenRevokeItems(token, now.toISOString());
  if (token.status === 'ACTIVE') items.push(scimActiveTokenClear(organization.id, token.id));
  const changedMeanwhile = () => new ConflictError('SCIM token', token.id);
  await transactWrite(store, items, { otherwise: changedMeanwhile, onConflict: changedMeanwhile });
  return true;
}
