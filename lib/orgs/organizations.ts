import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { loadEffectiveAccess } from '../access/effective.js';
import { AccessAdminError, AlreadyExistsError, NotFoundError } from '../errors.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { creationGrantSpend, listCreationGrants, type CreationGrantRecord } from '../store/grant.js';
import { getVerifiedDomain } from '../store/domain.js';
import { getMembership, getUserAndMemberships, membershipPut } from '../store/membership.js';
import { getOrganization, getOrganizations, listSandboxes, organizationPuts, sandboxArchiveItems, sandboxSlotTake, type OrganizationRecord } from '../store/organization.js';
import { getUser, type UserRecord } from '../store/user.js';
import { newLibraryItems, newLibraryRecord } from './libraries.js';
import { creationGatingEnforced, entitlementsOf } from './plans.js';
import { parseInput } from '../input.js';
import { assertValidSlug, isUuid } from '../model/slugs.js';

/**
 * The items of a new organization: the organization and its slug, its first library with the default
 * configuration, and the creator as its Site Admin (the site-admin count starts at 1).
 */
export function newOrganizationItems(organization: OrganizationRecord, creatorUserId: string, library: { name: string; slug: string }, at: string, slugTaken?: () => Error) {
  const firstLibrary = newLibraryRecord(organization.id, library, creatorUserId, at);
  return {
    library: firstLibrary,
    items: [
      ...organizationPuts({ ...organization, siteAdminCount: 1 }, slugTaken),
      ...newLibraryItems(firstLibrary),
      membershipPut({ organizationId: organization.id, userId: creatorUserId, role: 'SITE_ADMIN', libraryRoles: {}, createdAt: at }),
    ],
  };
}

export function newOrganizationRecord(fields: { name: string; slug: string; plan: string; parent?: OrganizationRecord }, at: string): OrganizationRecord {
  return {
    id: randomUUID(),
    name: fields.name,
    slug: fields.slug,
    type: fields.parent ? 'SANDBOX' : 'PRODUCTION',
    parentOrganizationId: fields.parent?.id ?? null,
    plan: fields.parent?.plan ?? fields.plan,
    createdAt: at,
    archived: false,
    archivedAt: null,
    sandboxCount: 0,
    domains: [],
    saml: null,
    scimEnabled: false,
    scimActiveTokenId: null,
  };
}

/** The slug of a new organization is taken (a generated one is tried again with a suffix). */
class SlugTakenError extends AlreadyExistsError {
  constructor(slug: string) {
    super(`An organization with slug "${slug}" already exists`, { field: 'input.slug' });
  }
}

const isActiveProduction = (org: OrganizationRecord | undefined): org is OrganizationRecord => !!org && org.type === 'PRODUCTION' && !org.archived;

/** Whether the user holds SITE_ADMIN in the organization (directly or through a team). */
export async function isSiteAdminOf(store: Store, organizationId: string, userId: string): Promise<boolean> {
  const membership = await getMembership(store, organizationId, userId);
  return !!membership && (await loadEffectiveAccess(store, membership)).isSiteAdmin;
}

export interface SandboxParent {
  organization: OrganizationRecord;
  sandboxLimit: number;
  sandboxUsed: number;
  sandboxRemaining: number;
}

export interface CreationStanding {
  user: UserRecord | undefined;
  memberships: number;
  canCreateOrg: boolean;
  /** The grant a production creation would spend (none when the caller may create as a Site Admin or gating is off). */
  grantToSpend: CreationGrantRecord | undefined;
  /** Active production organizations the user is Site Admin of. */
  adminOrganizations: OrganizationRecord[];
  sandboxParents: SandboxParent[];
}

/** A grant is live until it is spent or expires. */
const isLive = (grant: CreationGrantRecord, now: number) => grant.usedAt === null && (grant.expiresAtIso === null || Date.parse(grant.expiresAtIso) > now);

/**
 * Where a user stands for creating organizations (spec: Current user). With gating enforced, canCreateOrg is
 * true for a non-archived user who holds a live unused creation grant for their verified address, or who is
 * Site Admin of an active production organization whose plan has the organizationCreation entitlement; with
 * gating open, for every authenticated user. Sandbox headroom is separate (sandboxParents).
 *
 * `knownOrganization`: organization items the request has already read (an API key's context reads its
 * organization), which are not read again.
 */
