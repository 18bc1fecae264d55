import * as z from 'zod';
import type { SamlProviderRegistry } from '../accounts/samlProviders.js';
import { AccessAdminError, InvalidInputError } from '../errors.js';
import { parseInput } from '../input.js';
import type { Store } from '../store/client.js';
import { nowIso, TransactionCancelledError, transactWrite, updateIf } from '../store/items.js';
import { getOrganization, organizationKey, type OrganizationRecord } from '../store/organization.js';
import { getSamlDomain, getSamlMetadata, samlDomainClaim, samlDomainRelease, samlMetadataPut, type SamlMetadataRecord } from '../store/samlSignin.js';
import { syncOrganizationProvider } from './samlResync.js';
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
 * certificate) unless a configuration exists already; the IdP is registered in the user pool, and the
 * metadata XML is stored (the federation resync registers the provider again from it if the pool loses it).
 * Disabling keeps the configuration and disables SCIM too, in the same write (the spec's cascade).
 * An enabled configuration claims its domains (SAML sign-in routes an address by its domain), in the same
 * transaction as the configuration: a domain another organization claimed is SAML_DOMAIN_TAKEN, and the
 * domains it no longer lists are released. A disabled configuration keeps its claims (and signs nobody in).
 * After the save, the federated client lists the provider if the configuration is enabled and not if it is
 * disabled (lib/orgs/samlResync.ts).
 */
export async function configureSaml(store: Store, registry: SamlProviderRegistry, organization: OrganizationRecord, rawInput: unknown): Promise<SamlConfiguration | null> {
  const input = parseInput(configureSamlInput, rawInput, 'input');
  const current = (await getOrganization(store, organization.id))?.saml ?? null;
  const listed = input.domains ?? current?.domains ?? [];
  for (const [index, domain] of listed.entries()) {
    if (!isDomainName(domain)) throw new InvalidInputError(`input.domains[${index}]: "${domain}" is not a domain name`, { field: `input.domains[${index}]` });
  }
  const domains = [...new Set(listed)];
  if (!input.enabled) {
    if (!current) return null;
    const next = { ...current, enabled: false, updatedAt: nowIso() };
    await updateIf(store, {
      Key: organizationKey(organization.id),
      UpdateExpression: 'SET saml = :saml, scimEnabled = :false',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':saml': next, ':false': false },
    });
    await syncOrganizationProvider(store, registry, organization.id);
    return next;
  }
  if (!input.idpMetadataXml && !current) throw new InvalidInputError('input.idpMetadataXml: the identity provider metadata is required to enable SAML', { field: 'input.idpMetadataXml' });
  const providerName = providerNameOf(organization.id);
  // The XML the provider is (re)registered with: the upload, else the stored one, else (a configuration saved
  // before the metadata was stored) the pool's copy, which is stored now.
  const metadataXml = input.idpMetadataXml ?? (await getSamlMetadata(store, organization.id))?.metadataXml ?? (await registry.describe(providerName))?.metadataXml;
  if (!metadataXml) throw new InvalidInputError('input.idpMetadataXml: the user pool no longer has the identity provider and no metadata is stored; upload it again', { field: 'input.idpMetadataXml' });
  // The XML parser loads on the first metadata upload, not with every request.
  const identityProvider = input.idpMetadataXml ? (await import('../accounts/samlMetadata.js')).parseIdpMetadata(input.idpMetadataXml) : current!;
  // Before the pool hears of them (it refuses an identifier another provider holds, as a generic error).
  await assertDomainsFree(store, organization.id, domains);
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
  await saveWithDomainClaims(store, organization.id, next, current?.domains ?? [], { organizationId: organization.id, providerName, metadataXml, updatedAt: next.updatedAt });
  await syncOrganizationProvider(store, registry, organization.id);
  return next;
}

const domainTaken = (domains: string[], taken: string) =>
  new AccessAdminError('SAML_DOMAIN_TAKEN', `input.domains[${domains.indexOf(taken)}]: "${taken}" signs in through another organization's SAML configuration; a domain belongs to one organization`, {
    field: `input.domains[${domains.indexOf(taken)}]`,
    domain: taken,
  });

async function assertDomainsFree(store: Store, organizationId: string, domains: string[]): Promise<void> {
  const claims = await Promise.all(domains.map((domain) => getSamlDomain(store, domain)));
  const taken = claims.find((claim) => claim && claim.organizationId !== organizationId);
  if (taken) throw domainTaken(domains, taken.domain);
}

/** The configuration, its metadata and its domain claims in one transaction (at most 100 items: 2 + 50 claims + releases). */
async function saveWithDomainClaims(store: Store, organizationId: string, next: SamlConfiguration, previousDomains: string[], metadata: SamlMetadataRecord): Promise<void> {
  const released = previousDomains.filter((domain) => !next.domains.includes(domain));
  // Re-claiming a domain the organization holds is a no-op; past the transaction's size only the new ones are claimed.
  const claimed = 2 + next.domains.length + released.length <= 100 ? next.domains : next.domains.filter((domain) => !previousDomains.includes(domain));
  try {
    await transactWrite(store, [
      { Update: { Key: organizationKey(organizationId), UpdateExpression: 'SET saml = :saml', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':saml': next } } },
      ...claimed.map((domain) => samlDomainClaim({ domain, organizationId })),
      ...released.map((domain) => samlDomainRelease(domain, organizationId)),
      samlMetadataPut(metadata),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionCancelledError) || error.conflict) throw error;
    const taken = error.failedConditions.map((index) => claimed[index - 1]).find((domain) => domain !== undefined);
    if (!taken) throw error;
    throw domainTaken(next.domains, taken);
  }
}
