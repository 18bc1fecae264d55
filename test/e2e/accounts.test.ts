import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { graphql, newTenant, ok, stack, tenantHeaders, testStore } from '../support/api.js';
import { appOrigin, emailedToken, emailedTokens, freshClientIp, newAddress, postAuth, send, sessionFrom, strongPassword, verifiedAccount } from './accountHelpers.js';
import { mailTo } from './accessHelpers.js';
import { verifyDomain } from '../../lib/orgs/operator.js';

const meQuery = 'query { user { me { permitted hasOrganizations canCreateOrg user { primaryEmail name } } } }';
const asSession = (session: { cookie: string; csrfToken: string }, extra: Record<string, string> = {}) => ({
  cookie: `__Host-service_session=${session.cookie}`,
  'x-csrf-token': session.csrfToken,
  ...extra,
});

describe('signup and email verification', () => {
  it('signs up, verifies from the emailed link, and calls GraphQL with the cookie and the CSRF token', async () => {
    const ip = freshClientIp();
    const address = newAddress('ada');
    const signed = await postAuth('/auth/signup', { email: address.toUpperCase(), password: strongPassword() }, ip);
    expect([signed.status, signed.body]).toEqual([202, { status: 'pending_verification' }]);
    expect(signed.headers['set-cookie']).toBeUndefined();

    const mail = (await mailTo(address)).at(-1)!;
    expect(mail.text).toContain(`${stack.env.APP_URL}/verify-email?token=`);
    const token = await emailedToken(address, '/verify-email');
    const verified = await postAuth('/auth/verify-email', { token }, ip);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ status: 'verified', csrfToken: expect.any(String) });
    const cookie = ([] as string[]).concat(verified.headers['set-cookie']!).find((c) => c.startsWith('__Host-service_session='))!;
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    const session = { cookie: sessionFrom(verified), csrfToken: verified.body.csrfToken };

    const me = await ok(asSession(session), meQuery);
    // Admitted nowhere yet: the user exists, is verified, but not permitted; organization queries are refused.
    expect(me.user.me).toEqual({ permitted: false, hasOrganizations: false, canCreateOrg: false, user: { primaryEmail: address, name: expect.stringMatching(/^Ada /) } });
    const tenant = await newTenant();
    const refused = await graphql('query { organization { current { id } } }', undefined, asSession(session, { 'x-organization': tenant.organization.id }));
    expect([refused.status, refused.body.errors?.[0]?.extensions?.code]).toEqual([403, 'ORGANIZATION_ACCESS_DENIED']);

    // The cookie alone, or with another CSRF token, is refused.
    const noCsrf = await graphql(meQuery, undefined, { cookie: `__Host-service_session=${session.cookie}` });
    expect([noCsrf.status, noCsrf.body.errors?.[0]?.extensions?.code]).toEqual([403, 'CSRF_TOKEN_INVALID']);
    const wrongCsrf = await graphql(meQuery, undefined, asSession({ ...session, csrfToken: 'x'.repeat(43) }));
    expect(wrongCsrf.status).toBe(403);
    const unknown = await graphql(meQuery, undefined, asSession({ ...session, cookie: 'y'.repeat(43) }));
    expect([unknown.status, unknown.body.errors?.[0]?.extensions?.code]).toEqual([401, 'UNAUTHENTICATED']);

    // The token is spent: a replay is refused.
    const replay = await postAuth('/auth/verify-email', { token }, ip);
    expect([replay.status, replay.body.code]).toEqual([400, 'AUTH_TOKEN_INVALID']);
  });

  it('answers an existing address with the byte-identical 202 body and emails its owner instead', async () => {
    const ip = freshClientIp();
    const address = newAddress('grace');
    const first = await postAuth('/auth/signup', { email: address, password: strongPassword() }, ip);
    const again = await postAuth('/auth/signup', { email: address, password: strongPassword(), name: 'Someone Else' }, ip);
    expect(again.status).toBe(first.status);
    expect(again.raw).toBe(first.raw);
    const mails = await mailTo(address);
    expect(mails.map((mail) => mail.subject)).toEqual(['Verify your email address', 'Someone tried to sign up with your address']);
    expect(mails[1]!.text).toContain('/reset-password');
    // An account made by an operator (no password yet) is an existing address too.
    const tenant = await newTenant();
    const operatorMade = await postAuth('/auth/signup', { email: tenant.user.email, password: strongPassword() }, ip);
    expect(operatorMade.raw).toBe(first.raw);
  });

  it('refuses with the spec codes', async () => {
    const ip = freshClientIp();
    const body = { email: newAddress(), password: strongPassword() };
    const noOrigin = await send('POST', '/auth/signup', { body, from: ip });
    expect([noOrigin.status, noOrigin.body]).toEqual([403, { code: 'AUTH_ORIGIN_REJECTED', message: expect.any(String) }]);
    const foreign = await send('POST', '/auth/verify-email', { body: { token: 'x' }, from: ip, headers: { origin: 'https://evil.example' } });
    expect([foreign.status, foreign.body.code]).toEqual([403, 'AUTH_ORIGIN_REJECTED']);
    const weak = await postAuth('/auth/signup', { ...body, password: 'Summertime2024!' }, ip);
    expect([weak.status, weak.body.code]).toEqual([400, 'AUTH_REQUEST_REJECTED']);
    expect(weak.body.message).toMatch(/capitalized word followed by digits/);
    const short = await postAuth('/auth/signup', { ...body, password: 'Ab1!' }, ip);
    expect(short.body.message).toMatch(/at least 12 characters/);
    const long = await postAuth('/auth/signup', { ...body, email: `${'a'.repeat(243)}@example.org` }, ip);
    expect([long.status, long.body.code, long.body.message]).toEqual([400, 'AUTH_REQUEST_REJECTED', 'email: email is at most 254 characters']);
    const malformed = await send('POST', '/auth/signup', { rawBody: '{"email":', from: ip, headers: { origin: appOrigin(), 'content-type': 'application/json' } });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'AUTH_REQUEST_REJECTED']);
    const badToken = await postAuth('/auth/verify-email', { token: 'not-a-token' }, ip);
    expect([badToken.status, badToken.body]).toEqual([400, { code: 'AUTH_TOKEN_INVALID', message: expect.any(String) }]);
    // A reset token is the wrong purpose for verification.
    const tenant = await newTenant();
    await postAuth('/auth/password-reset/request', { email: tenant.user.email }, ip);
    const resetToken = await emailedToken(tenant.user.email, '/reset-password');
    expect((await postAuth('/auth/verify-email', { token: resetToken }, ip)).body.code).toBe('AUTH_TOKEN_INVALID');
  });

  it('of two concurrent verifications of one token, exactly one succeeds', async () => {
    const ip = freshClientIp();
    const address = newAddress('race');
    await postAuth('/auth/signup', { email: address, password: strongPassword() }, ip);
    const token = await emailedToken(address, '/verify-email');
    const both = await Promise.all([postAuth('/auth/verify-email', { token }, ip), postAuth('/auth/verify-email', { token }, ip)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(both.find((r) => r.status === 400)!.body.code).toBe('AUTH_TOKEN_INVALID');
  });
});

