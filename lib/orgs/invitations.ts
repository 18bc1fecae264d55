import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { EffectiveAccess } from '../access/effective.js';
import { AccessAdminError, InvalidInputError, NotFoundError } from '../errors.js';
import type { Mailer } from '../mail/mailer.js';
import type { Store } from '../store/client.js';
import { failingWith, nowIso, transactWrite } from '../store/items.js';
import { getInvitation, invitationPut, invitationSettle, listInvitationsForEmail, listInvitationsOfOrganization, type InvitationRecord } from '../store/invitation.js';
import { getMembership, membershipRecord, type MembershipRecord } from '../store/membership.js';
import { getOrganization, type OrganizationRecord } from '../store/organization.js';
import { roleHolderUpdates } from '../store/role.js';
import { findUserIdByEmail, getUser, normalizeEmail, type UserRecord } from '../store/user.js';
import { ensureSiteAdminCount, membershipChangeItems } from './members.js';
import { assertHoldsAll, isCustomRoleId, resolveLibraryRoles, resolveRole } from './roles.js';
import { parseInput } from '../input.js';
import { isUuid } from '../model/slugs.js';

export const maxInvitesPerCall = 100;

export const bulkInviteInput = z.object({
  emails: z.array(z.string()).min(1, 'name at least one address').max(maxInvitesPerCall, `at most ${maxInvitesPerCall} addresses per call`),
  organizationId: z.string().nullish(),
  role: z.string().nullish(),
  roleId: z.string().nullish(),
  orgRoleId: z.string().nullish(),
  libraryRoles: z
    .array(z.object({ libraryId: z.string(), roleName: z.string() }))
    .max(200)
    .nullish(),
});

const emailSchema = z.email().max(254);

export interface BulkInviteResult {
  successful: { email: string; invitation: InvitationRecord }[];
  failed: { email: string; code: string; message: string }[];
}

const invitationRoleIds = (invitation: InvitationRecord) => [invitation.roleId, ...Object.values(invitation.libraryRoles)];

/**
 * organization.bulkInvite. The organization role is orgRoleId, or the deprecated roleId, or the deprecated
 * role enum (in that order; legacy names map as the spec says), VIEWER when none is given; libraryRoles name
 * library roles by name. Each address is its own invitation: the result lists those that were sent and
 * those that were refused with a code (INVALID_EMAIL, ALREADY_MEMBER). An address that already has a
 * pending invitation gets its email again, unchanged.
 */
export async function bulkInvite(
  store: Store,
  mailer: Mailer,
  organization: OrganizationRecord,
  actor: EffectiveAccess,
  inviter: { userId: string; name: string },
  appUrl: string,
  rawInput: unknown,
): Promise<BulkInviteResult> {
  const input = parseInput(bulkInviteInput, rawInput);
  if (input.organizationId && input.organizationId.toLowerCase() !== organization.id) {
    throw new InvalidInputError('input.organizationId must be the organization named in x-organization (or be left out)', { field: 'input.organizationId' });
  }
  const roleField = input.orgRoleId ? 'input.orgRoleId' : input.roleId ? 'input.roleId' : 'input.role';
  const role = await resolveRole(store, organization.id, input.orgRoleId ?? input.roleId ?? input.role ?? 'VIEWER', 'ORG', roleField);
  assertHoldsAll(actor.organizationPermissions(), role.permissions);
  const assignments = (input.libraryRoles ?? []).map((assignment) => ({ libraryId: assignment.libraryId, role: assignment.roleName }));
  const libraryRoles = await resolveLibraryRoles(store, organization.id, actor, assignments, 'roleName');

  const result: BulkInviteResult = { successful: [], failed: [] };
  const pending = (await listInvitationsOfOrganization(store, organization.id)).filter((inv) => inv.status === 'PENDING');
  for (const raw of new Set(input.emails.map((email) => email.trim()))) {
    if (!emailSchema.safeParse(raw).success) {
      result.failed.push({ email: raw, code: 'INVALID_EMAIL', message: `"${raw}" is not an email address` });
      continue;
    }
    const email = normalizeEmail(raw);
    const existingUserId = await findUserIdByEmail(store, email);
    if (existingUserId && (await getMembership(store, organization.id, existingUserId))) {
      result.failed.push({ email, code: 'ALREADY_MEMBER', message: `${email} is already a member of this organization` });
      continue;
    }
    let invitation = pending.find((inv) => inv.email === email);
    if (!invitation) {
      invitation = {
        id: randomUUID(),
        organizationId: organization.id,
        email,
        roleId: role.id,
        libraryRoles,
        invitedById: inviter.userId,
        status: 'PENDING',
        createdAt: nowIso(),
        respondedAt: null,
        acceptedByUserId: null,
      };
      const roleDeleted = () => new InvalidInputError('A role named in this invitation was deleted meanwhile', { field: roleField });
      await transactWrite(store, [invitationPut(invitation), ...roleHolderUpdates(organization.id, [], invitationRoleIds(invitation), isCustomRoleId)], {
        otherwise: roleDeleted,
        onConflict: roleDeleted,
      });
    }
    await mailer.send(invitationMail(invitation, organization, inviter.name, role.name, appUrl));
    result.successful.push({ email, invitation });
  }
  return result;
}

