import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { AccountError } from './errors.js';
import type { Mailer } from '../mail/mailer.js';
import { admitByAllowlist } from '../orgs/allowlist.js';
import { admitByInvitations } from '../orgs/invitations.js';
import {
  accountTokenPut,
  accountTokenSpend,
  deleteSessions,
  findUserIdByIdentity,
  listSessionHashesOfUser,
  getAccountToken,
  identityPut,
  identityTokensRevoke,
  type AccountTokenRecord,
} from '../store/account.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite } from '../store/items.js';
import { findUserIdByEmail, getUser, normalizeEmail, userKey, userPuts, userTokenSpentUpdate } from '../store/user.js';
import type { IdentityProvider, PoolTokens } from './identities.js';
import { checkPassword, type PasswordPolicy } from './passwordPolicy.js';
import { newSession, sessionDeleteItem, sessionPutItem, sha256, type IssuedSession } from '../people/sessions.js';
import { newUserRecord } from '../people/users.js';

export interface AccountDeps {
  store: Store;
  identities: IdentityProvider;
  mailer: Mailer;
  /** The web application (links in emails point at it), without a trailing slash. */
  appUrl: string;
  policy: PasswordPolicy;
}

/** Emailed tokens are valid one hour and single use (spec: Limits). */
export const accountTokenLifetimeMs = 3600 * 1000;
/** The account routes that could tell whether an address exists take at least this long, whichever way they go. */
export const evenResponseMs = 300;

const rejected = (message: string, details: Record<string, unknown> = {}) => new AccountError('AUTH_REQUEST_REJECTED', 400, message, details);

function parse<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw rejected(`${issue.path.join('.') || 'body'}: ${issue.message}`, { field: issue.path.join('.') });
  }
  return parsed.data;
}

const email = z.string({ error: 'email is required' }).trim().max(254, 'email is at most 254 characters').pipe(z.email('email must be an email address')).transform(normalizeEmail);
const password = z.string({ error: 'password is required' }).min(1, 'password is required').max(1024, 'password is too long');
const token = z.string({ error: 'token is required' }).trim().min(1, 'token is required').max(200, 'token is not a token of this service');

const signupBody = z.object({ email, password, name: z.string().trim().max(200, 'name is at most 200 characters').nullish() });
const credentialsBody = z.object({ email, password });
const verifyBody = z.object({ token });
const resetRequestBody = z.object({ email });
const resetCompleteBody = z.object({ token, password });

function assertPasswordAccepted(policy: PasswordPolicy, value: string, address?: string): void {
  const refusal = checkPassword(policy, value, address);
  if (refusal) throw rejected(refusal.message, { rule: refusal.rule });
}

/** Runs `work` and answers no sooner than evenResponseMs after the start, so timing tells nothing about the address. */
async function evenly<T>(work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    const left = evenResponseMs - (Date.now() - started);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  }
}

function newToken(purpose: AccountTokenRecord['purpose'], userId: string, address: string, at: string) {
  const value = randomBytes(32).toString('base64url');
  const record: AccountTokenRecord = { purpose, userId, email: address, createdAt: at, expiresAtIso: new Date(Date.parse(at) + accountTokenLifetimeMs).toISOString(), usedAt: null };
  return { value, item: accountTokenPut(sha256(value), record) };
}

const link = (deps: AccountDeps, path: string, value: string) => `${deps.appUrl}${path}?token=${encodeURIComponent(value)}`;

function mail(to: string, subject: string, lines: string[], action?: { url: string; label: string }) {
  const escape = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const text = [...lines, ...(action ? ['', `${action.label}: ${action.url}`] : [])].join('\n');
  const html = `${lines.map((line) => `<p>${escape(line)}</p>`).join('')}${action ? `<p><a href="${escape(action.url)}">${escape(action.label)}</a></p>` : ''}`;
  return { to: [to], subject, text, html };
}

/** The one body of a signup, for a new address and an existing one alike. */
export const signupAccepted = { status: 'pending_verification' } as const;

/**
 * POST /auth/signup. A new address gets an identity in the user pool, an unverified user and a verification
 * email; an address that has an account already gets nothing created and a notice offering a password reset.
 * Both answer the same 202 body, in the same time.
 */