describe('sign-in, sign-out, password reset, Bearer tokens', () => {
  it('signs in and out; a wrong password and an unknown address answer alike', async () => {
    const ip = freshClientIp();
    const address = newAddress('linus');
    const password = strongPassword();
    await verifiedAccount(address, password, ip);
    const wrong = await postAuth('/auth/signin', { email: address, password: `${password}x` }, ip);
    const unknown = await postAuth('/auth/signin', { email: newAddress('nobody'), password }, ip);
    expect([wrong.status, wrong.raw]).toEqual([401, unknown.raw]);
    expect(wrong.body.code).toBe('AUTH_INVALID_CREDENTIALS');

    const signedIn = await postAuth('/auth/signin', { email: address, password }, ip);
    expect(signedIn.body).toEqual({ status: 'signed_in', csrfToken: expect.any(String) });
    const session = { cookie: sessionFrom(signedIn), csrfToken: signedIn.body.csrfToken };
    expect((await ok(asSession(session), meQuery)).user.me.user.primaryEmail).toBe(address);
    const out = await postAuth('/auth/signout', {}, ip, { cookie: `__Host-service_session=${session.cookie}` });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    expect((await graphql(meQuery, undefined, asSession(session))).status).toBe(401);
  });

  it('resets a password from the emailed link; the same answer for an unknown address', async () => {
    const ip = freshClientIp();
    const address = newAddress('reset');
    const oldPassword = strongPassword();
    // Signed up but never verified: completing a reset verifies the address.
    await postAuth('/auth/signup', { email: address, password: oldPassword }, ip);
    const known = await postAuth('/auth/password-reset/request', { email: address }, ip);
    const unknown = await postAuth('/auth/password-reset/request', { email: newAddress('ghost') }, ip);
    expect([known.status, known.raw]).toEqual([202, unknown.raw]);
    const token = await emailedToken(address, '/reset-password');
    const weak = await postAuth('/auth/password-reset/complete', { token, password: 'password' }, ip);
    expect(weak.body.code).toBe('AUTH_REQUEST_REJECTED');
    // A session opened before the reset (with the old password) ends with it.
    const before = await postAuth('/auth/signin', { email: address, password: oldPassword }, ip);
    const oldSession = { cookie: sessionFrom(before), csrfToken: before.body.csrfToken };
    expect((await graphql(meQuery, undefined, asSession(oldSession))).status).toBe(200);
    // So does a Bearer token of a sign-in before it (the pool's refresh tokens would outlive the new password).
    const oldBearer = { authorization: `Bearer ${(await postAuth('/auth/token', { email: address, password: oldPassword }, ip)).body.accessToken}` };
    expect((await graphql(meQuery, undefined, oldBearer)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // auth_time has a one-second grain
    const newPassword = strongPassword();
    const done = await postAuth('/auth/password-reset/complete', { token, password: newPassword }, ip);
    expect((await graphql(meQuery, undefined, asSession(oldSession))).status).toBe(401);
    expect((await graphql(meQuery, undefined, oldBearer)).status).toBe(401);
    const newBearer = { authorization: `Bearer ${(await postAuth('/auth/token', { email: address, password: newPassword }, ip)).body.accessToken}` };
    expect((await graphql(meQuery, undefined, newBearer)).status).toBe(200);
    expect(done.body).toEqual({ status: 'password_reset', csrfToken: expect.any(String) });
    expect((await ok(asSession({ cookie: sessionFrom(done), csrfToken: done.body.csrfToken }), meQuery)).user.me.user.primaryEmail).toBe(address);
    expect((await postAuth('/auth/password-reset/complete', { token, password: strongPassword() }, ip)).body.code).toBe('AUTH_TOKEN_INVALID');
    expect((await postAuth('/auth/signin', { email: address, password: oldPassword }, ip)).status).toBe(401);
    expect((await postAuth('/auth/signin', { email: address, password: newPassword }, ip)).status).toBe(200);
  });

  it('a completed reset ends every link emailed before it: an earlier reset link and the verification link open nothing', async () => {
    const ip = freshClientIp();
    const address = newAddress('relink');
    await postAuth('/auth/signup', { email: address, password: strongPassword() }, ip);
    await postAuth('/auth/password-reset/request', { email: address }, ip);
    await postAuth('/auth/password-reset/request', { email: address }, ip);
    const [verification] = await emailedTokens(address, '/verify-email');
    const [earlier, later] = await emailedTokens(address, '/reset-password');
    expect([verification, earlier, later].every(Boolean)).toBe(true);
    const chosen = strongPassword();
    expect((await postAuth('/auth/password-reset/complete', { token: later, password: chosen }, ip)).status).toBe(200);

    // Whoever else read the mailbox before the reset holds links that would sign in as its owner, or set
    // another password: each is refused, opens no session and changes nothing.
    const replayed = await postAuth('/auth/password-reset/complete', { token: earlier, password: strongPassword() }, ip);
    expect([replayed.status, replayed.body.code, replayed.headers['set-cookie']]).toEqual([400, 'AUTH_TOKEN_INVALID', undefined]);
    const verified = await postAuth('/auth/verify-email', { token: verification }, ip);
    expect([verified.status, verified.body.code, verified.headers['set-cookie']]).toEqual([400, 'AUTH_TOKEN_INVALID', undefined]);
    expect((await postAuth('/auth/signin', { email: address, password: chosen }, ip)).status).toBe(200);

    // A link asked for after the reset works.
    await postAuth('/auth/password-reset/request', { email: address }, ip);
    const next = (await emailedTokens(address, '/reset-password')).at(-1)!;
    expect(next).not.toBe(later);
    const again = strongPassword();
    expect((await postAuth('/auth/password-reset/complete', { token: next, password: again }, ip)).status).toBe(200);
    expect((await postAuth('/auth/signin', { email: address, password: again }, ip)).status).toBe(200);
  });

  it('an operator-made account gets its first password through a reset', async () => {
    const ip = freshClientIp();
    const tenant = await newTenant();
    await postAuth('/auth/password-reset/request', { email: tenant.user.email }, ip);
    const password = strongPassword();
    const done = await postAuth('/auth/password-reset/complete', { token: await emailedToken(tenant.user.email, '/reset-password'), password }, ip);
    expect(done.status).toBe(200);
    const session = { cookie: sessionFrom(done), csrfToken: done.body.csrfToken };
    const libraries = await ok(asSession(session, { 'x-organization': `@${tenant.organization.slug}` }), 'query { libraries { id } }');
    expect(libraries.libraries).toEqual([{ id: tenant.library.id }]);
  });

  it('a Bearer token from the user pool authenticates GraphQL; a tampered one gets 401', async () => {
    const ip = freshClientIp();
    const address = newAddress('bearer');
    const password = strongPassword();
    await verifiedAccount(address, password, ip);
    const issued = await send('POST', '/auth/token', { body: { email: address, password }, from: ip });
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ tokenType: 'Bearer', accessToken: expect.any(String), expiresIn: expect.any(Number) });
    const me = await ok({ authorization: `Bearer ${issued.body.accessToken}` }, meQuery);
    expect(me.user.me.user.primaryEmail).toBe(address);

    const [header, payload, signature] = issued.body.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })).toString('base64url')}.${signature}`;
    const flipped = `${header}.${payload}.${signature.slice(0, -4)}${signature.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const token of [forged, flipped, issued.body.idToken, 'not.a.jwt']) {
      const refused = await graphql(meQuery, undefined, { authorization: `Bearer ${token}` });
      expect([refused.status, refused.body.errors?.[0]?.extensions?.code], token.slice(0, 20)).toEqual([401, 'UNAUTHENTICATED']);
    }
  });
});

