import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { SamlProviderRegistry } from '../accounts/samlProviders.js';
import { AccessAdminError, InvalidInputError } from '../errors.js';
import { parseInput } from '../input.js';
import type { Store } from '../store/client.js';
import { nowIso, TransactionCancelledError, transactWrite, updateIf } from '../store/items.js';
import { getOrganization, organizationKey, type OrganizationRecord } from '../store/organization.js';
import { getSamlDomain, releaseFederatedClientLease, samlDomainClaim, samlDomainRelease, takeFederatedClientLease } from '../store/samlSignin.js';
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
 * An enabled configuration claims its domains (SAML sign-in routes an address by its domain), in the same
 * transaction as the configuration: a domain another organization claimed is SAML_DOMAIN_TAKEN, and the
 * domains it no longer lists are released. A disabled configuration keeps its claims (and signs nobody in).
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
  // Before the pool hears of them (it refuses an identifier another provider holds, as a generic error).
  await assertDomainsFree(store, organization.id, [...new Set(domains)]);
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
  await saveWithDomainClaims(store, organization.id, next, current?.domains ?? []);
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

/** The configuration and its domain claims in one transaction (at most 100 items: 1 + 50 claims + releases). */
async function saveWithDomainClaims(store: Store, organizationId: string, next: SamlConfiguration, previousDomains: string[]): Promise<void> {
  const released = previousDomains.filter((domain) => !next.domains.includes(domain));
  // Re-claiming a domain the organization holds is a no-op; past the transaction's size only the new ones are claimed.
  const claimed = 1 + next.domains.length + released.length <= 100 ? next.domains : next.domains.filter((domain) => !previousDomains.includes(domain));
  try {
    await transactWrite(store, [
      { Update: { Key: organizationKey(organizationId), UpdateExpression: 'SET saml = :saml', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':saml': next } } },
      ...claimed.map((domain) => samlDomainClaim({ domain, organizationId })),
      ...released.map((domain) => samlDomainRelease(domain, organizationId)),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionCancelledError) || error.conflict) throw error;
    const taken = error.failedConditions.map((index) => claimed[index - 1]).find((domain) => domain !== undefined);
    if (!taken) throw error;
    throw domainTaken(next.domains, taken);
  }
}
