import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { parseIdpMetadata } from '../../lib/saml/metadata.js';

/**
 * The local stand-in for the user pool's federation (cognito-local has no hosted domain, no /oauth2
 * endpoints and no identity providers). Mounted on the local server at /_local/pool, it plays the pool's
 * part faithfully enough for our code to run as in production:
 *
 * - the identity-provider and app-client API our code calls (CreateIdentityProvider, UpdateIdentityProvider,
 *   DescribeIdentityProvider, DeleteIdentityProvider, ListUserPoolClients, DescribeUserPoolClient, UpdateUserPoolClient; AWS JSON 1.1, as the SDK sends
 *   it), so that a test can also reset the client's provider list as a deployment does;
 * - GET /oauth2/authorize: checks the federated client, its callback URLs and supported providers and the
 *   PKCE challenge, then redirects to the provider's SSO URL with a SAML AuthnRequest (HTTP-Redirect);
 * - POST /saml2/idpresponse (the ACS URL): verifies the SAMLResponse with @node-saml/node-saml against the
 *   certificate of the registered metadata (signed assertion, audience urn:amazon:cognito:sp:<poolId>,
 *   InResponseTo of a request it sent, issuer, validity), then redirects to the callback with a code, or
 *   with error=server_error as Cognito does;
 * - POST /oauth2/token: the code (single use, 5 minutes) and the PKCE verifier for an ID token signed
 *   RS256 with a key made at start, whose JWKS it serves at /.well-known/jwks.json.
 *
 * Not emulated: IdP-initiated sign-in, sign-out, refresh tokens, encrypted assertions, the pool's user
 * directory for federated users, and persistence (providers are registered anew after a restart).
 */
export interface FederationStandIn {
  /** The pool's "domain" and token issuer: `${baseUrl}/_local/pool`. */
  readonly url: string;
  readonly clientId: string;
  /** Serves a request under /_local/pool. */
  handle(request: IncomingMessage, response: ServerResponse, url: URL, body: Buffer): Promise<void>;
}

const emailAttribute = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';
const codeLifetimeMs = 5 * 60 * 1000;
const pendingLifetimeMs = 10 * 60 * 1000;
/** Bounds of the in-memory maps, so that a stray loop cannot grow them without end. */
const maxPending = 10_000;

interface Provider {
  name: string;
  metadataXml: string;
  attributeMapping: Record<string, string>;
  identifiers: string[];
  saml: SAML;
}

interface AppClient {
  ClientId: string;
  ClientName: string;
  UserPoolId: string;
  CallbackURLs: string[];
  AllowedOAuthFlows: string[];
  AllowedOAuthScopes: string[];
  AllowedOAuthFlowsUserPoolClient: boolean;
  SupportedIdentityProviders: string[];
  [setting: string]: unknown;
}

interface Pending {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  providerName: string;
  expires: number;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  claims: Record<string, unknown>;
  expires: number;
}

class AwsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const pemOf = (base64Der: string) => `-----BEGIN CERTIFICATE-----\n${base64Der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;
const b64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(302, { location, 'cache-control': 'no-store' }).end();
}

export function createFederationStandIn(options: { baseUrl: string; userPoolId: string; callbackUrl: string }): FederationStandIn {
  const url = `${options.baseUrl}/_local/pool`;
  const spEntityId = `urn:amazon:cognito:sp:${options.userPoolId}`;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const providers = new Map<string, Provider>();
  const pending = new Map<string, Pending>();
  const codes = new Map<string, IssuedCode>();
  const client: AppClient = {
    ClientId: `local${randomBytes(10).toString('hex')}`,
    ClientName: 'plm-local-federated',
    UserPoolId: options.userPoolId,
    CallbackURLs: [options.callbackUrl],
    AllowedOAuthFlows: ['code'],
    AllowedOAuthScopes: ['openid', 'email', 'profile'],
    AllowedOAuthFlowsUserPoolClient: true,
    SupportedIdentityProviders: [],
  };

  function provider(input: Record<string, unknown>): Provider {
    const name = String(input.ProviderName ?? '');
    const metadataXml = String((input.ProviderDetails as Record<string, unknown> | undefined)?.MetadataFile ?? '');
    let metadata;
    try {
      metadata = parseIdpMetadata(metadataXml);
    } catch (error) {
      throw new AwsError('InvalidParameterException', (error as Error).message);
    }
    const identifiers = ((input.IdpIdentifiers as string[] | undefined) ?? []).map((identifier) => identifier.toLowerCase());
    for (const [other, registered] of providers) {
      const shared = identifiers.find((identifier) => registered.identifiers.includes(identifier));
      if (other !== name && shared) throw new AwsError('InvalidParameterException', `Identifier ${shared} is used by another identity provider`);
    }
    return {
      name,
      metadataXml,
      attributeMapping: (input.AttributeMapping as Record<string, string> | undefined) ?? {},
      identifiers,
      saml: new SAML({
        entryPoint: metadata.ssoUrl,
        issuer: spEntityId,
        callbackUrl: `${url}/saml2/idpresponse`,
        idpCert: pemOf(metadata.certificate),
        idpIssuer: metadata.entityId,
        audience: spEntityId,
        wantAssertionsSigned: true,
        wantAuthnResponseSigned: false,
        validateInResponseTo: ValidateInResponseTo.always,
        requestIdExpirationPeriodMs: pendingLifetimeMs,
        acceptedClockSkewMs: 60_000,
        identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      }),
    };
  }

  const describeProvider = (p: Provider) => ({
    UserPoolId: options.userPoolId,
    ProviderName: p.name,
    ProviderType: 'SAML',
    ProviderDetails: { MetadataFile: p.metadataXml },
    AttributeMapping: p.attributeMapping,
    IdpIdentifiers: p.identifiers,
  });

  const operations: Record<string, (input: Record<string, unknown>) => unknown> = {
    CreateIdentityProvider: (input) => {
      if (providers.has(String(input.ProviderName))) throw new AwsError('DuplicateProviderException', `A provider with the name ${String(input.ProviderName)} already exists in this pool`);
      const created = provider(input);
      providers.set(created.name, created);
      return { IdentityProvider: describeProvider(created) };
    },
    UpdateIdentityProvider: (input) => {
      if (!providers.has(String(input.ProviderName))) throw new AwsError('ResourceNotFoundException', 'No such identity provider');
      const updated = provider(input);
      providers.set(updated.name, updated);
      return { IdentityProvider: describeProvider(updated) };
    },
    DeleteIdentityProvider: (input) => {
      if (!providers.delete(String(input.ProviderName))) throw new AwsError('ResourceNotFoundException', 'No such identity provider');
      client.SupportedIdentityProviders = client.SupportedIdentityProviders.filter((name) => name !== input.ProviderName);
      return {};
    },
    DescribeIdentityProvider: (input) => {
      const registered = providers.get(String(input.ProviderName));
      if (!registered) throw new AwsError('ResourceNotFoundException', 'No such identity provider');
      return { IdentityProvider: describeProvider(registered) };
    },
    ListUserPoolClients: () => ({ UserPoolClients: [{ ClientId: client.ClientId, ClientName: client.ClientName, UserPoolId: client.UserPoolId }] }),
    DescribeUserPoolClient: (input) => {
      if (input.ClientId !== client.ClientId) throw new AwsError('ResourceNotFoundException', 'No such app client (the stand-in knows the federated client only)');
      return { UserPoolClient: client };
    },
    UpdateUserPoolClient: (input) => {
      if (input.ClientId !== client.ClientId) throw new AwsError('ResourceNotFoundException', 'No such app client (the stand-in knows the federated client only)');
      const unknown = ((input.SupportedIdentityProviders as string[] | undefined) ?? []).find((name) => name !== 'COGNITO' && !providers.has(name));
      if (unknown) throw new AwsError('InvalidParameterException', `The provider ${unknown} does not exist for this user pool`);
      // As Cognito: what the update omits goes back to its default.
      for (const key of Object.keys(client)) if (!['ClientId', 'UserPoolId'].includes(key)) delete client[key];
      Object.assign(client, { CallbackURLs: [], AllowedOAuthFlows: [], AllowedOAuthScopes: [], AllowedOAuthFlowsUserPoolClient: false, SupportedIdentityProviders: [] }, input, {
        ClientId: client.ClientId,
        UserPoolId: client.UserPoolId,
      });
      return { UserPoolClient: client };
    },
  };

  function api(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
    const operation = String(request.headers['x-amz-target'] ?? '').replace(/^AWSCognitoIdentityProviderService\./, '');
    const run = operations[operation];
    const fail = (type: string, message: string) => send(response, 400, { __type: type, message }, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type });
    if (!run) return fail('UnsupportedOperationException', `The local federation stand-in does not implement ${operation || 'this operation'}`);
    try {
      const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      if (input.UserPoolId !== options.userPoolId) return fail('ResourceNotFoundException', 'No such user pool');
      send(response, 200, run(input), { 'content-type': 'application/x-amz-json-1.1' });
    } catch (error) {
      if (error instanceof AwsError) return fail(error.type, error.message);
      throw error;
    }
  }

  function prune(): void {
    const now = Date.now();
    for (const [key, value] of pending) if (value.expires < now) pending.delete(key);
    for (const [key, value] of codes) if (value.expires < now) codes.delete(key);
  }

  async function authorize(response: ServerResponse, query: URLSearchParams): Promise<void> {
    const refuse = (message: string) => send(response, 400, { error: 'invalid_request', error_description: message });
    const redirectUri = query.get('redirect_uri') ?? '';
    const providerName = query.get('identity_provider') ?? '';
    if (query.get('client_id') !== client.ClientId) return refuse('unknown client_id');
    if (!client.CallbackURLs.includes(redirectUri)) return refuse('redirect_mismatch');
    if (query.get('response_type') !== 'code' || !client.AllowedOAuthFlows.includes('code')) return refuse('unauthorized_client: response_type must be code');
    if (query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge')) return refuse('PKCE with code_challenge_method S256 is required');
    const registered = providers.get(providerName);
    if (!registered || !client.SupportedIdentityProviders.includes(providerName)) return refuse(`identity_provider ${providerName} is not enabled for this client`);
    prune();
    if (pending.size >= maxPending) return send(response, 503, { error: 'temporarily_unavailable' });
    const relayState = randomBytes(24).toString('base64url');
    pending.set(relayState, {
      clientId: client.ClientId,
      redirectUri,
      state: query.get('state') ?? '',
      codeChallenge: query.get('code_challenge')!,
      providerName,
      expires: Date.now() + pendingLifetimeMs,
    });
    redirect(response, await registered.saml.getAuthorizeUrlAsync(relayState, undefined, {}));
  }

  async function idpResponse(response: ServerResponse, body: Buffer): Promise<void> {
    const form = new URLSearchParams(body.toString('utf8'));
    const relayState = form.get('RelayState') ?? '';
    const started = pending.get(relayState);
    // Without a sign-in it started, the pool has nowhere to send the browser (IdP-initiated is not emulated).
    if (!started || started.expires < Date.now()) return send(response, 400, { error: 'invalid_request', error_description: 'Unknown or expired RelayState' });
    pending.delete(relayState);
    const back = (params: Record<string, string>) => redirect(response, `${started.redirectUri}?${new URLSearchParams({ ...params, state: started.state })}`);
    const registered = providers.get(started.providerName);
    if (!registered) return back({ error: 'server_error', error_description: 'The identity provider is no longer registered' });
    let profile;
    try {
      ({ profile } = await registered.saml.validatePostResponseAsync({ SAMLResponse: form.get('SAMLResponse') ?? '' }));
    } catch (error) {
      return back({ error: 'server_error', error_description: `Invalid SAML response received: ${(error as Error).message}` });
    }
    if (!profile?.nameID) return back({ error: 'server_error', error_description: 'Invalid SAML response received: no NameID' });
    const mapped = registered.attributeMapping.email ?? emailAttribute;
    const email = profile[mapped] ?? (profile.attributes as Record<string, unknown> | undefined)?.[mapped];
    const nowSeconds = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      sub: uuidFrom(`${registered.name}|${profile.nameID}`),
      'cognito:username': `${registered.name}_${profile.nameID}`,
      identities: [{ userId: profile.nameID, providerName: registered.name, providerType: 'SAML', issuer: null, primary: 'true', dateCreated: String(Date.now()) }],
      ...(typeof email === 'string' ? { email } : {}),
      email_verified: false,
      auth_time: nowSeconds,
    };
    const code = randomUUID();
    codes.set(code, { clientId: started.clientId, redirectUri: started.redirectUri, codeChallenge: started.codeChallenge, claims, expires: Date.now() + codeLifetimeMs });
    back({ code });
  }

  function token(response: ServerResponse, body: Buffer): void {
    const form = new URLSearchParams(body.toString('utf8'));
    const invalidGrant = () => send(response, 400, { error: 'invalid_grant' });
    if (form.get('grant_type') !== 'authorization_code') return send(response, 400, { error: 'unsupported_grant_type' });
    const issued = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    if (!issued || issued.expires < Date.now()) return invalidGrant();
    if (form.get('client_id') !== issued.clientId || form.get('redirect_uri') !== issued.redirectUri) return invalidGrant();
    const challenge = createHash('sha256')
      .update(form.get('code_verifier') ?? '')
      .digest('base64url');
    if (challenge !== issued.codeChallenge) return invalidGrant();
    const now = Math.floor(Date.now() / 1000);
    const common = { iss: url, iat: now, exp: now + 3600, jti: randomUUID() };
    send(response, 200, {
      id_token: jwt(privateKey, kid, { ...issued.claims, ...common, aud: issued.clientId, token_use: 'id' }),
      access_token: jwt(privateKey, kid, {
        sub: issued.claims.sub,
        ...common,
        auth_time: issued.claims.auth_time ?? now,
        client_id: issued.clientId,
        token_use: 'access',
        scope: client.AllowedOAuthScopes.join(' '),
      }),
      token_type: 'Bearer',
      expires_in: 3600,
    });
  }

  return {
    url,
    clientId: client.ClientId,
    async handle(request, response, requestUrl, body) {
      const path = requestUrl.pathname.slice('/_local/pool'.length) || '/';
      const method = request.method ?? 'GET';
      if (method === 'POST' && path === '/') return api(request, response, body);
      if (method === 'GET' && path === '/.well-known/jwks.json') return send(response, 200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] });
      if (method === 'GET' && path === '/oauth2/authorize') return authorize(response, requestUrl.searchParams);
      if (method === 'POST' && path === '/saml2/idpresponse') return idpResponse(response, body);
      if (method === 'POST' && path === '/oauth2/token') return token(response, body);
      send(response, 404, { code: 'NOT_FOUND', message: `The federation stand-in has no ${method} ${path}` });
    },
  };
}

function jwt(key: KeyObject, kid: string, payload: Record<string, unknown>): string {
  const signingInput = `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }))}.${b64url(JSON.stringify(payload))}`;
  return `${signingInput}.${b64url(sign('sha256', Buffer.from(signingInput), key))}`;
}

/** A stable sub for a federated identity, shaped like the pool's UUIDs. */
function uuidFrom(value: string): string {
  const hex = createHash('sha256').update(value).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