function invitationMail(invitation: InvitationRecord, organization: OrganizationRecord, inviterName: string, roleName: string, appUrl: string) {
  const link = `${appUrl.replace(/\/+$/, '')}/invitations/${invitation.id}`;
  const text = [
    `${inviterName} invited you to join ${organization.name} as ${roleName}.`,
    '',
    `Accept: ${link}`,
    '',
    `Sign in or sign up with this address (${invitation.email}); once it is verified the invitation is yours to accept.`,
    `Invitation id: ${invitation.id}`,
    'If you did not expect this, ignore this email or decline the invitation.',
  ].join('\n');
  const escape = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const html = `<p>${escape(inviterName)} invited you to join <strong>${escape(organization.name)}</strong> as ${escape(roleName)}.</p><p><a href="${escape(link)}">Accept the invitation</a></p><p>Sign in or sign up with ${escape(invitation.email)}. Invitation id: ${invitation.id}</p>`;
  return { to: [invitation.email], subject: `${inviterName} invited you to ${organization.name}`, text, html };
}

/** The verified addresses of a user (an unverified address can have no invitation applied). */
function verifiedAddresses(user: UserRecord | undefined): string[] {
  if (!user || !user.emailVerified || user.archived) return [];
  return [...new Set([user.primaryEmail, ...user.emails].map(normalizeEmail))];
}

