import { errorCodeOf, isDenial } from '../audit/operations.js';
import type { IssuedSession } from '../people/sessions.js';
import { sha256 } from '../people/sessions.js';
import { getSession } from '../store/account.js';
import { currentAuditSource, finishAuditOperation, type AuditOperation } from '../store/audit.js';
import type { Store } from '../store/client.js';
import { findUserIdByEmail } from '../store/user.js';

/**
 * The account routes' audit entries (signup, verify, sign-in, password reset, sign-out, SAML sign-in): one
 * per request whose person is known, `account.<route>`, in the organization's chain when a SAML sign-in
 * names one, else the person's own. The person is the one the route signed in, or the one its email or
 * session names; an address nobody holds gets an entry in a chain named by the address's SHA-256 (so both
 * cost the same); a request that names nothing (a bad token, no address) is left to the request log. Entries carry no body value: never a password, token, cookie or address.
 * Written after the route (on their own, not in its transaction): the person is often known only then.
 */
export async function auditedAccountRoute<T>(store: Store, route: string, hints: { body?: unknown; sessionCookie?: string | undefined }, run: () => Promise<T>): Promise<T> {
  // Who the request names, read before it runs (a sign-out deletes the session that names its person).
  const email = (hints.body as { email?: unknown } | undefined)?.email;
  const named = await personNamed(store, typeof email === 'string' ? email : undefined, hints.sessionCookie).catch(() => undefined);
  // An address nobody holds still gets its entry, in a chain of its own named by the address's hash: the
  // attempt is worth keeping, and a known and an unknown address cost the same (no enumeration by timing).
  const unknownAddress = typeof email === 'string' && email.length <= 320 ? `address:${sha256(email.trim().toLowerCase())}` : undefined;
  const entry = (userId: string | undefined, organizationId: string | null): AuditOperation | undefined => {
    if (userId) return { ...currentAuditSource(), organizationId, actor: { type: 'user', id: userId, userId }, operation: `account.${route}`, targets: [userId], summary: '' };
    if (unknownAddress)
      return { ...currentAuditSource(), organizationId: null, actor: { type: 'anonymous', id: unknownAddress }, operation: `account.${route}`, targets: [], summary: 'no account holds the address' };
    return undefined;
  };
  let result: T;
  try {
    result = await run();
  } catch (error) {
    const operation = entry(named, null);
    if (operation) await finishAuditOperation(store, operation, { error, denied: isDenial(error), errorCode: errorCodeOf(error) });
    throw error;
  }
  const session = sessionOf(result);
  const operation = entry(session?.record.userId ?? named, session?.record.organizationId ?? null);
  if (operation) await finishAuditOperation(store, operation, {});
  return result;
}

/** The session a route opened: the result itself (SAML) or the route's `session` (the account routes). */
function sessionOf(result: unknown): IssuedSession | undefined {
  const inner = (result as { session?: unknown } | undefined)?.session;
  if (inner && typeof inner === 'object') return sessionOf(inner);
  const candidate = result as { record?: { userId?: unknown } } | undefined;
  return candidate && typeof candidate === 'object' && candidate.record && typeof candidate.record.userId === 'string' ? (result as IssuedSession) : undefined;
}

async function personNamed(store: Store, email: string | undefined, sessionCookie: string | undefined): Promise<string | undefined> {
  if (sessionCookie && sessionCookie.length <= 128) return (await getSession(store, sha256(sessionCookie)))?.userId;
  if (email && email.length <= 320) return findUserIdByEmail(store, email.trim().toLowerCase());
  return undefined;
}
