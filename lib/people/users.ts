import { randomUUID } from 'node:crypto';
import { nowIso } from '../store/items.js';
import type { Store } from '../store/client.js';
import { getUser, normalizeEmail, type UserRecord } from '../store/user.js';

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

/** A user by id, or null: users are global (one person, many organizations). */
export async function findUser(store: Store, userId: string): Promise<UserRecord | null> {
  return (await getUser(store, userId)) ?? null;
}