/** Pending invitations addressed to the user's verified addresses, in every organization. */
export async function invitationsForUser(store: Store, userId: string): Promise<InvitationRecord[]> {
  const user = await getUser(store, userId);
  const lists = await Promise.all(verifiedAddresses(user).map((email) => listInvitationsForEmail(store, email)));
  return lists
    .flat()
    .filter((inv) => inv.status === 'PENDING')
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export const invitationFilter = z.object({ status: z.enum(['PENDING', 'ACCEPTED', 'DECLINED']).nullish(), email: z.string().nullish() });

export async function invitationsOfOrganization(store: Store, organizationId: string, rawFilter: unknown): Promise<InvitationRecord[]> {
  const filter = invitationFilter.parse(rawFilter ?? {});
  const all = await listInvitationsOfOrganization(store, organizationId);
  return all
    .filter((inv) => !filter.status || inv.status === filter.status)
    .filter((inv) => !filter.email || inv.email === normalizeEmail(filter.email))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** The invitation with this id addressed to the user, in any organization. */
async function invitationAddressedTo(store: Store, userId: string, id: string): Promise<{ invitation: InvitationRecord | undefined; user: UserRecord | undefined }> {
  const user = await getUser(store, userId);
  if (!isUuid(id)) return { invitation: undefined, user };
  for (const email of verifiedAddresses(user)) {
    const found = (await listInvitationsForEmail(store, email)).find((inv) => inv.id === id.toLowerCase());
    if (found) return { invitation: found, user };
  }
  return { invitation: undefined, user };
}

/**
 * Accepts an invitation for a user whose verified address it names (case-insensitively): the user joins
 * with its roles, or, already a member, keeps their roles and gains its library roles where they have none.
 * One transaction settles the invitation and writes the membership. An invitation to another address is
 * refused (INVITATION_NOT_FOR_YOU) and stays open.
 */
export async function acceptInvitation(store: Store, userId: string, id: string): Promise<MembershipRecord> {
  const { invitation, user } = await invitationAddressedTo(store, userId, id);
  if (!invitation) {
    throw new AccessAdminError('INVITATION_NOT_FOR_YOU', 'No invitation with this id is addressed to your verified address; an invitation can only be accepted by the address it was sent to', { id });
  }
  return consume(store, user!, invitation);
}

async function consume(store: Store, user: UserRecord, invitation: InvitationRecord): Promise<MembershipRecord> {
  if (invitation.status !== 'PENDING') throw new AccessAdminError('INVITATION_NOT_PENDING', `This invitation was already ${invitation.status.toLowerCase()}`, { id: invitation.id });
  const organization = await getOrganization(store, invitation.organizationId);
  if (!organization || organization.archived) throw new NotFoundError('Organization', invitation.organizationId);
  await ensureSiteAdminCount(store, organization);
  const before = await getMembership(store, organization.id, user.id, true);
  const at = nowIso();
  const after: MembershipRecord = before
    ? { ...before, libraryRoles: { ...invitation.libraryRoles, ...before.libraryRoles } }
    : membershipRecord.parse({ organizationId: organization.id, userId: user.id, role: invitation.roleId, libraryRoles: invitation.libraryRoles, createdAt: at });
  const { items } = membershipChangeItems(before, after, invitationRoleIds(invitation));
  await transactWrite(store, [invitationSettle(invitation, 'ACCEPTED', at, user.id), ...items]);
  return { ...after, rev: (before?.rev ?? -1) + 1 };
}

/**
 * The seam for joining (signup verification, an operator creating the user): every pending invitation to
 * the user's verified address is consumed, or only `onlyOrganizationId`'s (a SAML sign-in of an address that
 * was verified before: the person joins the organization they signed in to, and nothing else). Returns the
 * organizations joined.
 */
export async function admitByInvitations(store: Store, userId: string, onlyOrganizationId?: string): Promise<string[]> {
  const user = await getUser(store, userId);
  if (!user) return [];
  const joined: string[] = [];
  for (const invitation of await invitationsForUser(store, userId)) {
    if (onlyOrganizationId !== undefined && invitation.organizationId !== onlyOrganizationId) continue;
    try {
      await consume(store, user, invitation);
      joined.push(invitation.organizationId);
    } catch (error) {
      if (!(error instanceof AccessAdminError) && !(error instanceof NotFoundError)) throw error;
    }
  }
  return joined;
}

/**
 * organization.declineInvitation: the invitee declines an invitation addressed to their verified address;
 * an administrator of the organization (organization.users.invite) revokes one. Either way it is settled
 * DECLINED and can no longer be accepted.
 */
export async function declineInvitation(store: Store, userId: string, id: string, asAdministrator: () => Promise<OrganizationRecord | undefined>): Promise<boolean> {
  let { invitation } = await invitationAddressedTo(store, userId, id);
  if (!invitation) {
    const organization = isUuid(id) ? await asAdministrator() : undefined;
    invitation = organization ? await getInvitation(store, organization.id, id.toLowerCase()) : undefined;
  }
  if (!invitation) throw new NotFoundError('Invitation', id);
  if (invitation.status !== 'PENDING') throw new AccessAdminError('INVITATION_NOT_PENDING', `This invitation was already ${invitation.status.toLowerCase()}`, { id });
  const settled = () => new AccessAdminError('INVITATION_NOT_PENDING', 'This invitation was settled meanwhile', { id });
  await transactWrite(
    store,
    [failingWith(invitationSettle(invitation, 'DECLINED', nowIso(), null), settled), ...roleHolderUpdates(invitation.organizationId, invitationRoleIds(invitation), [], isCustomRoleId)],
    { otherwise: settled, onConflict: settled },
  );
  return true;
}
