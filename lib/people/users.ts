import { randomUUID } from 'node:crypto';
import { nowIso } from '../store/items.js';
import type { Store } from '../store/client.js';
import { membersOrFormerMembers } from '../store/membership.js';
import { batchGetRecords } from '../store/items.js';
import { getUser, normalizeEmail, userKey, userRecord, type UserRecord } from '../store/user.js';

/** A display name derived from an address when none is given: "ada.lovelace@x" -> "Ada Lovelace". */
export function nameFromEmail(email: string): string {
  const local = email.split('@')[0] ?? email;
  const words = local.split(/[._+-]+/).filter(Boolean);
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ') || local;
}

export function newUserRecord(input: { email: string; name?: string; emailVerified: boolean }, at = nowIso()): UserRecord {
  const email = normalizeEmail(input.email);
  const name = input.name?.trim() || nameFromEmail(email);
  const [firstName, ...rest] = name.split(/\s+/);
  return {
    id: randomUUID(),
    name,
    firstName: firstName ?? null,
    lastName: rest.length > 0 ? rest.join(' ') : null,
    primaryEmail: email,
    emails: [email],
    emailVerified: input.emailVerified,
    archived: false,
    createdAt: at,
  };
}

/**
 * The address the service may mail a user at: their primary address once verified, never an archived
 * account's. An account holding an address it never verified (an identity provider's SCIM user at an
 * address outside its organization's domains, a signup not yet confirmed) gets no mail: the address may be
 * another organization's person's, who never agreed to hear from this one. The verification and reset mails
 * of the account routes are the exception, being how an address is proved.
 */
export function mailAddressOf(user: Pick<UserRecord, 'primaryEmail' | 'emailVerified' | 'archived'> | null | undefined): string | undefined {
  return user && user.emailVerified && !user.archived ? user.primaryEmail : undefined;
}

/** A user by id, or null: users are global (one person, many organizations). */
export async function findUser(store: Store, userId: string): Promise<UserRecord | null> {
  return (await getUser(store, userId)) ?? null;
}

/**
 * The users a reference in an organization's data may name (createdBy, updatedBy, history, BOM snapshots,
 * configuration authors): those who are or were members of that organization. Any other id (a library
 * import from before import mapped its authors, or a forged reference) resolves to nobody: another
 * tenant's people are never shown. Two BatchGetItems for every id asked (users; memberships and former-member marks).
 */
export async function usersOfOrganization(store: Store, organizationId: string, userIds: readonly string[]): Promise<Map<string, UserRecord>> {
  const [members, users] = await Promise.all([membersOrFormerMembers(store, organizationId, userIds), batchGetRecords(store, userIds, userKey, userRecord, 'user')]);
  return new Map([...users].filter(([id]) => members.has(id)));
}