describe('admission by invitation', () => {
  it('an invited address that signs up and verifies joins, and can create API keys in its library', async () => {
    const tenant = await newTenant();
    const address = newAddress('invited');
    await ok(tenantHeaders(tenant), 'mutation($input: BulkInviteInput) { organization { bulkInvite(input: $input) { successful { email } } } }', {
      input: { emails: [address], orgRoleId: 'EDITOR' },
    });
    const session = await verifiedAccount(address, strongPassword());
    const headers = asSession(session, { 'x-organization': `@${tenant.organization.slug}`, 'x-library': tenant.library.path });
    expect((await ok(headers, meQuery)).user.me).toMatchObject({ permitted: true, hasOrganizations: true });
    const key = await ok(headers, 'mutation { apiKey { create(input: { name: "my laptop" }) { secret apiKey { ownerId } } } }');
    const viaKey = await ok({ 'x-api-key': key.apiKey.create.secret, 'x-organization': `@${tenant.organization.slug}`, 'x-library': tenant.library.path }, meQuery);
    expect(viaKey.user.me.user.primaryEmail).toBe(address);
  });
});

describe('admission by allowlist', () => {
  it('an allowlisted domain admits a verified address with the entry role, and nothing before verification', async () => {
    const tenant = await newTenant();
    const admin = tenantHeaders(tenant);
    const domain = `allow-${crypto.randomUUID().slice(0, 8)}.example.org`;
    // A domain entry must be a verified domain of the organization (crossTenantAdmission.test.ts).
    await verifyDomain(testStore(), tenant.organization.slug, domain);
    const added = await ok(admin, 'mutation($input: AllowlistEntryInput!) { organization { allowlist { add(input: $input) { entry roleId role { name } } } } }', {
      input: { entry: domain.toUpperCase(), roleId: 'EDITOR' },
    });
    expect(added.organization.allowlist.add).toEqual({ entry: `@${domain}`, roleId: 'EDITOR', role: { name: 'Editor' } });
    const again = await graphql('mutation { organization { allowlist { add(input: { entry: "@' + domain + '" }) { entry } } } }', undefined, admin);
    expect(again.body.errors?.[0]?.extensions?.code).toBe('ALREADY_EXISTS');

    const ip = freshClientIp();
    const address = `eve@${domain}`;
    await postAuth('/auth/signup', { email: address, password: strongPassword() }, ip);
    const members = async () => (await ok(admin, 'query { organization { members { user { primaryEmail } role } } }')).organization.members;
    expect((await members()).map((m: { user: { primaryEmail: string } }) => m.user.primaryEmail)).not.toContain(address);
    const verified = await postAuth('/auth/verify-email', { token: await emailedToken(address, '/verify-email') }, ip);
    expect(verified.status).toBe(200);
    expect(await members()).toContainEqual({ user: { primaryEmail: address }, role: 'EDITOR' });

    expect(await ok(admin, `mutation { organization { allowlist { remove(entry: "${domain}") } } }`)).toEqual({ organization: { allowlist: { remove: true } } });
    expect((await ok(admin, 'query { organization { allowlist { entry } } }')).organization.allowlist).toEqual([]);
  });
});

