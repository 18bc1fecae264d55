import { hashSecret, scopeOfSecret } from './apiKeySecrets.js';
import { checkSession } from '../people/sessions.js';
import { BadRequestError, CsrfTokenError, UnauthenticatedError } from '../errors.js';
import { getIdentity } from '../store/account.js';
import { enabledSamlConfiguration, getOrganization } from '../store/organization.js';
import type { BearerVerifier } from './bearer.js';
import { apiKeySecretKey, apiKeySecretRecord } from '../store/apiKey.js';
import type { Store } from '../store/client.js';
import { batchGetItems, isStorableKey, keyString, parseItem, type Key } from '../store/items.js';
import { authenticate, type Caller } from './caller.js';
import { apiKeyContextKeys, RequestAccess, type ContextHeaders } from './requestAccess.js';

/** What a request presents: its credential and its context headers, as sent. */
export interface PresentedRequest {
  apiKey?: string | undefined;
  authorization?: string | undefined;
  /** The value of the session cookie, and the x-csrf-token header that must come with it. */
  sessionCookie?: string | undefined;
  csrfToken?: string | undefined;
  organization?: string | undefined;
  library?: string | undefined;
  /**
   * Items of the caller's library the operation will read, to read ahead in the context's own round trip
   * (an API key names its library before anything is read). Handed out only once the context holds
   * (RequestAccess.readAhead); at most maxReadAhead.
   */
  readAhead?: ((library: { organizationId: string; libraryId: string }) => Key[]) | undefined;
}

/** Items read ahead with one request's context, at most (the context's own keys are six or fewer). */
export const maxReadAhead = 25;

export interface RequestContext {
  caller: Caller;
  access: RequestAccess;
}

/** A UUID is 36 characters and `@org_slug/library_slug` at most 130: longer context headers are malformed. */
export const maxContextHeaderLength = 256;

function checkHeaderLength(name: string, value: string | undefined): void {
  if (value && value.length > maxContextHeaderLength) {
    throw new BadRequestError(`${name} is at most ${maxContextHeaderLength} characters (got ${value.length})`, { header: name });
  }
}

/**
 * Verifies the credential (401 when it is missing or bad) and prepares the caller's access to the
 * organization and library the headers name. The one entry point of the request path: handlers call it
 * before they parse anything else.
 */
export async function resolveRequestContext(store: Store, request: PresentedRequest, now = new Date(), verifyBearer?: BearerVerifier): Promise<RequestContext> {
  checkHeaderLength('x-organization', request.organization);
  checkHeaderLength('x-library', request.library);
  const headers: ContextHeaders = {
    organization: request.organization?.trim() || undefined,
    library: request.library?.trim() || undefined,
  };
  const secret = request.apiKey?.trim();
  const scope = secret ? scopeOfSecret(secret) : undefined;
  if (secret && scope) return resolveApiKeyRequest(store, secret, scope, headers, now, request.readAhead);
  const bearer = !secret ? /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '')?.[1] : undefined;
  if (bearer && verifyBearer) return userRequest(store, await bearerUser(store, bearer, verifyBearer), headers);
  if (!secret && !request.authorization && request.sessionCookie) {
    const session = await checkSession(store, request.sessionCookie, request.csrfToken?.trim() || undefined, now);
    if (!session.ok && session.reason === 'csrf') throw new CsrfTokenError();
    if (!session.ok) throw new UnauthenticatedError('The session has ended or is unknown: sign in again');
    return userRequest(store, session.userId, headers);
  }
  // No credential, a malformed key or a Bearer token without a verifier: authenticate says which 401 it is.
  const caller = await authenticate({ apiKey: secret, authorization: request.authorization });
  return { caller, access: new RequestAccess(store, caller, headers) };
}

function userRequest(store: Store, userId: string, headers: ContextHeaders): RequestContext {
  const caller: Caller = { kind: 'user', userId };
  return { caller, access: new RequestAccess(store, caller, headers) };
}

