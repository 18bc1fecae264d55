import * as z from 'zod';
import type { EffectiveAccess } from '../access/effective.js';
import { AccessAdminError, InvalidInputError, NotFoundError } from '../errors.js';
import { allowlistDelete, allowlistPut, listAllowlistForEntry, listAllowlistOfOrganization, type AllowlistRecord } from '../store/allowlist.js';
import type { Store } from '../store/client.js';
import { getVerifiedDomain } from '../store/domain.js';
import { nowIso, transactWrite } from '../store/items.js';
import { getMembership, membershipRecord } from '../store/membership.js';
import { getOrganization, type OrganizationRecord } from '../store/organization.js';
import { roleHolderUpdates } from '../store/role.js';
import { getUser, normalizeEmail } from '../store/user.js';
import { changeMembership } from './members.js';
import { assertHoldsAll, isCustomRoleId, resolveRole } from './roles.js';
import { isDomainName } from '../model/slugs.js';

/** "ada@acme.test" stays an address; "@acme.test" or "acme.test" is the domain, stored as "@acme.test". */
export function normalizeAllowlistEntry(raw: string): string {
  const value = raw.trim().toLowerCase();
  if (value.includes('@') && !value.startsWith('@')) {
    if (!z.email().max(254).safeParse(value).success) throw new InvalidInputError(`"${raw}" is not an email address`, { field: 'input.entry' });
    return normalizeEmail(value);
  }
  const domain = value.replace(/^@/, '');
  if (!isDomainName(domain)) throw new InvalidInputError(`"${raw}" is neither an email address nor a domain`, { field: 'input.entry' });
  return `@${domain}`;
}

/**
 * Whether a domain entry ("@acme.test") is the organization's to apply: the organization verified the domain
 * (DOMAIN#, one organization per domain). An address entry always is (it admits one verified address).
 */
async function ownsEntry(store: Store, organizationId: string, entry: string): Promise<boolean> {
  if (!entry.startsWith('@')) return true;
  return (await getVerifiedDomain(store, entry.slice(1)))?.organizationId === organizationId;
}

/**
 * A domain entry must be a domain the organization verified (ALLOWLIST_DOMAIN_NOT_VERIFIED otherwise): an
 * organization speaks only for the addresses of its own domains, never for another organization's people
 * (who would join it, and be listed with their addresses, on their next verification) nor for a public
 * mail domain's. An address entry may name any address.
 */
export async function addAllowlistEntry(store: Store, organization: OrganizationRecord, actor: EffectiveAccess, userId: string, input: { entry: string; roleId?: string | null }) {
  const entry = normalizeAllowlistEntry(input.entry);
  if (!(await ownsEntry(store, organization.id, entry))) {
    throw new AccessAdminError(
      'ALLOWLIST_DOMAIN_NOT_VERIFIED',
      `"${entry.slice(1)}" is not a verified domain of this organization: only its own verified domains can be allowlisted (allowlist an address instead)`,
      { field: 'input.entry', domain: entry.slice(1) },
    );
  }
  const role = await resolveRole(store, organization.id, input.roleId ?? 'VIEWER', 'ORG', 'input.roleId');
  assertHoldsAll(actor.organizationPermissions(), role.permissions);
  const record: AllowlistRecord = { organizationId: organization.id, entry, roleId: role.id, createdAt: nowIso(), createdBy: userId };
  await transactWrite(store, [allowlistPut(record), ...roleHolderUpdates(organization.id, [], [role.id], isCustomRoleId)]);
  return record;
}

export async function removeAllowlistEntry(store: Store, organization: OrganizationRecord, rawEntry: string): Promise<boolean> {
  const entry = normalizeAllowlistEntry(rawEntry);
  const record = (await listAllowlistForEntry(store, entry)).find((candidate) => candidate.organizationId === organization.id);
  if (!record) throw new NotFoundError('Allowlist entry', entry);
  const gone = () => new NotFoundError('Allowlist entry', entry);
  await transactWrite(store, [allowlistDelete(record), ...roleHolderUpdates(organization.id, [record.roleId], [], isCustomRoleId)], { otherwise: gone, onConflict: gone });
  return true;
}

export async function allowlistOf(store: Store, organizationId: string): Promise<AllowlistRecord[]> {
  return (await listAllowlistOfOrganization(store, organizationId)).sort((a, b) => a.entry.localeCompare(b.entry));
}

/**
 * The seam for joining, beside invitations: a user whose verified address, or its domain, is on an
 * organization's allowlist joins it with the entry's role (members keep their roles). An unverified address
 * joins nothing. A domain entry admits only while the domain is a verified domain of the entry's
 * organization (an entry stored before that rule, or a domain verified since by another organization,
 * admits nobody). `onlyOrganizationId`: that organization's entries only (as admitByInvitations). Returns the
 * organizations joined.
 */
export async function admitByAllowlist(store: Store, userId: string, onlyOrganizationId?: string): Promise<string[]> {
  const user = await getUser(store, userId);
  if (!user || !user.emailVerified || user.archived) return [];
  const address = normalizeEmail(user.primaryEmail);
  const domain = address.split('@')[1];
  const entries = [...(await listAllowlistForEntry(store, address)), ...(domain ? await listAllowlistForEntry(store, `@${domain}`) : [])];
  const joined: string[] = [];
  for (const entry of entries) {
    if (onlyOrganizationId !== undefined && entry.organizationId !== onlyOrganizationId) continue;
    if (joined.includes(entry.organizationId) || (await getMembership(store, entry.organizationId, userId))) continue;
    if (!(await ownsEntry(store, entry.organizationId, entry.entry))) continue;
    const organization = await getOrganization(store, entry.organizationId);
    if (!organization || organization.archived) continue;
    await changeMembership(
      store,
      organization,
      userId,
      (current) => current ?? membershipRecord.parse({ organizationId: organization.id, userId, role: entry.roleId, libraryRoles: {}, createdAt: nowIso() }),
    );
    joined.push(organization.id);
  }
  return joined;
}
