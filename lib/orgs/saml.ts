import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { SamlProviderRegistry } from '../accounts/samlProviders.js';
import { AccessAdminError, InvalidInputError } from '../errors.js';
import { parseInput } from '../input.js';
import type { Store } from '../store/client.js';
import { getVerifiedDomain } from '../store/domain.js';
import { nowIso, updateIf } from '../store/items.js';
import { getOrganization, organizationKey, type OrganizationRecord } from '../store/organization.js';
import { releaseFederatedClientLease, takeFederatedClientLease } from '../store/samlSignin.js';
import { isDomainName } from './slugs.js';

export const configureSamlInput = z.object({
  enabled: z.boolean(),
  idpMetadataXml: z.string().max(262_144, 'idpMetadataXml is at most 256 KB').nullish(),
  domains: z.array(z.string().trim().toLowerCase()).max(50, 'at most 50 domains').nullish(),
});

export type SamlConfiguration = NonNullable<OrganizationRecord['saml']>;

/** The user pool's name for an organization's IdP (Cognito: at most 32 characters, no underscore). */
const providerNameOf = (organizationId: string) => `org-${organizationId.replaceAll('-', '').slice(0, 28)}`;

/**
 * saml.configure: enabling needs IdP metadata (parsed and validated: entity id, SSO URL, signing
 * certificate) unless a configuration exists already; the IdP is registered in the user pool. Disabling
 * keeps the configuration and disables SCIM too, in the same write (the spec's cascade).
 * Its domains must be domains the organization has verified (DOMAIN#: one organization per domain): an
 * organization's IdP vouches only for addresses of its own domains (spec: SAML verifies an address only from
 * an organization with a verified domain), else SAML_DOMAIN_NOT_VERIFIED, checked before the pool is told.
 */
export async function configureSaml(store: Store, registry: SamlProviderRegistry, organization: OrganizationRecord, rawInput: unknown): Promise<SamlConfiguration | null> {
  const input = parseInput(configureSamlInput, rawInput, 'input');
  const current = (await getOrganization(store, organization.id))?.saml ?? null;
  const domains = input.domains ?? current?.domains ?? [];
  for (const [index, domain] of domains.entries()) {
    if (!isDomainName(domain)) throw new InvalidInputError(`input.domains[${index}]: "${domain}" is not a domain name`, { field: `input.domains[${index}]` });
  }
  if (!input.enabled) {
    if (!current) return null;
    const next = { ...current, enabled: false, updatedAt: nowIso() };
    await updateIf(store, {
      Key: organizationKey(organization.id),
      UpdateExpression: 'SET saml = :saml, scimEnabled = :false',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':saml': next, ':false': false },
    });
    return next;
  }
  if (!input.idpMetadataXml && !current) throw new InvalidInputError('input.idpMetadataXml: the identity provider metadata is required to enable SAML', { field: 'input.idpMetadataXml' });
  // The XML parser loads on the first metadata upload, not with every request.
  const identityProvider = input.idpMetadataXml ? (await import('../accounts/samlMetadata.js')).parseIdpMetadata(input.idpMetadataXml) : current!;
  await assertDomainsVerified(store, organization.id, domains);
  const providerName = providerNameOf(organization.id);
  const registration = input.idpMetadataXml ? await underFederatedClientLease(store, () => registry.register(providerName, input.idpMetadataXml!, [...new Set(domains)])) : current!.registration;
  const next: SamlConfiguration = {
    enabled: true,
    entityId: identityProvider.entityId,
    ssoUrl: identityProvider.ssoUrl,
    certificateSha256: identityProvider.certificateSha256,
    certificateNotAfter: identityProvider.certificateNotAfter,
    domains: [...new Set(domains)],
    providerName,
    registration,
    updatedAt: nowIso(),
  };
  await updateIf(store, { Key: organizationKey(organization.id), UpdateExpression: 'SET saml = :saml', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':saml': next } });
  return next;
}

const leaseMs = 15_000;

/** Registrations one at a time: each rewrites the federated client's provider list it read. */
async function underFederatedClientLease<T>(store: Store, work: () => Promise<T>): Promise<T> {
  const owner = randomUUID();
  const deadline = Date.now() + leaseMs;
  while (!(await takeFederatedClientLease(store, owner, leaseMs))) {
    if (Date.now() > deadline) throw new Error('Another SAML registration held the federated app client for longer than its lease');
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
  }
  try {
    return await work();
  } finally {
    await releaseFederatedClientLease(store, owner);
  }
}

/** Every domain must be one the organization verified (an operator's `domain verify`, or the organization's own flow). */
async function assertDomainsVerified(store: Store, organizationId: string, domains: readonly string[]): Promise<void> {
  const claims = await Promise.all(domains.map((domain) => getVerifiedDomain(store, domain)));
  const index = claims.findIndex((claim) => claim?.organizationId !== organizationId);
  if (index === -1) return;
  throw new AccessAdminError(
    'SAML_DOMAIN_NOT_VERIFIED',
    `input.domains[${index}]: "${domains[index]}" is not a verified domain of this organization; its identity provider can sign in only addresses of the organization's verified domains`,
    { field: `input.domains[${index}]`, domain: domains[index] },
  );
}
