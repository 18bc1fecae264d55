import { newUserRecord } from '../people/users.js';
import { AccessAdminError, AlreadyExistsError, ConflictError, NotFoundError } from '../errors.js';
import { linkingEmail, type GroupReference, type ScimUserInput } from './users.js';
import type { Store } from '../store/client.js';
import { failingWith, nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { getVerifiedDomain } from '../store/domain.js';
import { getMembership, listMembers } from '../store/membership.js';
import { getTeams, teamMemberRemove } from '../store/team.js';
import type { OrganizationRecord } from '../store/organization.js';
import { getScimUser, scimUserDelete, scimUserNameDelete, scimUserNamePut, scimUserPut, type ScimUserRecord } from '../store/scim.js';
import { findUserIdByEmail, getUser, userNameUpdate, userPuts } from '../store/user.js';
import { ensureSiteAdminCount } from '../orgs/members.js';
import { isScimTeam, scimTeams } from './groupProvisioning.js';
import { endOrganizationSessions, mergeGrants, noGrants, restoreItems, suspendItems } from './grants.js';
import { isUuid } from '../model/slugs.js';

/**
 * SCIM users (lib/scim maps the protocol; this module makes the effects). A SCIM user provisions one
 * account of the service: its id is the account's id. Access comes from teams (SCIM groups), whose roles
 * administrators assign in the service; the SCIM roles attribute is never read.
 *
 * Deactivation (active false, or DELETE; removal from every group is in scimGroups.ts) removes the person's
 * membership of the organization (direct role, library overrides, team memberships) in one transaction,
 * keeping what it held on the SCIM user for reactivation (scimGrants.ts), and ends the sessions and tokens
 * the organization granted (endOrganizationSessions: never another organization's). The account itself is
 * kept, dormant; its password is never touched.
 */

function lastSiteAdmin() {
  return new AccessAdminError('LAST_SITE_ADMIN', 'This user is the last Site Admin of the organization: make someone else Site Admin before deprovisioning them');
}

/** The account a SCIM user was to claim or provision changed meanwhile (tried again without claiming). */
class AccountChangedError extends ConflictError {
  constructor(userName: string) {
    super('User', userName);
  }
}

function userNameTaken(userName: string) {
  return new AlreadyExistsError(`userName "${userName}" is already provisioned in this organization`, { field: 'userName' });
}

export async function requireScimUser(store: Store, organization: OrganizationRecord, id: string): Promise<ScimUserRecord> {
  const user = isUuid(id) ? await getScimUser(store, organization.id, id.toLowerCase(), true) : undefined;
  if (!user) throw new NotFoundError('User', id);
  return user;
}

function displayNameOf(input: Pick<ScimUserInput, 'attributes'>): string | undefined {
  const name = input.attributes.name as { givenName?: string; familyName?: string; formatted?: string } | undefined;
  const display = input.attributes.displayName;
  if (typeof display === 'string' && display.trim()) return display.trim();
  const joined = [name?.givenName, name?.familyName].filter(Boolean).join(' ');
  return joined || name?.formatted || undefined;
}

/** The account's name from the IdP's attributes: displayName (or the joined name), given and family names. */
function accountNameOf(input: Pick<ScimUserInput, 'attributes'>) {
  const display = displayNameOf(input);
  if (!display) return undefined;
  const name = input.attributes.name as { givenName?: unknown; familyName?: unknown } | undefined;
  const part = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
  const [first, ...rest] = display.split(/\s+/);
  return { name: display, firstName: part(name?.givenName) ?? first ?? null, lastName: part(name?.familyName) ?? (rest.length ? rest.join(' ') : null) };
}

/** Whether the organization has verified a domain: listed on it and held by its DOMAIN# item (one organization per domain). */
async function isOwnDomain(store: Store, organization: OrganizationRecord, domain: string | undefined): Promise<boolean> {
  if (!domain || !organization.domains.includes(domain)) return false;
  return (await getVerifiedDomain(store, domain))?.organizationId === organization.id;
}

/**
 * The account a new SCIM user provisions. An organization's identity provider speaks for the people of
 * the organization, not for every address it sends, so an existing account is bound only when the
 * organization has a claim on it: its address is verified and in a domain the organization verified, or it
 * is already a member of the organization (and this organization has not provisioned it yet). Anyone
 * else's account (another organization's Site Admin, say) is never bound, and its id never appears in a
 * response: the SCIM user gets a new account of its own, which belongs to this organization.
 *
 * A new account claims the address (globally unique, verified) only in a domain the organization verified,
 * and only when nobody holds it. Otherwise it is made without the address (EMAIL# is not written): it holds
 * the organization's grants, its primaryEmail shows what the IdP sent, and nobody can sign in to it by
 * that address. So an organization cannot squat the address of someone outside its domains and have that
 * person find, on signing up or resetting a password, an account its IdP renames and deprovisions.
 */
async function accountFor(store: Store, organization: OrganizationRecord, input: ScimUserInput, claim: boolean) {
  const email = linkingEmail(input);
  const domain = email?.split('@')[1];
  const [existingId, ownDomain] = await Promise.all([email ? findUserIdByEmail(store, email) : undefined, isOwnDomain(store, organization, domain)]);
  if (existingId) {
    const [existing, membership, provisioned] = await Promise.all([
      getUser(store, existingId),
      getMembership(store, organization.id, existingId, true),
      getScimUser(store, organization.id, existingId, true),
    ]);
    const claimed = ownDomain || membership !== undefined;
    if (existing?.emailVerified && !existing.archived && claimed && !provisioned) return { userId: existingId, items: [], provisioned: false };
  }
  const name = displayNameOf(input);
  const address = email ?? input.userName;
  const claims = claim && ownDomain && email !== undefined && existingId === undefined;
  const user = newUserRecord({ email: address, ...(name ? { name } : {}), emailVerified: claims });
  const puts = userPuts(claims ? user : { ...user, emails: [] });
  return { userId: user.id, items: claims ? puts : puts.slice(0, 1), provisioned: true };
}

export async function createScimUser(store: Store, organization: OrganizationRecord, input: ScimUserInput): Promise<ScimUserRecord> {
  const active = input.active ?? true;
  for (const claim of [true, false]) {
    const account = await accountFor(store, organization, input, claim);
    const at = nowIso();
    const user: ScimUserRecord = {
      organizationId: organization.id,
      userId: account.userId,
      userName: input.userName,
      externalId: input.externalId,
      active,
      attributes: input.attributes,
      enterprise: input.enterprise,
      suspended: active ? null : noGrants,
      accountProvisioned: account.provisioned,
      createdAt: at,
      updatedAt: at,
      version: 1,
    };
    // The address was claimed meanwhile, or the account was provisioned meanwhile: decide again.
    const accountChanged = () => new AccountChangedError(user.userName);
    try {
      await transactWrite(store, [failingWith(scimUserNamePut(organization.id, user.userName, user.userId), () => userNameTaken(user.userName)), scimUserPut(user), ...account.items], {
        otherwise: accountChanged,
        onConflict: accountChanged,
      });
      return user;
    } catch (error) {
      if (!(error instanceof AccountChangedError) || !claim) throw error;
    }
  }
  throw new Error('unreachable');
}

/**
 * Replaces a SCIM user (PUT, and PATCH after the patch is applied): attributes, userName (unique), and the
 * activation state with its effects, all in one transaction conditioned on the version read.
 */
export async function replaceScimUser(store: Store, organization: OrganizationRecord, before: ScimUserRecord, input: ScimUserInput): Promise<ScimUserRecord> {
  await ensureSiteAdminCount(store, organization);
  const active = input.active ?? before.active;
  const membership = before.active !== active ? await getMembership(store, organization.id, before.userId, true) : undefined;
  const after: ScimUserRecord = {
    ...before,
    userName: input.userName,
    externalId: input.externalId,
    active,
    attributes: input.attributes,
    enterprise: input.enterprise,
    updatedAt: nowIso(),
    version: before.version + 1,
  };
  const items: WriteItem[] = [];
  if (before.active && !active) {
    const suspension = suspendItems(membership, new Set(membership?.teamIds ?? []), lastSiteAdmin);
    after.suspended = before.suspended ? mergeGrants(before.suspended, suspension.suspended) : suspension.suspended;
    items.push(...suspension.items);
  } else if (!before.active && active) {
    after.suspended = null;
    items.push(...(await restoreItems(store, organization, before.userId, before.suspended ?? noGrants, membership)));
  }
  items.unshift(scimUserPut(after));
  // An account this provisioning created follows the IdP's name; an account the person made stays theirs.
  const accountName = before.accountProvisioned ? accountNameOf(after) : undefined;
  if (accountName && JSON.stringify(accountName) !== JSON.stringify(accountNameOf(before))) items.push(userNameUpdate(after.userId, accountName));
  const renamed = before.userName.toLowerCase() !== after.userName.toLowerCase();
  // A taken userName speaks first: its items lead the transaction.
  if (renamed)
    items.unshift(
      scimUserNameDelete(organization.id, before.userName),
      failingWith(scimUserNamePut(organization.id, after.userName, after.userId), () => userNameTaken(after.userName)),
    );
  const changedMeanwhile = () => new ConflictError('User', before.userId);
  await transactWrite(store, items, { otherwise: changedMeanwhile, onConflict: changedMeanwhile });
  if (before.active && !after.active) await endOrganizationSessions(store, organization.id, after.userId);
  return after;
}

/** DELETE /Users/{id}: the person loses every grant in the organization and the SCIM user goes; the account stays, dormant. */
export async function deleteScimUser(store: Store, organization: OrganizationRecord, user: ScimUserRecord): Promise<void> {
  await ensureSiteAdminCount(store, organization);
  const membership = await getMembership(store, organization.id, user.userId, true);
  const { items } = suspendItems(membership, new Set(), lastSiteAdmin);
  // The team member items a deprovisioning held go too.
  const held = (user.suspended?.teamIds ?? []).filter((teamId) => !membership?.teamIds.includes(teamId));
  for (const teamId of held) items.push(teamMemberRemove(organization.id, teamId, user.userId));
  const changedMeanwhile = () => new ConflictError('User', user.userId);
  await transactWrite(store, [scimUserDelete(user), scimUserNameDelete(organization.id, user.userName), ...items], { otherwise: changedMeanwhile, onConflict: changedMeanwhile });
  await endOrganizationSessions(store, organization.id, user.userId);
}

/**
 * The read-only `groups` of SCIM users: the pushed groups (SCIM teams) each one is in as the identity provider
 * sees it, that is its team memberships and those a deactivation holds. One user: its membership and its
 * teams by id (two reads); several: the organization's members and SCIM teams (two queries).
 */
export async function scimGroupsOf(store: Store, organization: OrganizationRecord, users: readonly ScimUserRecord[]): Promise<Map<string, GroupReference[]>> {
  const teamIdsOf = (user: ScimUserRecord, teamIds: readonly string[] | undefined) => new Set([...(teamIds ?? []), ...(user.suspended?.teamIds ?? [])]);
  let memberships: Map<string, { teamIds: string[] }>;
  let teams: Map<string, { id: string; name: string; createdAt: string }>;
  if (users.length === 1) {
    const user = users[0]!;
    const membership = await getMembership(store, organization.id, user.userId, true);
    memberships = new Map(membership ? [[user.userId, membership]] : []);
    const found = await getTeams(store, organization.id, [...teamIdsOf(user, membership?.teamIds)]);
    teams = new Map([...found].filter(([, team]) => isScimTeam(team)));
  } else if (users.length > 1) {
    const [members, pushed] = await Promise.all([listMembers(store, organization.id), scimTeams(store, organization)]);
    memberships = new Map(members.map((membership) => [membership.userId, membership]));
    teams = new Map(pushed.map((team) => [team.id, team]));
  } else {
    return new Map();
  }
  return new Map(
    users.map((user) => {
      const groups = [...teamIdsOf(user, memberships.get(user.userId)?.teamIds)]
        .map((teamId) => teams.get(teamId))
        .filter((team) => team !== undefined)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
        .map((team) => ({ id: team.id, name: team.name }));
      return [user.userId, groups];
    }),
  );
}
