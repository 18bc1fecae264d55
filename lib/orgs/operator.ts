import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { newUserRecord } from '../people/users.js';
import { createApiKey } from '../apikeys/apiKeys.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import type { Store } from '../store/client.js';
import { creationGrantPut, type CreationGrantRecord } from '../store/grant.js';
import { verifiedDomainPut } from '../store/domain.js';
import { nowIso, transactWrite } from '../store/items.js';
import { findLibraryIdBySlug } from '../store/library.js';
import { findOrganizationIdBySlug, getOrganization, listSandboxes, organizationDomainAdd, organizationPlanSet, scanOrganizations, type OrganizationRecord } from '../store/organization.js';
import { findUserIdByEmail, getUser, userPuts, type UserRecord } from '../store/user.js';
import { admitByAllowlist } from './allowlist.js';
import { admitByInvitations } from './invitations.js';
import { grantMembership } from './members.js';
import { assertPlanName } from './plans.js';
import { resolveRole } from './roles.js';
import { isDomainName } from '../model/slugs.js';

/** What operators run (npm run admin): each returns the JSON object the CLI prints as one line. */

async function organizationBySlug(store: Store, slug: string): Promise<OrganizationRecord> {
  const id = await findOrganizationIdBySlug(store, slug);
  const organization = id ? await getOrganization(store, id) : undefined;
  if (!organization) throw new NotFoundError('Organization', `@${slug}`);
  return organization;
}

const email = z.email().max(254);

/** The user with this address, created (address verified: the operator vouches for it) when there is none. */
export async function ensureUser(store: Store, address: string, name?: string): Promise<{ user: UserRecord; created: boolean }> {
  if (!email.safeParse(address).success) throw new InvalidInputError(`"${address}" is not an email address`, { field: 'email' });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const existingId = await findUserIdByEmail(store, address);
    const existing = existingId ? await getUser(store, existingId) : undefined;
    if (existing) return { user: existing, created: false };
    const user = newUserRecord({ email: address, emailVerified: true, ...(name ? { name } : {}) });
    try {
      await transactWrite(store, userPuts(user), { otherwise: () => new UserCreatedMeanwhileError(), onConflict: () => new UserCreatedMeanwhileError() });
    } catch (error) {
      if (error instanceof UserCreatedMeanwhileError) continue;
      throw error;
    }
    // A new person with a verified address joins every organization that invited or allowlisted it.
    await admitByInvitations(store, user.id);
    await admitByAllowlist(store, user.id);
    return { user, created: true };
  }
  throw new Error(`Could not create or find the user ${address}`);
}

/** The address was claimed by another account between the lookup and the write: look again. */
class UserCreatedMeanwhileError extends Error {}

export interface MemberAddInput {
  orgSlug: string;
  email: string;
  role: string;
  apiKeyLibrary?: string | undefined;
  name?: string | undefined;
}

/**
 * `member add`: creates or reuses the user, gives them the organization role (system id, system name, legacy
 * name or a custom role's name), and with apiKeyLibrary issues an API key acting as them in that library.
 */
export async function addMember(store: Store, input: MemberAddInput) {
  const organization = await organizationBySlug(store, input.orgSlug);
  const role = await resolveRole(store, organization.id, input.role, 'ORG', 'role');
  const libraryId = input.apiKeyLibrary ? await findLibraryIdBySlug(store, organization.id, input.apiKeyLibrary) : undefined;
  if (input.apiKeyLibrary && !libraryId) throw new NotFoundError('Library', `@${organization.slug}/${input.apiKeyLibrary}`);
  const { user, created } = await ensureUser(store, input.email, input.name);
  await grantMembership(store, organization.id, user.id, role.id);
  const key = libraryId ? await createApiKey(store, { organizationId: organization.id, libraryId, userId: user.id }, { name: `operator: ${role.name}` }) : undefined;
  return {
    organization: { id: organization.id, slug: organization.slug },
    user: { id: user.id, email: user.primaryEmail, created },
    role: { id: role.id, name: role.name },
    ...(key ? { library: { id: libraryId, path: `@${organization.slug}/${input.apiKeyLibrary}` }, apiKey: key.secret } : {}),
  };
}

/** `plan set`: a production organization's plan, carried to its sandboxes in the same transaction. */
export async function setPlan(store: Store, orgSlug: string, plan: string) {
  assertPlanName(plan);
  const organization = await organizationBySlug(store, orgSlug);
  if (organization.type === 'SANDBOX') throw new InvalidInputError("A sandbox follows its parent organization's plan: set the parent's", { field: 'orgSlug' });
  const sandboxes = await listSandboxes(store, organization.id);
  await transactWrite(store, [organizationPlanSet(organization.id, plan), ...sandboxes.map((sandbox) => organizationPlanSet(sandbox.id, plan))]);
  return { organization: { id: organization.id, slug: organization.slug }, plan, sandboxes: sandboxes.map((sandbox) => sandbox.slug) };
}

/** `grant create`: an organization-creation grant for an address (live until spent or expired). */
export async function createCreationGrant(store: Store, address: string, expiresInDays = 30) {
  if (!email.safeParse(address).success) throw new InvalidInputError(`"${address}" is not an email address`, { field: 'email' });
  if (!Number.isFinite(expiresInDays) || expiresInDays <= 0) throw new InvalidInputError('--expires-days must be a positive number of days', { field: 'expiresDays' });
  const at = nowIso();
  const grant: CreationGrantRecord = {
    id: randomUUID(),
    email: address.trim().toLowerCase(),
    createdAt: at,
    expiresAtIso: new Date(Date.parse(at) + expiresInDays * 86_400_000).toISOString(),
    usedAt: null,
    usedForOrganizationId: null,
  };
  await transactWrite(store, [creationGrantPut(grant)]);
  return { grant: { id: grant.id, email: grant.email, expiresAt: grant.expiresAtIso } };
}

/**
 * `domain verify`: records that an organization owns an email domain, after the operator has checked
 * ownership out of band (a DNS TXT record, a signed letter). One domain belongs to at most one organization.
 */
export async function verifyDomain(store: Store, orgSlug: string, rawDomain: string, verifiedBy = 'operator') {
  const domain = rawDomain.trim().toLowerCase();
  if (!isDomainName(domain)) throw new InvalidInputError(`"${rawDomain}" is not a domain name`, { field: 'domain' });
  const organization = await organizationBySlug(store, orgSlug);
  await transactWrite(store, [
    verifiedDomainPut({ domain, organizationId: organization.id, verifiedAt: nowIso(), verifiedBy }),
    ...(organization.domains.includes(domain) ? [] : [organizationDomainAdd(organization.id, domain)]),
  ]);
  return { organization: { id: organization.id, slug: organization.slug }, domain };
}

/** `tenants list`: the organizations this stack serves, with their plan and standing. */
export async function listTenants(store: Store) {
  return (await scanOrganizations(store)).map((org) => ({
    id: org.id,
    slug: org.slug,
    name: org.name,
    type: org.type,
    parentOrganizationId: org.parentOrganizationId,
    plan: org.plan,
    archived: org.archived,
    domains: org.domains,
    createdAt: org.createdAt,
  }));
}