/** A verified access token of the user pool, mapped to its user through the identity item. */
async function bearerUser(store: Store, token: string, verifyBearer: BearerVerifier): Promise<string> {
  let sub: string;
  let authTime: number;
  try {
    ({ sub, authTime } = await verifyBearer(token));
  } catch {
    throw new UnauthenticatedError('The Bearer token is invalid or expired');
  }
  const identity = await getIdentity(store, sub);
  if (!identity) throw new UnauthenticatedError('The Bearer token belongs to no user of this service');
  if (identity.tokensValidAfter !== undefined && authTime < identity.tokensValidAfter) {
    throw new UnauthenticatedError("The Bearer token comes from a sign-in before the account's password was reset: sign in again");
  }
  // A federated identity signs in only while its organization's SAML configuration is enabled (the pool's
  // refresh tokens outlive a disabled configuration).
  if (identity.organizationId) {
    const organization = await getOrganization(store, identity.organizationId);
    const saml = enabledSamlConfiguration(organization);
    // ... and while it still lists the domain of the address the IdP asserted (a verified domain of the organization).
    if (!saml || saml.providerName !== identity.providerName || !identity.domain || !saml.domains.includes(identity.domain)) {
      throw new UnauthenticatedError('The Bearer token was issued through an identity provider that no longer signs in to this service');
    }
  }
  return identity.userId;
}

/**
 * An API key carries its organization, library and owner ids, so its hash item and everything its
 * context is checked against (organization, membership, library, slug items) come in ONE BatchGetItem,
 * read fresh on every request: a revoked key or a removed membership stops working on the next request.
 */
async function resolveApiKeyRequest(
  store: Store,
  secret: string,
  scope: NonNullable<ReturnType<typeof scopeOfSecret>>,
  headers: ContextHeaders,
  now: Date,
  readAhead: PresentedRequest['readAhead'],
): Promise<RequestContext> {
  const secretKey = apiKeySecretKey(hashSecret(secret));
  let contextKeys: Key[];
  let headersWellFormed = true;
  try {
    contextKeys = Object.values(apiKeyContextKeys(scope, headers)).filter((key) => key !== undefined);
  } catch {
    // A malformed header is reported when an operation needs it (some need none).
    headersWellFormed = false;
    contextKeys = [];
  }
  const contextNames = new Set([secretKey, ...contextKeys].map(keyString));
  const ahead = headersWellFormed && readAhead ? distinctKeys(readAhead(scope).filter((key) => isStorableKey(key) && !contextNames.has(keyString(key)))).slice(0, maxReadAhead) : [];
  const items = await batchGetItems(store, [secretKey, ...contextKeys, ...ahead]);
  const stored = items.get(keyString(secretKey));
  if (!stored) throw new UnauthenticatedError('The API key in x-api-key is unknown or revoked');
  const record = parseItem(apiKeySecretRecord, stored, 'API key secret');
  if (record.organizationId !== scope.organizationId || record.libraryId !== scope.libraryId || record.ownerUserId !== scope.userId) {
    throw new UnauthenticatedError('The API key in x-api-key is unknown or revoked');
  }
  if (record.expiresAtIso && Date.parse(record.expiresAtIso) <= now.getTime()) throw new UnauthenticatedError('The API key in x-api-key has expired');
  const caller: Caller = {
    kind: 'apiKey',
    userId: record.ownerUserId,
    apiKeyId: record.keyId,
    organizationId: record.organizationId,
    libraryId: record.libraryId,
    integrationId: record.integrationId,
    roleId: record.roleId,
  };
  return { caller, access: new RequestAccess(store, caller, headers, headersWellFormed ? items : undefined, new Set(ahead.map(keyString))) };
}

function distinctKeys(keys: Key[]): Key[] {
  return [...new Map(keys.map((key) => [keyString(key), key])).values()];
}
