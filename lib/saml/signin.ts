import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { AccountError } from '../accounts/errors.js';
import { deleteSessions, identityTokensRevoke, listSessionHashesOfUser } from '../store/account.js';
import { listAllowlistForEntry } from '../store/allowlist.js';
import type { Store } from '../store/client.js';
import { getVerifiedDomain } from '../store/domain.js';
import { listInvitationsForEmail } from '../store/invitation.js';
import { failingWith, nowIso, transactWrite } from '../store/items.js';
import { federatedIdentityPut } from '../store/account.js';
import { getMembership } from '../store/membership.js';
import { enabledSamlConfiguration, findOrganizationIdBySlug, getOrganization, type OrganizationRecord } from '../store/organization.js';
import { getSamlState, samlStatePut, spendSamlState } from '../store/samlSignin.js';
import { getScimUser } from '../store/scim.js';
import { findUserIdByEmail, getUser, normalizeEmail, userEmailVerifiedUpdate, userPuts, type UserRecord } from '../store/user.js';
import type { Federation } from './federation.js';
import type { IdentityProvider } from '../accounts/identities.js';
import { admitTo, afterVerified } from '../accounts/service.js';
import { newSession, sessionPutItem, sha256, type IssuedSession } from '../people/sessions.js';
import { newUserRecord } from '../people/users.js';

/**
 * SAML single sign-on, federated through the user pool (schema/README.md: Single sign-on). The start route finds the
 * organization whose enabled SAML configuration covers the address's domain (or names it by slug) and sends
 * the browser to the pool's /oauth2/authorize with identity_provider, PKCE (S256) and a state that is
 * stored hashed, bound to the browser by a cookie, valid 10 minutes and spent once. The callback spends the
 * state, exchanges the code, verifies the ID token and its `identities` claim, admits the person and opens
 * the same session as /auth/signin.
 */
export const samlStateCookieName = '__Host-saml_state';
export const samlStateLifetimeMs = 10 * 60 * 1000;

export interface SamlSigninDeps {
  store: Store;
  federation: Federation | undefined;
  identities: IdentityProvider;
}

const notConfigured = () => new AccountError('SSO_NOT_CONFIGURED', 404, 'No organization signs this address (or organization) in with SAML single sign-on');
const stateInvalid = () => new AccountError('SSO_STATE_INVALID', 400, 'The sign-in state is unknown, expired, already used, or was started in another browser: start again');
const assertionRejected = (message: string) => new AccountError('SSO_ASSERTION_REJECTED', 401, message);
const notAdmitted = () =>
  new AccountError('SSO_NOT_ADMITTED', 403, 'The identity provider signed this address in, but the organization has not admitted it (no membership, SCIM provisioning, invitation or allowlist entry)');
const rejected = (message: string) => new AccountError('AUTH_REQUEST_REJECTED', 400, message);

const startQuery = z.union([z.object({ email: z.string().trim().max(254).pipe(z.email()).transform(normalizeEmail) }), z.object({ organization: z.string().trim().min(1).max(100) })]);

const domainOf = (address: string) => address.split('@')[1] ?? '';

/** The organization that verified a domain: the only one whose IdP may sign in its addresses. */
const ownerOfDomain = async (store: Store, domain: string) => (await getVerifiedDomain(store, domain))?.organizationId;

/** The organization an address (by its verified domain) or a slug signs in through. */
async function organizationToSignIn(store: Store, query: z.infer<typeof startQuery>): Promise<OrganizationRecord> {
  let organizationId: string | undefined;
  if ('email' in query) organizationId = await ownerOfDomain(store, domainOf(query.email));
  else organizationId = await findOrganizationIdBySlug(store, query.organization.replace(/^@/, '').toLowerCase());
  const organization = organizationId ? await getOrganization(store, organizationId) : undefined;
  const saml = enabledSamlConfiguration(organization);
  if (!saml || ('email' in query && !saml.domains.includes(domainOf(query.email)))) throw notConfigured();
  return organization!;
}

