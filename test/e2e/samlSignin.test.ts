import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, verifyDomain } from '../../lib/orgs/operator.js';
import { findUserIdByEmail } from '../../lib/store/user.js';
import { graphql, newTenant, ok, stack, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { idpCertificate, readAuthnRequest, samlResponse } from '../support/saml.js';
import { refusal } from './accessHelpers.js';
import { freshClientIp, postAuth, send, sessionFrom, strongPassword, type AccountResponse } from './accountHelpers.js';
import { configureSaml, idpMetadata, patchOp, scim, scimTenant, userSchema } from './scimHelpers.js';

/**
 * SAML sign-in end to end over real HTTP: our start route, the user pool's federation (the local stand-in:
 * authorize, AuthnRequest, signature check at the ACS URL, code, token, JWKS), a test IdP that signs with
 * xml-crypto, and our callback, which verifies the ID token with aws-jwt-verify and opens a session.
 */
const stateCookieName = '__Host-saml_state';

function cookieFrom(response: AccountResponse, name: string): string | undefined {
  const cookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
  return cookie?.split(';')[0]!.split('=').slice(1).join('=');
}

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

interface Flow {
  from: string;
  stateCookie: string;
  /** Our callback URL as the pool redirected the browser to it. */
  callbackUrl: string;
}

/** The browser's way up to our callback: start, the pool's authorize, the IdP's POST to the ACS URL. */
async function throughIdp(start: string, email: string, options: { privateKey?: string; tamper?: (xml: string) => string } = {}): Promise<Flow> {
  const from = freshClientIp();
  const started = await send('GET', start, { from });
  expect(started.status, started.raw).toBe(302);
  const stateCookie = cookieFrom(started, stateCookieName)!;
  const location = String(started.headers.location);
  expect(location.startsWith(`${stack.baseUrl}/_local/pool/oauth2/authorize?`)).toBe(true);
  const authorize = await fetch(location, { redirect: 'manual' });
  expect(authorize.status, await authorize.clone().text()).toBe(302);
  const request = readAuthnRequest(authorize.headers.get('location')!);
  let response = samlResponse(request, email, options);
  if (options.tamper) response = Buffer.from(options.tamper(Buffer.from(response, 'base64').toString('utf8'))).toString('base64');
  const acs = await fetch(request.acsUrl, { method: 'POST', body: new URLSearchParams({ SAMLResponse: response, RelayState: request.relayState }), redirect: 'manual' });
  expect(acs.status).toBe(302);
  return { from, stateCookie, callbackUrl: acs.headers.get('location')! };
}

const callback = (flow: Flow, stateCookie = flow.stateCookie) => send('GET', pathOf(flow.callbackUrl), { from: flow.from, headers: { cookie: `${stateCookieName}=${stateCookie}` } });

async function signIn(email: string, start = `/auth/saml/start?email=${encodeURIComponent(email)}`): Promise<AccountResponse> {
  return callback(await throughIdp(start, email));
}

/** The session a successful callback handed the browser: the cookie, and the csrfToken from the fragment. */
function sessionOf(response: AccountResponse) {
  expect(response.status, response.raw).toBe(302);
  const location = new URL(String(response.headers.location));
  expect(location.origin + location.pathname).toBe(`${stack.env.APP_URL}/`);
  const csrfToken = new URLSearchParams(location.hash.slice(1)).get('csrfToken')!;
  return { cookie: `__Host-service_session=${sessionFrom(response)}`, 'x-csrf-token': csrfToken };
}

const me = '{ user { me { permitted user { primaryEmail } } } }';

interface SsoTenant {
  tenant: Tenant;
  domain: string;
  owner: string;
}

/** An organization whose owner's address is in a domain it verified, with SAML enabled for that domain. */
async function ssoTenant(metadata = idpMetadata()): Promise<SsoTenant> {
  const domain = `sso-${randomUUID().slice(0, 8)}.test`;
  const owner = `owner@${domain}`;
  const tenant = await newTenant({ email: owner });
  await verifyDomain(testStore(), tenant.organization.slug, domain);
  await ok(tenantHeaders(tenant), configureSaml, { input: { enabled: true, idpMetadataXml: metadata, domains: [domain] } });
  return { tenant, domain, owner };
}

describe('SAML sign-in through the user pool', () => {
  let acme: SsoTenant;
  beforeAll(async () => {
    acme = await ssoTenant();
  });

  it('signs a member in: start redirects to the pool with PKCE and a browser-bound state, the callback opens a working session', async () => {
    const from = freshClientIp();
    const started = await send('GET', `/auth/saml/start?email=${encodeURIComponent(acme.owner)}`, { from });
    expect(started.status).toBe(302);
    const authorize = new URL(String(started.headers.location));
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      identity_provider: `org-${acme.tenant.organization.id.replaceAll('-', '').slice(0, 28)}`,
      response_type: 'code',
      redirect_uri: `${stack.baseUrl}/auth/saml/callback`,
      code_challenge_method: 'S256',
      scope: 'openid email profile',
    });
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
    expect(([] as string[]).concat(started.headers['set-cookie'] ?? []).find((c) => c.startsWith(stateCookieName))).toMatch(/; Secure; HttpOnly; SameSite=Lax; Max-Age=600/);

    const done = await signIn(acme.owner);
    const session = sessionOf(done);
    expect(([] as string[]).concat(done.headers['set-cookie'] ?? [])).toContain(`${stateCookieName}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`);
    expect((await ok(session, me)).user.me).toEqual({ permitted: true, user: { primaryEmail: acme.owner } });
    const libraries = await ok({ ...session, 'x-organization': `@${acme.tenant.organization.slug}` }, '{ libraries { name } }');
    expect(libraries.libraries).toEqual([{ name: 'Main' }]);
  });

  it('accepts the signing certificate with PEM armour and line breaks (as some IdPs export it) and signs in with it', async () => {
    const pem = `\n-----BEGIN CERTIFICATE-----\n${idpCertificate.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
    const armoured = await ssoTenant(idpMetadata({ certificate: pem }));
    const stored = (await ok(tenantHeaders(armoured.tenant), '{ saml { configuration { certificateSha256 } } }')).saml.configuration;
    expect(stored.certificateSha256).toBe(createHash('sha256').update(Buffer.from(idpCertificate, 'base64')).digest('hex'));
    expect((await ok(sessionOf(await signIn(armoured.owner)), me)).user.me.user.primaryEmail).toBe(armoured.owner);
  });

  it('signs in through ?organization=<slug> too', async () => {
    const session = sessionOf(await signIn(acme.owner, `/auth/saml/start?organization=${acme.tenant.organization.slug}`));
    expect((await ok(session, me)).user.me.user.primaryEmail).toBe(acme.owner);
  });

  it('signs in a user provisioned by the organization over SCIM', async () => {
    const t = await scimTenant();
    const address = `provisioned.${randomUUID().slice(0, 8)}@${t.tenant.organization.slug}.test`;
    expect((await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: address, emails: [{ value: address, primary: true }], active: true })).status).toBe(201);
    const session = sessionOf(await signIn(address));
    expect((await ok(session, me)).user.me.user.primaryEmail).toBe(address);
  });

  it('refuses a tampered SAML response and one signed by another key, and opens no session', async () => {
    const tampered = await callback(
      await throughIdp(`/auth/saml/start?email=${encodeURIComponent(acme.owner)}`, acme.owner, {
        tamper: (xml) => xml.replace(`<saml2:AttributeValue>${acme.owner}`, `<saml2:AttributeValue>ceo@${acme.domain}`),
      }),
    );
    expect(tampered.status).toBe(401);
    expect(tampered.body).toMatchObject({ code: 'SSO_ASSERTION_REJECTED' });
    expect(() => sessionFrom(tampered)).toThrow();

    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const foreign = await callback(await throughIdp(`/auth/saml/start?email=${encodeURIComponent(acme.owner)}`, acme.owner, { privateKey: otherKey }));
    expect(foreign.status).toBe(401);
    expect(foreign.body).toMatchObject({ code: 'SSO_ASSERTION_REJECTED' });
    expect(() => sessionFrom(foreign)).toThrow();
  });

  it('refuses a replayed state, and a state started in another browser (which leaves it to its own browser)', async () => {
    const flow = await throughIdp(`/auth/saml/start?email=${encodeURIComponent(acme.owner)}`, acme.owner);
    const other = await throughIdp(`/auth/saml/start?email=${encodeURIComponent(acme.owner)}`, acme.owner);
    const crossed = await callback(flow, other.stateCookie);
    expect(crossed.status).toBe(400);
    expect(crossed.body).toMatchObject({ code: 'SSO_STATE_INVALID' });
    const noCookie = await send('GET', pathOf(flow.callbackUrl), { from: flow.from });
    expect(noCookie.body).toMatchObject({ code: 'SSO_STATE_INVALID' });

    sessionOf(await callback(flow));
    const replayed = await callback(flow);
    expect(replayed.status).toBe(400);
    expect(replayed.body).toMatchObject({ code: 'SSO_STATE_INVALID' });
    expect(() => sessionFrom(replayed)).toThrow();
  });

  it('refuses an address of a domain no organization signs in, and asks for an address or an organization', async () => {
    const unknown = await send('GET', `/auth/saml/start?email=someone%40unknown-${randomUUID().slice(0, 8)}.test`, { from: freshClientIp() });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'SSO_NOT_CONFIGURED' });
    const missing = await send('GET', '/auth/saml/start', { from: freshClientIp() });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'AUTH_REQUEST_REJECTED' });
  });

  it('refuses an address of the domain that the organization has not admitted, and creates no account', async () => {
    const stranger = `stranger.${randomUUID().slice(0, 8)}@${acme.domain}`;
    const refused = await signIn(stranger);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'SSO_NOT_ADMITTED' });
    expect(await findUserIdByEmail(testStore(), stranger)).toBeUndefined();
  });

  it('admits an allowlisted address of its domain, creating its account with the address verified', async () => {
    const sso = await ssoTenant();
    await ok(tenantHeaders(sso.tenant), 'mutation($entry: String!) { organization { allowlist { add(input: { entry: $entry, roleId: "VIEWER" }) { entry } } } }', { entry: `@${sso.domain}` });
    const newcomer = `newcomer.${randomUUID().slice(0, 8)}@${sso.domain}`;
    const session = sessionOf(await signIn(newcomer));
    expect((await ok(session, me)).user.me).toEqual({ permitted: true, user: { primaryEmail: newcomer } });
  });

  it('takes an unverified account at an allowlisted address away from whoever made it: their sessions, Bearer tokens and password end', async () => {
    const sso = await ssoTenant();
    await ok(tenantHeaders(sso.tenant), 'mutation($entry: String!) { organization { allowlist { add(input: { entry: $entry, roleId: "VIEWER" }) { entry } } } }', { entry: `@${sso.domain}` });
    const address = `early.${randomUUID().slice(0, 8)}@${sso.domain}`;
    const password = strongPassword();
    const from = freshClientIp();
    expect((await postAuth('/auth/signup', { email: address, password }, from)).status).toBe(202);
    const squatter = await postAuth('/auth/signin', { email: address, password }, from);
    expect(squatter.status).toBe(200);
    const squatterSession = { cookie: `__Host-service_session=${sessionFrom(squatter)}`, 'x-csrf-token': squatter.body.csrfToken };
    expect((await graphql(me, undefined, squatterSession)).status).toBe(200);
    const issued = await postAuth('/auth/token', { email: address, password }, from);
    expect(issued.status).toBe(200);
    const squatterBearer = { authorization: `Bearer ${issued.body.accessToken}` };
    expect((await graphql(me, undefined, squatterBearer)).status).toBe(200);
    // auth_time has a one-second grain: the takeover comes in a later second than the squatter's sign-in.
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const session = sessionOf(await signIn(address));
    expect((await ok(session, me)).user.me).toEqual({ permitted: true, user: { primaryEmail: address } });
    expect((await graphql(me, undefined, squatterSession)).status).toBe(401);
    expect((await graphql(me, undefined, squatterBearer)).status).toBe(401);
    expect((await postAuth('/auth/signin', { email: address, password }, freshClientIp())).status).toBe(401);
  });

  it('refuses a SCIM user the organization deactivated', async () => {
    const t = await scimTenant();
    const address = `leaver.${randomUUID().slice(0, 8)}@${t.tenant.organization.slug}.test`;
    const created = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: address, emails: [{ value: address, primary: true }] });
    sessionOf(await signIn(address));
    expect((await scim(t.token, 'PATCH', `/Users/${created.body.id}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { active: false } }] })).status).toBe(200);
    expect((await signIn(address)).body).toMatchObject({ code: 'SSO_NOT_ADMITTED' });
  });

  it('refuses the users of a disabled SAML configuration, at the start and at the callback', async () => {
    const sso = await ssoTenant();
    const inFlight = await throughIdp(`/auth/saml/start?email=${encodeURIComponent(sso.owner)}`, sso.owner);
    await ok(tenantHeaders(sso.tenant), configureSaml, { input: { enabled: false } });
    const atCallback = await callback(inFlight);
    expect(atCallback.status).toBe(404);
    expect(atCallback.body).toMatchObject({ code: 'SSO_NOT_CONFIGURED' });
    const atStart = await send('GET', `/auth/saml/start?email=${encodeURIComponent(sso.owner)}`, { from: freshClientIp() });
    expect(atStart.status).toBe(404);
    expect(atStart.body).toMatchObject({ code: 'SSO_NOT_CONFIGURED' });
  });
});

