import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { CognitoIdentityProviderClient, DeleteIdentityProviderCommand, DescribeUserPoolClientCommand, UpdateUserPoolClientCommand } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localConfig } from '../../infra/local/config.js';
import { findLocalFederation } from '../../infra/local/emulators.js';
import { graphql, newTenant, ok, stack, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { readAuthnRequest, samlResponse } from '../support/saml.js';
import { freshClientIp, send, type AccountResponse } from './accountHelpers.js';
import { configureSaml, idpMetadata } from './scimHelpers.js';
import { verifyDomain } from '../../lib/orgs/operator.js';
import { releaseFederatedClientLease, takeFederatedClientLease } from '../../lib/store/samlSignin.js';

/**
 * Operations of SAML federation end to end on the local stack: the federated client's provider list reset as
 * a deployment resets it (UpdateUserPoolClient with the template's settings and no providers, the SDK call
 * CloudFormation makes), `npm run admin -- saml-resync` putting it back from the table, and Bearer tokens of
 * SSO users (the code flow with PKCE against the pool's hosted domain, as a CLI runs it).
 */
const stateCookieName = '__Host-saml_state';
const providerOf = (tenant: Tenant) => `org-${tenant.organization.id.replaceAll('-', '').slice(0, 28)}`;
const config = () => localConfig({ PORT: stack.env.PORT, COGNITO_PORT: stack.env.COGNITO_PORT, DYNAMODB_PORT: stack.env.DYNAMODB_PORT, TABLE_NAME: stack.env.TABLE_NAME });

interface SsoTenant {
  tenant: Tenant;
  domain: string;
  owner: string;
}

async function ssoTenant(): Promise<SsoTenant> {
  const domain = `ops-${randomBytes(4).toString('hex')}.test`;
  const owner = `owner@${domain}`;
  const tenant = await newTenant({ email: owner });
  await verifyDomain(testStore(), tenant.organization.slug, domain);
  await ok(tenantHeaders(tenant), configureSaml, { input: { enabled: true, idpMetadataXml: idpMetadata(), domains: [domain] } });
  return { tenant, domain, owner };
}

/** Our start route, then the pool's authorize: the pool's answer (302 to the IdP, or its refusal). */
async function startAtPool(email: string) {
  const from = freshClientIp();
  const started = await send('GET', `/auth/saml/start?email=${encodeURIComponent(email)}`, { from });
  expect(started.status, started.raw).toBe(302);
  const stateCookie = ([] as string[])
    .concat(started.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith(`${stateCookieName}=`))!
    .split(';')[0]!
    .split('=')
    .slice(1)
    .join('=');
  const authorize = await fetch(String(started.headers.location), { redirect: 'manual' });
  return { from, stateCookie, authorize };
}

/** The whole browser sign-in: our callback's answer (302 with the session, or a refusal). */
async function ssoSignIn(email: string): Promise<AccountResponse> {
  const { from, stateCookie, authorize } = await startAtPool(email);
  expect(authorize.status, await authorize.clone().text()).toBe(302);
  const request = readAuthnRequest(authorize.headers.get('location')!);
  const acs = await fetch(request.acsUrl, { method: 'POST', body: new URLSearchParams({ SAMLResponse: samlResponse(request, email), RelayState: request.relayState }), redirect: 'manual' });
  const callback = new URL(acs.headers.get('location')!);
  return send('GET', callback.pathname + callback.search, { from, headers: { cookie: `${stateCookieName}=${stateCookie}` } });
}

/**
 * A CLI's way to a Bearer token for an SSO user: the authorization code flow with PKCE directly against the
 * pool's hosted domain with the federated client, the code taken from the redirect and exchanged at /oauth2/token.
 */
async function cliAccessToken(email: string, providerName: string): Promise<string> {
  const federation = await findLocalFederation(config());
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = `${stack.baseUrl}/auth/saml/callback`;
  const authorizeUrl = new URL(`${federation.endpoint}/oauth2/authorize`);
  authorizeUrl.search = new URLSearchParams({
    identity_provider: providerName,
    response_type: 'code',
    client_id: federation.federatedClientId,
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    state: 'cli',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const authorize = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(authorize.status, await authorize.clone().text()).toBe(302);
  const request = readAuthnRequest(authorize.headers.get('location')!);
  const acs = await fetch(request.acsUrl, { method: 'POST', body: new URLSearchParams({ SAMLResponse: samlResponse(request, email), RelayState: request.relayState }), redirect: 'manual' });
  const code = new URL(acs.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${federation.endpoint}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: federation.federatedClientId, code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  expect(token.status).toBe(200);
  return ((await token.json()) as { access_token: string }).access_token;
}

let pool: CognitoIdentityProviderClient;
let ids: { userPoolId: string; federatedClientId: string };

async function clientProviders(): Promise<string[]> {
  const { UserPoolClient } = await pool.send(new DescribeUserPoolClientCommand({ UserPoolId: ids.userPoolId, ClientId: ids.federatedClientId }));
  return UserPoolClient?.SupportedIdentityProviders ?? [];
}

/**
 * What a deployment that updates the FederatedClient resource does: UpdateUserPoolClient with the template's
 * settings, which list no provider. Other test files share the stack (and sign in through their own
 * organizations meanwhile), so only the providers of `dropped` are taken off here.
 */
async function deploymentResetsClient(dropped: string[]): Promise<void> {
  // Under the client's lease, as saml.configure and the resync work: a read-then-write of the list that raced
  // another file's saml.configure would drop that file's provider and fail its sign-ins.
  const owner = randomUUID();
  while (!(await takeFederatedClientLease(testStore(), owner, 15_000))) await new Promise((resolve) => setTimeout(resolve, 100));
  try {
    await resetClient(dropped);
  } finally {
    await releaseFederatedClientLease(testStore(), owner);
  }
}

async function resetClient(dropped: string[]): Promise<void> {
  const { UserPoolClient: current } = await pool.send(new DescribeUserPoolClientCommand({ UserPoolId: ids.userPoolId, ClientId: ids.federatedClientId }));
  await pool.send(
    new UpdateUserPoolClientCommand({
      UserPoolId: ids.userPoolId,
      ClientId: ids.federatedClientId,
      ClientName: current!.ClientName,
      CallbackURLs: current!.CallbackURLs,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      AllowedOAuthFlowsUserPoolClient: true,
      PreventUserExistenceErrors: 'ENABLED',
      SupportedIdentityProviders: (current!.SupportedIdentityProviders ?? []).filter((name) => !dropped.includes(name)),
    }),
  );
}

/** `npm run admin -- saml-resync` against the test stack: its JSON line and exit status. */
function samlResyncCli(): Promise<{
  status: number | null;
  result: { organizations: { organizationId: string; enabled: boolean; reregistered: boolean; problem?: string }[]; before: string[]; after: string[] };
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/admin/cli.ts', 'saml-resync'], {
      env: {
        ...process.env,
        PORT: stack.env.PORT,
        COGNITO_PORT: stack.env.COGNITO_PORT,
        DYNAMODB_PORT: stack.env.DYNAMODB_PORT,
        TABLE_NAME: stack.env.TABLE_NAME,
        NODE_NO_WARNINGS: '1',
        AWS_PROFILE: '',
        AWS_ACCESS_KEY_ID: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (status) => {
      try {
        resolve({ status, result: JSON.parse(out.trim().split('\n').at(-1)!) });
      } catch {
        reject(new Error(`saml-resync printed no JSON (exit ${status}):\n${out}\n${err}`));
      }
    });
  });
}

const me = '{ user { me { user { primaryEmail } } } }';

beforeAll(async () => {
  const federation = await findLocalFederation(config());
  ids = federation;
  pool = new CognitoIdentityProviderClient({ endpoint: federation.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
});
afterAll(() => pool?.destroy());

describe('SAML federation after a deployment', () => {
  it('a deployment that resets the federated client breaks sign-in for every organization; saml-resync puts the enabled providers back and re-registers one the pool lost', {
    timeout: 60_000,
  }, async () => {
    const [a, b] = await Promise.all([ssoTenant(), ssoTenant()]);
    for (const sso of [a, b]) expect((await ssoSignIn(sso.owner)).status).toBe(302);
    expect(await clientProviders()).toEqual(expect.arrayContaining([providerOf(a.tenant), providerOf(b.tenant)]));

    await deploymentResetsClient([providerOf(a.tenant), providerOf(b.tenant)]);
    expect(await clientProviders()).not.toContain(providerOf(a.tenant));
    expect(await clientProviders()).not.toContain(providerOf(b.tenant));
    for (const sso of [a, b]) {
      const { authorize } = await startAtPool(sso.owner);
      expect(authorize.status).toBe(400);
      expect(await authorize.text()).toContain(`identity_provider ${providerOf(sso.tenant)} is not enabled for this client`);
    }
    // The pool lost a's provider too (a replaced pool, an operator's mistake): the stored metadata brings it back.
    await pool.send(new DeleteIdentityProviderCommand({ UserPoolId: ids.userPoolId, ProviderName: providerOf(a.tenant) }));

    const { status, result } = await samlResyncCli();
    expect(status).toBe(0);
    expect(result.before).not.toContain(providerOf(a.tenant));
    expect(result.before).not.toContain(providerOf(b.tenant));
    expect(result.after).toEqual(expect.arrayContaining([providerOf(a.tenant), providerOf(b.tenant)]));
    expect(result.organizations.find((o) => o.organizationId === a.tenant.organization.id)).toMatchObject({ enabled: true, reregistered: true });
    expect(result.organizations.find((o) => o.organizationId === b.tenant.organization.id)).toMatchObject({ enabled: true, reregistered: false });
    expect(await clientProviders()).toEqual(result.after);

    for (const sso of [a, b]) {
      const done = await ssoSignIn(sso.owner);
      expect(done.status, done.raw).toBe(302);
      expect(String(done.headers.location)).toContain('#csrfToken=');
    }
  });

  it('disabling SAML takes the provider off the federated client (the pool refuses it too), and the resync keeps it off; re-enabling puts it back', { timeout: 60_000 }, async () => {
    const sso = await ssoTenant();
    await ok(tenantHeaders(sso.tenant), configureSaml, { input: { enabled: false } });
    expect(await clientProviders()).not.toContain(providerOf(sso.tenant));
    const { result } = await samlResyncCli();
    expect(result.organizations.find((o) => o.organizationId === sso.tenant.organization.id)).toMatchObject({ enabled: false });
    expect(result.after).not.toContain(providerOf(sso.tenant));
    await ok(tenantHeaders(sso.tenant), configureSaml, { input: { enabled: true } });
    expect(await clientProviders()).toContain(providerOf(sso.tenant));
    expect((await ssoSignIn(sso.owner)).status).toBe(302);
  });
});

describe('Bearer tokens of SSO users', () => {
  it("authenticates GraphQL with the pool's access token of the federated client, as the user the SSO callback signed in", { timeout: 60_000 }, async () => {
    const sso = await ssoTenant();
    // Before any SSO sign-in through our callback, the pool's federated user is nobody here.
    const early = await cliAccessToken(sso.owner, providerOf(sso.tenant));
    const unknown = await graphql(me, undefined, { authorization: `Bearer ${early}` });
    expect(unknown.status).toBe(401);

    expect((await ssoSignIn(sso.owner)).status).toBe(302);
    const token = await cliAccessToken(sso.owner, providerOf(sso.tenant));
    const answer = await graphql<{ user: { me: { user: { primaryEmail: string } } } }>(me, undefined, { authorization: `Bearer ${token}` });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data?.user.me.user.primaryEmail).toBe(sso.owner);
    // The same token before the callback's mapping existed works now too (same federated user).
    expect((await graphql(me, undefined, { authorization: `Bearer ${early}` })).status).toBe(200);
    const libraries = await graphql<{ libraries: { name: string }[] }>('{ libraries { name } }', undefined, { authorization: `Bearer ${token}`, 'x-organization': `@${sso.tenant.organization.slug}` });
    expect(libraries.body.data?.libraries).toEqual([{ name: 'Main' }]);

    // Once the configuration no longer lists the address's domain, its IdP's tokens for it stop; listed again, they work.
    await ok(tenantHeaders(sso.tenant), configureSaml, { input: { enabled: true, domains: [] } });
    expect((await graphql(me, undefined, { authorization: `Bearer ${token}` })).status).toBe(401);
    await ok(tenantHeaders(sso.tenant), configureSaml, { input: { enabled: true, domains: [sso.domain] } });
    expect((await graphql(me, undefined, { authorization: `Bearer ${token}` })).status).toBe(200);

    // Once the organization disables SAML, its IdP's tokens sign nobody in.
    await ok(tenantHeaders(sso.tenant), configureSaml, { input: { enabled: false } });
    expect((await graphql(me, undefined, { authorization: `Bearer ${token}` })).status).toBe(401);
  });
});