/** GET /auth/saml/start?email= (or ?organization=<slug>): where to send the browser, and the cookie binding the state to it. */
export async function startSamlSignin(deps: SamlSigninDeps, rawQuery: Record<string, string | undefined>): Promise<{ location: string; stateCookie: string }> {
  if (!deps.federation) throw notConfigured();
  const parsed = startQuery.safeParse(Object.fromEntries(Object.entries(rawQuery).filter(([, value]) => value !== undefined)));
  if (!parsed.success) throw rejected('Give the address to sign in (?email=) or the organization (?organization=<slug>)');
  const organization = await organizationToSignIn(deps.store, parsed.data);
  const state = randomBytes(32).toString('base64url');
  const codeVerifier = randomBytes(32).toString('base64url');
  const browserSecret = randomBytes(32).toString('base64url');
  await transactWrite(deps.store, [
    samlStatePut(sha256(state), {
      organizationId: organization.id,
      providerName: organization.saml!.providerName,
      codeVerifier,
      browserHash: sha256(browserSecret),
      expiresAtIso: new Date(Date.now() + samlStateLifetimeMs).toISOString(),
    }),
  ]);
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  return {
    location: deps.federation.authorizeUrl({ providerName: organization.saml!.providerName, state, codeChallenge }),
    stateCookie: `${samlStateCookieName}=${browserSecret}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${samlStateLifetimeMs / 1000}`,
  };
}

/** Clears the state cookie (sent with every callback answer). */
export const clearedStateCookie = `${samlStateCookieName}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;

/** Cognito writes `identities` as an array of objects (some clients see it as a JSON string). */
function providerNamesOf(identities: unknown): string[] {
  let list = identities;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      return [];
    }
  }
  return Array.isArray(list) ? list.map((entry) => (entry as { providerName?: unknown })?.providerName).filter((name): name is string => typeof name === 'string') : [];
}

/**
 * GET /auth/saml/callback?code&state: the session of the person the organization's IdP signed in. The state
 * is spent first (a replay or another browser's state is SSO_STATE_INVALID whatever else the request says).
 */
export async function completeSamlSignin(deps: SamlSigninDeps, query: Record<string, string | undefined>, browserSecret: string | undefined): Promise<IssuedSession> {
  if (!deps.federation) throw notConfigured();
  const state = query.state;
  if (!state || state.length > 200 || !browserSecret || browserSecret.length > 200) throw stateInvalid();
  const hash = sha256(state);
  const record = await getSamlState(deps.store, hash);
  if (!record || !(await spendSamlState(deps.store, hash, sha256(browserSecret), nowIso()))) throw stateInvalid();
  // The pool redirects with error and error_description when the IdP's response was refused (a bad signature ...).
  if (query.error) throw assertionRejected(`The user pool refused the identity provider's response: ${(query.error_description ?? query.error).slice(0, 300)}`);
  if (!query.code || query.code.length > 2048) throw rejected('code is required');
  const idToken = await deps.federation.exchangeCode(query.code, record.codeVerifier);
  if (!idToken) throw assertionRejected('The user pool did not exchange the code (unknown, used or expired, or another verifier)');
  const claims = await deps.federation.verifyIdToken(idToken).catch(() => {
    throw assertionRejected('The ID token is not one of the user pool for this service');
  });
  if (!providerNamesOf(claims.identities).includes(record.providerName)) throw assertionRejected("The ID token was not issued through the organization's identity provider");
  if (typeof claims.email !== 'string' || !z.email().safeParse(claims.email).success) throw assertionRejected('The identity provider sent no email address (map the email attribute)');
  const address = normalizeEmail(claims.email);
  const organization = await getOrganization(deps.store, record.organizationId);
  const saml = enabledSamlConfiguration(organization);
  if (!saml || saml.providerName !== record.providerName) throw notConfigured();
  const domain = domainOf(address);
  if (!saml.domains.includes(domain) || (await ownerOfDomain(deps.store, domain)) !== organization!.id) throw notAdmitted();
  const userId = await admit(deps, organization!, address);
  const session = newSession(userId, nowIso(), organization!.id);
  // The pool's federated user (its sub) is this account from now on: its Bearer tokens authenticate as it.
  await transactWrite(deps.store, [
    sessionPutItem(session),
    // The sub is a password identity or another provider's: the pool issued it to someone else, so no session.
    failingWith(federatedIdentityPut(claims.sub, userId, { providerName: record.providerName, organizationId: organization!.id, domain }), () =>
      assertionRejected('The ID token names a user of the pool that is not a federated user of this identity provider'),
    ),
  ]);
  return session;
}