describe('rate limits per client IP', () => {
  it('a burst of 100 signups from one IP is slowed and then refused, while another IP is unaffected', async () => {
    const ip = freshClientIp();
    const burst = await Promise.all(Array.from({ length: 100 }, () => postAuth('/auth/signup', { email: newAddress('burst'), password: strongPassword() }, ip)));
    const accepted = burst.filter((r) => r.status === 202);
    const refused = burst.filter((r) => r.status === 429);
    expect(burst.filter((r) => r.status !== 202 && r.status !== 429).map((r) => `${r.status} ${r.raw}`)).toEqual([]);
    expect(accepted).toHaveLength(30);
    expect(refused[0]!.body).toEqual({ code: 'AUTH_RATE_LIMITED', message: expect.any(String) });
    expect(refused[0]!.headers['retry-after']).toMatch(/^\d+$/);
    // Past the budget of 10 the accepted ones were slowed: the slowest took well over the even response time.
    expect(Math.max(...accepted.map((r) => r.durationMs))).toBeGreaterThan(1500);
    // Another IP has a counter of its own: its first request counts 1 and is neither slowed nor refused.
    const calm = freshClientIp();
    const other = await postAuth('/auth/signup', { email: newAddress('calm'), password: strongPassword() }, calm);
    expect(other.status).toBe(202);
    const counter = await testStore().ddb.send(new GetCommand({ TableName: testStore().tableName, Key: { PK: `RATE#signup#${calm}`, SK: 'RATE' } }));
    const counts = Object.entries(counter.Item ?? {})
      .filter(([name]) => /^w\d+$/.test(name))
      .map(([, value]) => value);
    expect(counts).toEqual([1]);
  }, 60_000);
});