export async function signup(deps: AccountDeps, body: unknown): Promise<typeof signupAccepted> {
  const input = parse(signupBody, body);
  assertPasswordAccepted(deps.policy, input.password, input.email);
  return evenly(async () => {
    if (await findUserIdByEmail(deps.store, input.email)) {
      await sendAlreadyRegistered(deps, input.email);
      return signupAccepted;
    }
    const identity = await deps.identities.create(input.email, input.password);
    if (identity === 'exists') {
      // The pool knows the address (a concurrent signup, or an account whose table records are missing).
      await sendAlreadyRegistered(deps, input.email);
      return signupAccepted;
    }
    const at = nowIso();
    const user = newUserRecord({ email: input.email, emailVerified: false, ...(input.name ? { name: input.name } : {}) }, at);
    const verification = newToken('VERIFY_EMAIL', user.id, user.primaryEmail, at);
    try {
      await transactWrite(deps.store, [...userPuts(user), identityPut(identity.sub, user.id), verification.item], {
        otherwise: () => new AddressTakenMeanwhileError(),
        onConflict: () => new AddressTakenMeanwhileError(),
      });
    } catch (error) {
      if (!(error instanceof AddressTakenMeanwhileError)) throw error;
      await sendAlreadyRegistered(deps, input.email);
      return signupAccepted;
    }
    await deps.mailer.send(
      mail(user.primaryEmail, 'Verify your email address', [`Welcome, ${user.name}.`, 'Confirm this address to finish creating your account. The link works once, within one hour.'], {
        url: link(deps, '/verify-email', verification.value),
        label: 'Verify your email address',
      }),
    );
    return signupAccepted;
  });
}

/** A concurrent signup took the address (or the identity) first: the address is already registered. */
class AddressTakenMeanwhileError extends Error {}

async function sendAlreadyRegistered(deps: AccountDeps, address: string): Promise<void> {
  await deps.mailer.send(
    mail(
      address,
      'Someone tried to sign up with your address',
      ['Someone (perhaps you) tried to create an account with this address, which already has one. Nothing was changed.', 'If you have forgotten your password, you can reset it.'],
      { url: `${deps.appUrl}/reset-password`, label: 'Reset your password' },
    ),
  );
}

const tokenInvalid = () => new AccountError('AUTH_TOKEN_INVALID', 400, 'The token is unknown, expired, already used, or not meant for this');

/**
 * Reads an emailed token for one purpose; anything but a live unused token of that purpose is AUTH_TOKEN_INVALID,
 * and so is a token emailed before the account's last completed password reset (which ends every earlier link).
 */
async function liveToken(deps: AccountDeps, value: string, purpose: AccountTokenRecord['purpose']) {
  const hash = sha256(value);
  const record = await getAccountToken(deps.store, hash);
  if (!record || record.purpose !== purpose || record.usedAt !== null || Date.parse(record.expiresAtIso) <= Date.now()) throw tokenInvalid();
  const validAfter = (await getUser(deps.store, record.userId))?.emailedTokensValidAfter;
  if (validAfter !== undefined && record.createdAt <= validAfter) throw tokenInvalid();
  return { hash, record };
}

/**
 * Spends the token, verifies the address and opens a session, in one transaction: of two concurrent uses exactly
 * one wins. A password reset also ends every token emailed before it (userTokenSpentUpdate).
 */
async function spendAndSignIn(deps: AccountDeps, hash: string, record: AccountTokenRecord): Promise<IssuedSession> {
  const at = nowIso();
  const session = newSession(record.userId, at);
  const endEarlier = record.purpose === 'RESET_PASSWORD' ? at : undefined;
  await transactWrite(deps.store, [accountTokenSpend(hash, record.purpose, at), userTokenSpentUpdate(record.userId, record.createdAt, endEarlier), sessionPutItem(session)], {
    otherwise: tokenInvalid,
    onConflict: tokenInvalid,
  });
  return session;
}

/** After an address is verified: the pool learns it, and pending invitations to it are consumed. */
export async function afterVerified(deps: Pick<AccountDeps, 'store' | 'identities'>, userId: string, address: string): Promise<void> {
  await deps.identities.markVerified(address).catch(() => undefined);
  await admitTo(deps, userId);
}

/**
 * A person with a verified address joins the organizations whose invitations or allowlist entries name it;
 * `organizationId`: that one alone (a SAML sign-in to it: other organizations' invitations stay pending until
 * the person accepts them).
 */
export async function admitTo(deps: Pick<AccountDeps, 'store'>, userId: string, organizationId?: string): Promise<void> {
  await admitByInvitations(deps.store, userId, organizationId);
  await admitByAllowlist(deps.store, userId, organizationId);
}

/** POST /auth/verify-email: the emailed token, spent once; the first session. */
export async function verifyEmail(deps: AccountDeps, body: unknown): Promise<IssuedSession> {
  const input = parse(verifyBody, body);
  const { hash, record } = await liveToken(deps, input.token, 'VERIFY_EMAIL');
  const session = await spendAndSignIn(deps, hash, record);
  await afterVerified(deps, record.userId, record.email);
  return session;
}