/**
 * Who the IdP's assertion lets in; the organization has verified the address's domain (checked by the
 * callback), so the assertion verifies the address (spec: sign-in sources). An account that is a member of the
 * organization, or an active SCIM user of it, signs in. Otherwise the organization must have invited the
 * address or allowlisted it or its domain: the account is made if missing and joins by those rules. Anyone
 * else is SSO_NOT_ADMITTED, and nothing is created.
 */
async function admit(deps: SamlSigninDeps, organization: OrganizationRecord, address: string): Promise<string> {
  const { store } = deps;
  const existingId = await findUserIdByEmail(store, address);
  const existing = existingId ? await getUser(store, existingId) : undefined;
  if (existing?.archived) throw notAdmitted();
  if (existing) {
    const member = (await getMembership(store, organization.id, existing.id)) !== undefined || (await getScimUser(store, organization.id, existing.id))?.active === true;
    if (member) {
      if (!existing.emailVerified) await takeOverUnverified(deps, existing);
      return existing.id;
    }
  }
  // Admission comes with verification (every invitation and allowlist entry, as verify-email): for an address
  // verified before, this sign-in admits to this organization only, by its invitation or allowlist entry.
  if (existing?.emailVerified) {
    await admitTo(deps, existing.id, organization.id);
    if (!(await getMembership(store, organization.id, existing.id))) throw notAdmitted();
    return existing.id;
  }
  if (!(await invitedOrAllowlisted(store, organization.id, address))) throw notAdmitted();
  const userId = existing ? await takeOverUnverified(deps, existing) : await createVerifiedUser(store, address);
  await afterVerified(deps, userId, address);
  if (!(await getMembership(store, organization.id, userId))) throw notAdmitted();
  return userId;
}

async function invitedOrAllowlisted(store: Store, organizationId: string, address: string): Promise<boolean> {
  const invitations = await listInvitationsForEmail(store, address);
  if (invitations.some((invitation) => invitation.organizationId === organizationId && invitation.status === 'PENDING')) return true;
  const entries = [...(await listAllowlistForEntry(store, address)), ...(await listAllowlistForEntry(store, `@${domainOf(address)}`))];
  return entries.some((entry) => entry.organizationId === organizationId);
}

/**
 * An unverified account at an address the organization's IdP has just vouched for: whoever made it did not
 * prove the address, so what they hold ends as a password reset would end it (its sessions, and its password,
 * replaced by an unknown one: the person sets their own with a reset), and the address becomes verified.
 */
async function takeOverUnverified(deps: SamlSigninDeps, user: UserRecord): Promise<string> {
  // The password first (no new sign-in with the old one after this), then every token and session it gave.
  const { sub } = await deps.identities.setPassword(user.primaryEmail, `${randomBytes(24).toString('base64url')}-Aa1!`);
  await transactWrite(deps.store, [userEmailVerifiedUpdate(user.id), identityTokensRevoke(sub, user.id, Math.floor(Date.now() / 1000))]);
  await deleteSessions(deps.store, await listSessionHashesOfUser(deps.store, user.id));
  await deps.identities.markVerified(user.primaryEmail).catch(() => undefined);
  return user.id;
}

class AccountMadeMeanwhileError extends Error {}

async function createVerifiedUser(store: Store, address: string): Promise<string> {
  const user = newUserRecord({ email: address, emailVerified: true });
  try {
    await transactWrite(store, userPuts(user), { otherwise: () => new AccountMadeMeanwhileError(), onConflict: () => new AccountMadeMeanwhileError() });
    return user.id;
  } catch (error) {
    // A concurrent sign-in or signup made the account first: use it.
    const winner = error instanceof AccountMadeMeanwhileError ? await findUserIdByEmail(store, address) : undefined;
    if (!winner) throw error;
    return winner;
  }
}