export async function creationStanding(
  store: Store,
  userId: string,
  env: NodeJS.ProcessEnv = process.env,
  knownOrganization: (organizationId: string) => OrganizationRecord | undefined = () => undefined,
): Promise<CreationStanding> {
  // The user and their memberships: one Query (lib/store/membership.ts).
  const { user, memberships } = await getUserAndMemberships(store, userId);
  // Only a direct SITE_ADMIN role or a team can make someone Site Admin: the other memberships cost no read.
  const candidates = memberships.filter((membership) => membership.role === 'SITE_ADMIN' || membership.teamIds.length > 0);
  const known = new Map<string, OrganizationRecord>();
  for (const membership of candidates) {
    const organization = knownOrganization(membership.organizationId);
    if (organization) known.set(organization.id, organization);
  }
  const [organizations, admins] = await Promise.all([
    getOrganizations(
      store,
      candidates.map((membership) => membership.organizationId).filter((id) => !known.has(id)),
    ).then((read) => new Map([...known, ...read])),
    Promise.all(candidates.map(async (membership) => (await loadEffectiveAccess(store, membership)).isSiteAdmin)),
  ]);
  const adminOf = candidates.map((membership, index) => (admins[index] ? organizations.get(membership.organizationId) : undefined)).filter((org): org is OrganizationRecord => isActiveProduction(org));
  const sandboxParents = adminOf
    .map((organization) => {
      const sandboxLimit = entitlementsOf(organization).sandboxOrgs;
      return { organization, sandboxLimit, sandboxUsed: organization.sandboxCount, sandboxRemaining: Math.max(0, sandboxLimit - organization.sandboxCount) };
    })
    .filter((parent) => parent.sandboxLimit > 0)
    .sort((a, b) => a.organization.name.localeCompare(b.organization.name));
  const active = !!user && !user.archived;
  const gated = creationGatingEnforced(env);
  const asAdmin = adminOf.some((org) => entitlementsOf(org).organizationCreation);
  const now = Date.now();
  const grants = active && user.emailVerified && gated && !asAdmin ? await listCreationGrants(store, user.primaryEmail) : [];
  const grantToSpend = grants.filter((grant) => isLive(grant, now)).sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
  return {
    user,
    memberships: memberships.length,
    canCreateOrg: gated ? active && (asAdmin || !!grantToSpend) : !!user,
    grantToSpend,
    adminOrganizations: adminOf,
    sandboxParents,
  };
}

export const createOrganizationInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(200, 'name is at most 200 characters'),
  slug: z.string().trim().nullish(),
  parentOrganizationId: z.string().nullish(),
});

/** A slug from a name: "Acme Robotics (EU)" -> "acme-robotics-eu". */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return slug || 'org';
}

/**
 * organization.create. Without a parent: a production organization, if the caller may create one now
 * (spending a creation grant when that is what allows it). With parentOrganizationId: a sandbox of that
 * organization, which must be an active production organization the caller is Site Admin of and have
 * sandbox_orgs headroom; the quota is a condition of the same transaction, so concurrent creations cannot
 * overrun it, and no creation grant is spent. Either way the organization comes with a first library,
 * "Main", and the caller as its Site Admin.
 */
export async function createOrganization(store: Store, userId: string, rawInput: unknown, env: NodeJS.ProcessEnv = process.env): Promise<OrganizationRecord> {
  const input = parseInput(createOrganizationInput, rawInput);
  // An empty slug or parent id is malformed, not absent (null or an omitted field is absent).
  if (input.slug !== undefined && input.slug !== null) assertValidSlug(input.slug, 'Organization');
  const at = nowIso();
  const parentId = input.parentOrganizationId?.trim();
  let parent: OrganizationRecord | undefined;
  const extra: WriteItem[] = [];
  let grant: CreationGrantRecord | undefined;
  let plan = 'free';
  if (parentId !== undefined) {
    parent = isUuid(parentId) ? await getOrganization(store, parentId.toLowerCase()) : undefined;
    const forbidden = (why: string) => new AccessAdminError('SANDBOX_PARENT_FORBIDDEN', `A sandbox cannot be created under this organization: ${why}`, { parentOrganizationId: parentId });
    if (!parent || !(await isSiteAdminOf(store, parent.id, userId))) throw forbidden('you are not its Site Admin');
    if (parent.type !== 'PRODUCTION' || parent.archived) throw forbidden('it is not an active production organization (sandboxes cannot be nested)');
    const limit = entitlementsOf(parent).sandboxOrgs;
    if (parent.sandboxCount >= limit) throw forbidden(`its plan allows ${limit} sandbox(es) and ${parent.sandboxCount} exist`);
    const parentOrganizationId = parent.id;
    extra.push(
      sandboxSlotTake(
        parentOrganizationId,
        limit,
        () => new AccessAdminError('SANDBOX_PARENT_FORBIDDEN', 'A sandbox cannot be created under this organization: its sandbox quota was used up meanwhile', { parentOrganizationId }),
      ),
    );
  } else {
    const standing = await creationStanding(store, userId, env);
    if (!standing.canCreateOrg) {
      throw new AccessAdminError(
        'ORG_CREATION_NOT_ALLOWED',
        'You cannot create an organization now: it needs an organization-creation grant for your verified address, or Site Admin of an organization whose plan allows it',
      );
    }
    grant = standing.grantToSpend;
    plan = grant ? 'free' : creatorPlan(standing);
  }

  for (let attempt = 0; ; attempt += 1) {
    const slug = input.slug ?? (attempt === 0 ? slugFromName(input.name) : `${slugFromName(input.name).slice(0, 40)}-${randomUUID().slice(0, 6)}`);
    const organization = newOrganizationRecord({ name: input.name, slug, plan, ...(parent ? { parent } : {}) }, at);
    if (!parent && grant) extra.splice(0, extra.length, creationGrantSpend(grant, organization.id, at));
    const { items } = newOrganizationItems(organization, userId, { name: 'Main', slug: 'main' }, at, () => new SlugTakenError(slug));
    try {
      // A taken slug speaks before a spent quota or grant: the slug items come first.
      await transactWrite(store, [...items, ...extra]);
      return { ...organization, siteAdminCount: 1 };
    } catch (error) {
      if (error instanceof SlugTakenError && !input.slug && attempt < 3) continue;
      throw error;
    }
  }
}

