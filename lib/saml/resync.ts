import { ConflictError } from '../errors.js';
import { randomUUID } from 'node:crypto';
import type { SamlProviderRegistry } from './providers.js';
import type { Store } from '../store/client.js';
import { enabledSamlConfiguration, getOrganization, getOrganizations, type OrganizationRecord } from '../store/organization.js';
import { getSamlMetadata, listSamlMetadata, releaseFederatedClientLease, takeFederatedClientLease, type SamlMetadataRecord } from '../store/samlSignin.js';

/**
 * The table is the truth of SAML federation; the user pool follows it. The federated app client's
 * SupportedIdentityProviders is exactly the providers of the organizations whose SAML configuration is
 * enabled (and not archived), each registered in the pool. A disabled configuration's provider stays
 * registered in the pool (re-enabling needs no metadata) but is off the client, so that the pool itself
 * refuses to sign anyone in through it, including a client that goes to the hosted domain directly for
 * Bearer tokens. CloudFormation owns the client resource and writes its template's empty list back on every
 * update of it: the resync after each deployment (infra/stack/userPool.ts, a trigger) and `npm run admin --
 * saml-resync` put the list back, and re-register the providers the pool lost from the stored metadata.
 */
const leaseMs = 15_000;

/** Changes of the federated client's provider list one at a time: each writes whole the list it read. */
export async function underFederatedClientLease<T>(store: Store, work: () => Promise<T>): Promise<T> {
  const owner = randomUUID();
  const deadline = Date.now() + leaseMs;
  while (!(await takeFederatedClientLease(store, owner, leaseMs))) {
    // A retryable refusal (409 CONFLICT in GraphQL), not a server fault: another registration is working on the client.
    if (Date.now() > deadline) throw new ConflictError('The federated app client', '(held by another SAML registration)');
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
  }
  try {
    return await work();
  } finally {
    await releaseFederatedClientLease(store, owner);
  }
}

type SamlConfiguration = NonNullable<OrganizationRecord['saml']>;

/** The configuration whose provider the federated client must list, if the organization has one. */

export interface ResyncedOrganization {
  organizationId: string;
  slug: string | undefined;
  providerName: string;
  /** On the federated client after the resync. */
  enabled: boolean;
  /** The pool had lost the provider: it was registered again from the stored metadata. */
  reregistered: boolean;
  /** Why an enabled configuration's provider could not be put back (it is then off the client). */
  problem?: string;
}

export interface ResyncResult {
  organizations: ResyncedOrganization[];
  /** The federated client's provider list before and after. */
  before: string[];
  after: string[];
}

/**
 * Makes sure the pool has the provider of an enabled configuration, registering it again from the stored
 * metadata when it lost it; a problem (as text) when it cannot.
 */
async function ensureRegistered(registry: SamlProviderRegistry, saml: SamlConfiguration, metadata: SamlMetadataRecord | undefined): Promise<{ reregistered: boolean; problem?: string }> {
  if (await registry.describe(saml.providerName)) return { reregistered: false };
  if (!metadata || metadata.providerName !== saml.providerName)
    return { reregistered: false, problem: 'The user pool has no such identity provider and no metadata is stored: run saml.configure with idpMetadataXml' };
  try {
    await registry.register(saml.providerName, metadata.metadataXml, saml.domains);
    return { reregistered: true };
  } catch (error) {
    return { reregistered: false, problem: `The user pool refused to register the identity provider again: ${(error as Error).message}` };
  }
}

/**
 * Re-syncs the pool from the table: every organization with stored SAML metadata (every configuration saved
 * since the metadata is stored) is read, the providers of the enabled ones are registered again where the
 * pool lost them, and the federated client lists the enabled, registered providers and not the others examined
 * (providers of organizations it did not examine are left as they are), under
 * the client's lease (the table is read again under it, so a saml.configure that saved meanwhile is seen or
 * applies its own change after). Idempotent; an organization whose provider cannot be put back is reported
 * and left off the client, the others are synced.
 */
export async function resyncSamlFederation(store: Store, registry: SamlProviderRegistry, options: { extraOrganizationIds?: readonly string[] } = {}): Promise<ResyncResult> {
  const metadata = new Map((await listSamlMetadata(store)).map((record) => [record.organizationId, record]));
  const ids = [...new Set([...metadata.keys(), ...(options.extraOrganizationIds ?? [])])];
  // Registrations first, outside the lease (they do not touch the client, and can take a while).
  const checked = new Map<string, { reregistered: boolean; problem?: string }>();
  for (const organization of (await getOrganizations(store, ids)).values()) {
    const saml = enabledSamlConfiguration(organization);
    if (saml) checked.set(saml.providerName, await ensureRegistered(registry, saml, metadata.get(organization.id)));
  }
  return underFederatedClientLease(store, async () => {
    const organizations: ResyncedOrganization[] = [];
    const fresh = await getOrganizations(store, ids);
    for (const id of ids) {
      const organization = fresh.get(id);
      const saml = organization?.saml;
      if (!organization || !saml) continue;
      const enabled = enabledSamlConfiguration(organization);
      // Enabled since the first pass: check it now.
      const registration = enabled ? (checked.get(saml.providerName) ?? (await ensureRegistered(registry, saml, metadata.get(id) ?? (await getSamlMetadata(store, id))))) : { reregistered: false };
      organizations.push({
        organizationId: id,
        slug: organization.slug,
        providerName: saml.providerName,
        enabled: Boolean(enabled) && !registration.problem,
        reregistered: registration.reregistered,
        ...(registration.problem ? { problem: registration.problem } : {}),
      });
    }
    const wanted = organizations.filter((o) => o.enabled).map((o) => o.providerName);
    // A provider of no organization examined here (a configuration saved before metadata was stored, found only
    // with --scan) is left as it is: the resync adds and removes only what it can judge.
    const examined = new Set(organizations.map((o) => o.providerName));
    const { before, after } = await registry.updateClientProviders((current) => [...new Set([...wanted, ...current.filter((name) => !examined.has(name))])].sort());
    return { organizations, before, after };
  });
}

/**
 * After saml.configure saved an organization's configuration: its provider on the federated client if the
 * configuration is enabled (registered again from the stored metadata if the pool lost it), off it if not.
 * Under the lease, from the configuration read under it. The other providers on the list are left as they are.
 */
export async function syncOrganizationProvider(store: Store, registry: SamlProviderRegistry, organizationId: string): Promise<void> {
  await underFederatedClientLease(store, async () => {
    const organization = await getOrganization(store, organizationId);
    const saml = organization?.saml;
    if (!saml) return;
    const enabled = enabledSamlConfiguration(organization);
    if (enabled) {
      const { problem } = await ensureRegistered(registry, enabled, await getSamlMetadata(store, organizationId));
      if (problem) throw new Error(problem);
    }
    await registry.updateClientProviders((current) => {
      if (enabled) return current.includes(saml.providerName) ? current : [...current, saml.providerName];
      return current.filter((name) => name !== saml.providerName);
    });
  });
}
