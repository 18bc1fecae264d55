import * as z from 'zod';
import type { SamlProviderRegistry } from './providers.js';
import { AccessAdminError, InvalidInputError } from '../errors.js';
import { parseInput } from '../input.js';
import type { Store } from '../store/client.js';
import { getVerifiedDomain } from '../store/domain.js';
import { nowIso, transactWrite } from '../store/items.js';
import { getOrganization, samlConfigurationSet, setSamlDisabled, type OrganizationRecord } from '../store/organization.js';
import { getSamlMetadata, samlMetadataPut, type SamlMetadataRecord } from '../store/samlSignin.js';
import { syncOrganizationProvider } from './resync.js';
import { isDomainName } from '../model/slugs.js';

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
 * certificate) unless a configuration exists already; the IdP is registered in the user pool, and the
 * metadata XML is stored (the federation resync registers the provider again from it if the pool loses it).
 * Disabling keeps the configuration and disables SCIM too, in the same write (the spec's cascade).
 * Its domains must be domains the organization has verified (DOMAIN#: one organization per domain): an
 * organization's IdP vouches only for addresses of its own domains (spec: SAML verifies an address only from
 * an organization with a verified domain), else SAML_DOMAIN_NOT_VERIFIED, checked before the pool is told.
 * After the save, the federated client lists the provider if the configuration is enabled and not if it is
 * disabled (lib/saml/resync.ts).
 */
export async function configureSaml(store: Store, registry: SamlProviderRegistry, organization: OrganizationRecord, rawInput: unknown): Promise<SamlConfiguration | null> {
  const input = parseInput(configureSamlInput, rawInput, 'input');
  // Disabling keeps the stored configuration as it is: metadata or domains (even null) sent with it would be dropped.
  if (!input.enabled) {
    for (const field of ['idpMetadataXml', 'domains'] as const) {
      if (input[field] !== undefined) {
        throw new InvalidInputError(`input.${field}: disabling keeps the stored configuration; send ${field} with enabled: true`, { field: `input.${field}` });
      }
    }
  }
  const current = (await getOrganization(store, organization.id))?.saml ?? null;
  // Omitted: the stored domains; null or a list replaces them (null: none).
  const listed = input.domains === undefined ? (current?.domains ?? []) : (input.domains ?? []);
  for (const [index, domain] of listed.entries()) {
    if (!isDomainName(domain)) throw new InvalidInputError(`input.domains[${index}]: "${domain}" is not a domain name`, { field: `input.domains[${index}]` });
  }
  const domains = [...new Set(listed)];
  if (!input.enabled) {
    if (!current) return null;
    const next = { ...current, enabled: false, updatedAt: nowIso() };
    await setSamlDisabled(store, organization.id, next);
    await syncOrganizationProvider(store, registry, organization.id);
    return next;
  }
  if (!input.idpMetadataXml && !current) throw new InvalidInputError('input.idpMetadataXml: the identity provider metadata is required to enable SAML', { field: 'input.idpMetadataXml' });
  const providerName = providerNameOf(organization.id);
  // The XML the provider is (re)registered with: the upload, else the stored one, else (a configuration saved
  // before the metadata was stored) the pool's copy, which is stored now.
  const metadataXml = input.idpMetadataXml ?? (await getSamlMetadata(store, organization.id))?.metadataXml ?? (await registry.describe(providerName))?.metadataXml;
  if (!metadataXml)
    throw new InvalidInputError('input.idpMetadataXml: the user pool no longer has the identity provider and no metadata is stored; upload it again', { field: 'input.idpMetadataXml' });
  // The XML parser loads on the first metadata upload, not with every request.
  const identityProvider = input.idpMetadataXml ? (await import('./metadata.js')).parseIdpMetadata(input.idpMetadataXml) : current!;
  await assertDomainsVerified(store, organization.id, domains);
  const domainsChanged = !current || domains.length !== current.domains.length || domains.some((domain) => !current.domains.includes(domain));
  const registration = input.idpMetadataXml || domainsChanged ? await registry.register(providerName, metadataXml, domains) : current!.registration;
  const next: SamlConfiguration = {
    enabled: true,
    entityId: identityProvider.entityId,
    ssoUrl: identityProvider.ssoUrl,
    certificateSha256: identityProvider.certificateSha256,
    certificateNotAfter: identityProvider.certificateNotAfter,
    domains,
    providerName,
    registration,
    updatedAt: nowIso(),
  };
  await saveConfiguration(store, organization.id, next, { organizationId: organization.id, providerName, metadataXml, updatedAt: next.updatedAt });
  await syncOrganizationProvider(store, registry, organization.id);
  return next;
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

/** The configuration and its metadata in one transaction. */
async function saveConfiguration(store: Store, organizationId: string, next: SamlConfiguration, metadata: SamlMetadataRecord): Promise<void> {
  await transactWrite(store, [samlConfigurationSet(organizationId, next), samlMetadataPut(metadata)]);
}