/**
 * The plan of a production organization created by a Site Admin: the best plan among the organizations that
 * entitled them to create it. One created from a grant starts on the free plan (an operator changes it with
 * `plan set`).
 */
function creatorPlan(standing: CreationStanding): string {
  const entitled = standing.adminOrganizations.filter((org) => entitlementsOf(org).organizationCreation).map((org) => org.plan);
  return ['enterprise', 'team'].find((plan) => entitled.includes(plan)) ?? 'free';
}

/**
 * organization.archiveSandboxOrganization: archives a sandbox the caller administers (Site Admin of the
 * sandbox or of its parent) and frees its slot in the parent's quota, in one transaction. Anything else is
 * SANDBOX_ARCHIVE_FORBIDDEN. Nobody can use an archived organization.
 */
export async function archiveSandbox(store: Store, userId: string, id: string): Promise<OrganizationRecord> {
  const forbidden = (why: string) => new AccessAdminError('SANDBOX_ARCHIVE_FORBIDDEN', `This organization cannot be archived: ${why}`, { id });
  const sandbox = isUuid(id) ? await getOrganization(store, id.toLowerCase()) : undefined;
  if (!sandbox) throw forbidden('it is not a sandbox you administer');
  const administers = (await isSiteAdminOf(store, sandbox.id, userId)) || (sandbox.parentOrganizationId !== null && (await isSiteAdminOf(store, sandbox.parentOrganizationId, userId)));
  if (!administers || sandbox.type !== 'SANDBOX') throw forbidden('it is not a sandbox you administer');
  if (sandbox.archived) throw forbidden('it is already archived');
  const at = nowIso();
  await transactWrite(
    store,
    sandboxArchiveItems(sandbox, at, () => forbidden('it is already archived')),
  );
  return { ...sandbox, archived: true, archivedAt: at };
}

/** organization.discoverByDomain: the organization that verified the domain of the caller's verified address. */
export async function discoverByDomain(store: Store, userId: string): Promise<OrganizationRecord | null> {
  const user = await getUser(store, userId);
  if (!user || !user.emailVerified || user.archived) return null;
  const domain = user.primaryEmail.split('@')[1];
  const verified = domain ? await getVerifiedDomain(store, domain) : undefined;
  const organization = verified ? await getOrganization(store, verified.organizationId) : undefined;
  return organization && !organization.archived && organization.domains.includes(verified!.domain) ? organization : null;
}

/** The sandboxes of an organization (archived ones included), for its administrators. */
export function sandboxesOf(store: Store, organization: OrganizationRecord): Promise<OrganizationRecord[]> {
  return listSandboxes(store, organization.id);
}

export async function requireOrganization(store: Store, id: string): Promise<OrganizationRecord> {
  const organization = isUuid(id) ? await getOrganization(store, id.toLowerCase()) : undefined;
  if (!organization) throw new NotFoundError('Organization', id);
  return organization;
}

/** An organization by id, for resolvers of fields that name one (null: gone). */
export async function findOrganization(store: Store, organizationId: string): Promise<OrganizationRecord | null> {
  return (await getOrganization(store, organizationId)) ?? null;
}
