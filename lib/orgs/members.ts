import * as z from 'zod';
import type { EffectiveAccess } from '../access/effective.js';
import type { PermissionName } from '../access/permissions.js';
import { AccessAdminError, ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { Store } from '../store/client.js';
import { failingWith, nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { getLibrary } from '../store/library.js';
import { getMembership, listMembers, membershipDelete, formerMemberPut, membershipPut, membershipRecord, membershipReplace, type MembershipRecord } from '../store/membership.js';
import { getOrganization, initSiteAdminCount, siteAdminCountUpdate, type OrganizationRecord } from '../store/organization.js';
import { roleHolderUpdates } from '../store/role.js';
import { assertHoldsAll, isCustomRoleId, resolveRole } from './roles.js';
import { isUuid } from '../model/slugs.js';

/** The role ids a membership's direct grants name (organization role and library overrides). */
export function directRoleIds(membership: Pick<MembershipRecord, 'role' | 'libraryRoles'> | null | undefined): string[] {
  if (!membership) return [];
  return [membership.role, ...Object.values(membership.libraryRoles)].filter((id): id is string => id !== null);
}

/** A membership with nothing left in it (no direct role, no library override, no team) is removed. */
export function isEmptyMembership(membership: MembershipRecord): boolean {
  return membership.role === null && Object.keys(membership.libraryRoles).length === 0 && membership.teamIds.length === 0;
}

const isSiteAdmin = (membership: MembershipRecord | null | undefined) => membership?.role === 'SITE_ADMIN';

/**
 * The transaction items that move a membership from `before` to `after` (undefined: absent; an empty
 * membership is deleted), with the holder counts of the custom roles it names and the organization's
 * site-admin count kept true: its update failing means the change would remove the last Site Admin
 * (`meanings.lastSiteAdmin` words it). `meanings.membershipChanged` is what a membership changed since it
 * was read means to the caller; without it (and for the role counts) the caller's transaction speaks.
 */
export function membershipChangeItems(
  before: MembershipRecord | undefined,
  after: MembershipRecord | undefined,
  releasedRoleIds: readonly string[] = [],
  meanings: { membershipChanged?: () => Error; lastSiteAdmin?: () => Error } = {},
) {
  const orgId = (after ?? before)!.organizationId;
  const items: WriteItem[] = [];
  const next = after && isEmptyMembership(after) ? undefined : after;
  let membershipItem: WriteItem | undefined;
  if (!before && next) membershipItem = membershipPut(next);
  else if (before && next) membershipItem = membershipReplace({ ...next, rev: before.rev + 1 }, before.rev);
  else if (before && !next) membershipItem = membershipDelete(before);
  if (membershipItem) items.push(meanings.membershipChanged ? failingWith(membershipItem, meanings.membershipChanged) : membershipItem);
  // releasedRoleIds: roles another item of the same transaction stops holding (an invitation being accepted).
  items.push(...roleHolderUpdates(orgId, [...releasedRoleIds, ...directRoleIds(before)], directRoleIds(next), isCustomRoleId));
  const adminChange = Number(isSiteAdmin(next)) - Number(isSiteAdmin(before));
  if (adminChange !== 0) items.push(failingWith(siteAdminCountUpdate(orgId, adminChange), meanings.lastSiteAdmin ?? lastSiteAdmin));
  // Their user references in the organization's data (createdBy, history) keep resolving.
  if (before && !next) items.push(formerMemberPut(orgId, before.userId, nowIso()));
  return { items };
}

const lastSiteAdmin = () => new AccessAdminError('LAST_SITE_ADMIN', 'This is the last Site Admin of the organization: make someone else Site Admin first');

/** A membership changed by someone else since it was read: read again and retry. */
class MembershipChangedError extends ConflictError {
  constructor(userId: string) {
    super('Membership of', userId);
  }
}

/**
 * Organizations created before the site-admin count existed get it once, counted from their members, so
 * that the last-Site-Admin rule can be a condition of every later write.
 */
export async function ensureSiteAdminCount(store: Store, organization: OrganizationRecord): Promise<void> {
  if (organization.siteAdminCount !== undefined) return;
  const members = await listMembers(store, organization.id);
  await initSiteAdminCount(store, organization.id, members.filter((m) => m.role === 'SITE_ADMIN').length);
}

/**
 * Applies `change` to a person's membership in one transaction, re-reading and retrying when someone else
 * changed the same membership meanwhile. `change` returns the new membership (or undefined to remove it).
 */
export async function changeMembership(
  store: Store,
  organization: OrganizationRecord,
  userId: string,
  change: (current: MembershipRecord | undefined) => MembershipRecord | undefined,
): Promise<MembershipRecord | undefined> {
  await ensureSiteAdminCount(store, organization);
  for (let attempt = 0; ; attempt += 1) {
    const before = await getMembership(store, organization.id, userId, true);
    const after = change(before);
    const { items } = membershipChangeItems(before, after, [], { membershipChanged: () => new MembershipChangedError(userId) });
    if (items.length === 0) return before;
    try {
      await transactWrite(store, items, { otherwise: () => new InvalidInputError('A role named in this change was deleted meanwhile', { field: 'roleId' }) });
      return after && !isEmptyMembership(after) ? { ...after, rev: (before?.rev ?? -1) + 1 } : undefined;
    } catch (error) {
      if (error instanceof MembershipChangedError && attempt < 4) continue;
      throw error;
    }
  }
}

function requireMember(membership: MembershipRecord | undefined, userId: string): MembershipRecord {
  if (!membership) throw new AccessAdminError('NOT_A_MEMBER', `User ${userId} is not a member of this organization`, { userId });
  return membership;
}

/** organization.membership.update: sets a member's direct organization role. */
export async function updateMemberRole(store: Store, organization: OrganizationRecord, held: ReadonlySet<PermissionName>, userId: string, roleReference: string) {
  if (!isUuid(userId)) throw new AccessAdminError('NOT_A_MEMBER', `User ${userId} is not a member of this organization`, { userId });
  const role = await resolveRole(store, organization.id, roleReference, 'ORG', 'roleId');
  assertHoldsAll(held, role.permissions);
  const updated = await changeMembership(store, organization, userId.toLowerCase(), (current) => ({ ...requireMember(current, userId), role: role.id }));
  return updated!;
}

export const updateLibraryAccessInput = z.object({
  userId: z.string(),
  libraryId: z.string(),
  /** A library role (id or name); null removes the override, so the organization role applies again. */
  roleId: z.string().nullish(),
});

/** organization.membership.updateLibraryAccess: sets or clears a member's role in one library. */
export async function updateLibraryAccess(store: Store, organization: OrganizationRecord, actor: EffectiveAccess, rawInput: unknown): Promise<boolean> {
  const parsed = updateLibraryAccessInput.safeParse(rawInput);
  if (!parsed.success) throw new InvalidInputError(`input: ${parsed.error.issues[0]!.message}`, { field: 'input' });
  const { userId, libraryId, roleId } = parsed.data;
  const library = isUuid(libraryId) ? await getLibrary(store, organization.id, libraryId.toLowerCase()) : undefined;
  if (!library) throw new NotFoundError('Library', libraryId);
  const role = roleId ? await resolveRole(store, organization.id, roleId, 'LIBRARY', 'input.roleId') : null;
  if (role) assertHoldsAll(new Set([...actor.organizationPermissions(), ...actor.libraryPermissions(library.id)]), role.permissions);
  if (!isUuid(userId)) throw new AccessAdminError('NOT_A_MEMBER', `User ${userId} is not a member of this organization`, { userId });
  await changeMembership(store, organization, userId.toLowerCase(), (current) => {
    const member = requireMember(current, userId);
    const libraryRoles = { ...member.libraryRoles };
    if (role) libraryRoles[library.id] = role.id;
    else delete libraryRoles[library.id];
    return { ...member, libraryRoles };
  });
  return true;
}

/**
 * organization.membership.removeOrgRole: takes away a member's direct organization role. Library overrides
 * and team grants stay; a membership left with nothing is removed. The last Site Admin stays.
 */
export async function removeOrgRole(store: Store, organization: OrganizationRecord, userId: string): Promise<boolean> {
  if (!isUuid(userId)) throw new AccessAdminError('NOT_A_MEMBER', `User ${userId} is not a member of this organization`, { userId });
  await changeMembership(store, organization, userId.toLowerCase(), (current) => ({ ...requireMember(current, userId), role: null }));
  return true;
}

/** Gives a person an organization role and library overrides, joining them if they are not a member. */
export async function grantMembership(store: Store, organizationId: string, userId: string, roleId: string, libraryRoles: Record<string, string> = {}) {
  const organization = await getOrganization(store, organizationId);
  if (!organization) throw new NotFoundError('Organization', organizationId);
  return (await changeMembership(store, organization, userId, (current) =>
    current
      ? { ...current, role: roleId, libraryRoles: { ...current.libraryRoles, ...libraryRoles } }
      : membershipRecord.parse({ organizationId, userId, role: roleId, libraryRoles, createdAt: nowIso() }),
  ))!;
}

export { listMembers };
