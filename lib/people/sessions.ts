import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { nowIso } from '../store/items.js';
import { getSession, sessionDelete, sessionPut, type SessionRecord } from '../store/account.js';
import type { Store } from '../store/client.js';

/** The session cookie of the spec. __Host- pins it to the exact host, Secure, Path=/ and no Domain. */
export const sessionCookieName = '__Host-service_session';
/** A session lasts 7 days from sign-in (or verification); signing out ends it at once. */
export const sessionLifetimeMs = 7 * 24 * 3600 * 1000;

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

export interface IssuedSession {
  /** The cookie's value; only its hash is stored. */
  cookieValue: string;
  /** Sent back in x-csrf-token with every request the cookie authenticates; only its hash is stored. */
  csrfToken: string;
  hash: string;
  record: SessionRecord;
}

/**
 * A new session for a user: the items to put (in the caller's transaction) and what to hand the browser.
 * `organizationId`: the organization whose SAML sign-in opens it (its SCIM deprovisioning ends it).
 */
export function newSession(userId: string, at = nowIso(), organizationId?: string): IssuedSession {
  const cookieValue = newSecret();
  const csrfToken = newSecret();
  return {
    cookieValue,
    csrfToken,
    hash: sha256(cookieValue),
    record: {
      userId,
      csrfHash: sha256(csrfToken),
      createdAt: at,
      expiresAtIso: new Date(Date.parse(at) + sessionLifetimeMs).toISOString(),
      ...(organizationId ? { organizationId } : {}),
    },
  };
}

export const sessionPutItem = (session: IssuedSession) => sessionPut(session.hash, session.record);
export const sessionDeleteItem = (cookieValue: string) => sessionDelete(sha256(cookieValue));

/** Set-Cookie for a session (Secure, HttpOnly, SameSite=Lax, Path=/), or one that clears it. */
export function sessionCookie(session: IssuedSession | null): string {
  if (!session) return `${sessionCookieName}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
  return `${sessionCookieName}=${session.cookieValue}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(sessionLifetimeMs / 1000)}`;
}

/** A cookie's value from a Cookie header. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=') || undefined;
  }
  return undefined;
}

export type SessionCheck = { ok: true; userId: string } | { ok: false; reason: 'unknown' | 'csrf' };

/** Looks up a session cookie and checks the CSRF token sent with it (constant-time compare of the hashes). */
export async function checkSession(store: Store, cookieValue: string, csrfToken: string | undefined, now = new Date()): Promise<SessionCheck> {
  const session = cookieValue.length <= 128 ? await getSession(store, sha256(cookieValue)) : undefined;
  if (!session || Date.parse(session.expiresAtIso) <= now.getTime()) return { ok: false, reason: 'unknown' };
  const expected = Buffer.from(session.csrfHash, 'hex');
  const given = Buffer.from(sha256(csrfToken ?? ''), 'hex');
  if (!csrfToken || !timingSafeEqual(expected, given)) return { ok: false, reason: 'csrf' };
  return { ok: true, userId: session.userId };
}