const invalidCredentials = () => new AccountError('AUTH_INVALID_CREDENTIALS', 401, 'The email address or the password is wrong');

/** The user of an identity the pool has just authenticated; the identity item is made for accounts created before it existed. */
async function userOfIdentity(deps: AccountDeps, sub: string, address: string): Promise<string> {
  const known = await findUserIdByIdentity(deps.store, sub);
  if (known) return known;
  const userId = await findUserIdByEmail(deps.store, address);
  if (!userId) throw invalidCredentials();
  await transactWrite(deps.store, [identityPut(sub, userId)]);
  return userId;
}

async function authenticated(deps: AccountDeps, body: unknown): Promise<{ userId: string; tokens: PoolTokens }> {
  const input = parse(credentialsBody, body);
  return evenly(async () => {
    // The pool is asked for unknown addresses too: a wrong password and an unknown address answer alike.
    const result = await deps.identities.authenticate(input.email, input.password);
    if (!result) throw invalidCredentials();
    const userId = await userOfIdentity(deps, result.sub, input.email);
    const user = await getUser(deps.store, userId);
    if (!user || user.archived) throw invalidCredentials();
    return { userId, tokens: result.tokens };
  });
}

/** POST /auth/signin: email and password; a session (cookie and csrfToken). */
export async function signIn(deps: AccountDeps, body: unknown): Promise<IssuedSession> {
  const { userId } = await authenticated(deps, body);
  const session = newSession(userId);
  await transactWrite(deps.store, [sessionPutItem(session)]);
  return session;
}

/** POST /auth/token: email and password; the user pool's tokens, for Authorization: Bearer (integrators, CLIs). */
export async function issueTokens(deps: AccountDeps, body: unknown): Promise<PoolTokens> {
  return (await authenticated(deps, body)).tokens;
}

/** POST /auth/signout: ends the session of the cookie (idempotent). */
export async function signOut(deps: AccountDeps, cookieValue: string | undefined): Promise<void> {
  if (cookieValue && cookieValue.length <= 128) await transactWrite(deps.store, [sessionDeleteItem(cookieValue)]);
}

export const resetRequested = { status: 'reset_requested' } as const;

/** POST /auth/password-reset/request: a reset link to an address with an account; the same 202 either way. */
export async function requestPasswordReset(deps: AccountDeps, body: unknown): Promise<typeof resetRequested> {
  const input = parse(resetRequestBody, body);
  return evenly(async () => {
    const userId = await findUserIdByEmail(deps.store, input.email);
    const user = userId ? await getUser(deps.store, userId) : undefined;
    if (!user || user.archived) return resetRequested;
    const reset = newToken('RESET_PASSWORD', user.id, user.primaryEmail, nowIso());
    await transactWrite(deps.store, [reset.item]);
    await deps.mailer.send(
      mail(user.primaryEmail, 'Reset your password', ['Someone asked to reset the password of this account. The link works once, within one hour.', 'If it was not you, ignore this email.'], {
        url: link(deps, '/reset-password', reset.value),
        label: 'Choose a new password',
      }),
    );
    return resetRequested;
  });
}

/**
 * POST /auth/password-reset/complete: the emailed token and a new password. Spending the token verifies the
 * address (the email reached its owner) and opens a session; the pool gets the new password.
 */
export async function completePasswordReset(deps: AccountDeps, body: unknown): Promise<IssuedSession> {
  const input = parse(resetCompleteBody, body);
  const { hash, record } = await liveToken(deps, input.token, 'RESET_PASSWORD');
  assertPasswordAccepted(deps.policy, input.password, record.email);
  // Whoever knew the old password is signed out everywhere: the sessions open before the reset end.
  const [earlier, before] = await Promise.all([listSessionHashesOfUser(deps.store, record.userId), getUser(deps.store, record.userId)]);
  const session = await spendAndSignIn(deps, hash, record);
  await deleteSessions(deps.store, earlier);
  const { sub } = await deps.identities.setPassword(record.email, input.password);
  // Bearer tokens of sign-ins before the reset end too (the pool's refresh tokens outlive a new password).
  await transactWrite(deps.store, [identityTokensRevoke(sub, record.userId, Math.floor(Date.now() / 1000))]);
  // Admission (invitations, allowlist) comes with verification: a reset that verifies the address admits as
  // verification does. A reset of an account already verified is no admission: an invitation it has not
  // accepted stays pending (another organization's invitation never makes the person join it unasked).
  if (!before?.emailVerified) await afterVerified(deps, record.userId, record.email);
  return session;
}