describe('SAML sign-in: isolation between organizations', () => {
  let a: SsoTenant;
  let b: SsoTenant;
  beforeAll(async () => {
    [a, b] = await Promise.all([ssoTenant(), ssoTenant()]);
  });

  it("lists only the organization's verified domains: another organization's, or one nobody verified, is refused", async () => {
    for (const [index, domain] of [
      [1, a.domain],
      [1, `webmail-${randomUUID().slice(0, 8)}.test`],
    ] as const) {
      const refused = await refusal(tenantHeaders(b.tenant), configureSaml, { input: { enabled: true, idpMetadataXml: idpMetadata(), domains: [b.domain, domain] } });
      expect(refused.code).toBe('SAML_DOMAIN_NOT_VERIFIED');
      expect(refused.error?.extensions).toMatchObject({ field: `input.domains[${index}]`, domain });
    }
    expect((await ok(tenantHeaders(b.tenant), '{ saml { configuration { domains } } }')).saml.configuration.domains).toEqual([b.domain]);
  });

  it("does not sign in another domain's account that an organization linked over SCIM", async () => {
    // b's SCIM links a's owner (an existing verified account) and b's IdP asserts that address: refused.
    await ok(tenantHeaders(b.tenant), 'mutation { configureScim(enabled: true) { enabled } }');
    const token = (await ok(tenantHeaders(b.tenant), 'mutation { scimToken { create { secret } } }')).scimToken.create.secret;
    expect((await scim(token, 'POST', '/Users', { schemas: [userSchema], userName: a.owner, emails: [{ value: a.owner, primary: true }] })).status).toBe(201);
    const refused = await signIn(a.owner, `/auth/saml/start?organization=${b.tenant.organization.slug}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'SSO_NOT_ADMITTED' });
  });

  it("does not let one organization's IdP sign in an address of another's domain", async () => {
    const refused = await signIn(a.owner, `/auth/saml/start?organization=${b.tenant.organization.slug}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'SSO_NOT_ADMITTED' });
  });

  it("admits a person already verified to the signing-in organization only: another's invitation stays pending", async () => {
    const invite = 'mutation($e: [String!]!) { organization { bulkInvite(input: { emails: $e }) { successful { invitation { id } } } } }';
    const invitations = 'query { organization { invitations { id status } } }';
    // A verified account at a's domain (a member of a third organization), invited by b and by a.
    const third = await newTenant();
    const person = `invited.${randomUUID().slice(0, 8)}@${a.domain}`;
    await addMember(testStore(), { orgSlug: third.organization.slug, email: person, role: 'VIEWER' });
    const fromB = (await ok(tenantHeaders(b.tenant), invite, { e: [person] })).organization.bulkInvite.successful[0].invitation.id as string;
    await ok(tenantHeaders(a.tenant), invite, { e: [person] });
    // Signing in through a's IdP admits to a (its invitation), not to b: b's invitation waits for the person.
    const session = sessionOf(await signIn(person));
    const inA = await graphql('{ libraries { name } }', undefined, { ...session, 'x-organization': `@${a.tenant.organization.slug}` });
    expect(inA.status).toBe(200);
    const inB = await graphql('{ libraries { name } }', undefined, { ...session, 'x-organization': `@${b.tenant.organization.slug}` });
    expect(inB.status).toBe(403);
    expect((await ok(tenantHeaders(b.tenant), invitations)).organization.invitations).toContainEqual({ id: fromB, status: 'PENDING' });
  });

  it("refuses a member of another organization only, and a session through one organization's IdP reaches no other", async () => {
    const outsider = `outsider.${randomUUID().slice(0, 8)}@${a.domain}`;
    await addMember(testStore(), { orgSlug: b.tenant.organization.slug, email: outsider, role: 'VIEWER' });
    expect((await signIn(outsider)).body).toMatchObject({ code: 'SSO_NOT_ADMITTED' });

    const session = sessionOf(await signIn(a.owner));
    const elsewhere = await graphql('{ libraries { name } }', undefined, { ...session, 'x-organization': `@${b.tenant.organization.slug}` });
    expect(elsewhere.status).toBe(403);
  });
});
