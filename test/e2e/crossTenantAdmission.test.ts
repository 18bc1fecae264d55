import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../lib/orgs/operator.js';
import { allowlistPut } from '../../lib/store/allowlist.js';
import { transactWrite } from '../../lib/store/items.js';
import { getMembership } from '../../lib/store/membership.js';
import { findUserIdByEmail } from '../../lib/store/user.js';
import { graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { grantMembership } from '../../lib/orgs/members.js';
import { mailTo, memberWithRole, ok } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';
import { emailedToken, freshClientIp, postAuth, sessionFrom, strongPassword, verifiedAccount } from './accountHelpers.js';
import { scim, scimTenant, userSchema, verifiedDomainOf } from './scimHelpers.js';

/**
 * Admission seen from the other tenant's side: what organization A's allowlist and invitations can do to a
 * person organization B relies on (B's people at B's verified domain).
 */
const store = testStore();
const addEntry = 'mutation($entry: String!) { organization { allowlist { add(input: { entry: $entry, roleId: "VIEWER" }) { entry } } } }';

/** One of B's people: an account at B's verified domain, verified, a member of B. */
async function personOfB(b: Tenant, domain: string) {
  const address = `engineer.${randomUUID().slice(0, 8)}@${domain}`;
  await verifiedAccount(address, strongPassword());
  await addMember(store, { orgSlug: b.organization.slug, email: address, role: 'EDITOR' });
  return { id: (await findUserIdByEmail(store, address))!, address };
}

/** A password reset carried out to the end by the person. */
async function resetPassword(address: string) {
  const ip = freshClientIp();
  expect((await postAuth('/auth/password-reset/request', { email: address }, ip)).status).toBe(202);
  const completed = await postAuth('/auth/password-reset/complete', { token: await emailedToken(address, '/reset-password'), password: strongPassword() }, ip);
  expect(completed.status).toBe(200);
}

describe("one organization's allowlist and another organization's domain", () => {
  let a: Tenant;
  let b: Tenant;
  let bDomain: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([newTenant(), newTenant()]);
    bDomain = await verifiedDomainOf(b);
  });

  it("refuses a domain entry for a domain A has not verified: B's domain, or anyone's", async () => {
    for (const entry of [`@${bDomain}`, bDomain, `@unverified-${randomUUID().slice(0, 8)}.example.org`]) {
      const refused = await graphql(addEntry, { entry }, tenantHeaders(a));
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'ALLOWLIST_DOMAIN_NOT_VERIFIED', field: 'input.entry' });
    }
    expect((await ok(tenantHeaders(a), 'query { organization { allowlist { entry } } }')).organization.allowlist).toEqual([]);
    // A's own verified domain is A's to allowlist.
    const aDomain = await verifiedDomainOf(a);
    expect((await ok(tenantHeaders(a), addEntry, { entry: aDomain })).organization.allowlist.add).toEqual({ entry: `@${aDomain}` });
  });

  it("admits none of B's people through an entry for B's domain stored before the rule (a reset, a new signup)", async () => {
    a = await newTenant();
    await transactWrite(store, [allowlistPut({ organizationId: a.organization.id, entry: `@${bDomain}`, roleId: 'VIEWER', createdAt: new Date().toISOString(), createdBy: a.user.id })]);
    const engineer = await personOfB(b, bDomain);
    await resetPassword(engineer.address);
    expect(await getMembership(store, a.organization.id, engineer.id, true)).toBeUndefined();

    const newcomer = `newcomer.${randomUUID().slice(0, 8)}@${bDomain}`;
    await verifiedAccount(newcomer, strongPassword());
    expect(await getMembership(store, a.organization.id, (await findUserIdByEmail(store, newcomer))!, true)).toBeUndefined();
    // A's members list names neither of them.
    const members = JSON.stringify(await ok(tenantHeaders(a), 'query { organization { members { user { primaryEmail } } } }'));
    expect(members).not.toContain(engineer.address);
    expect(members).not.toContain(newcomer);
  });
});

describe("one organization's invitation and another organization's person resetting their password", () => {
  it("does not make B's member join A: a reset of a verified account accepts no invitation", async () => {
    const [a, b] = await Promise.all([newTenant(), newTenant()]);
    const engineer = await personOfB(b, await verifiedDomainOf(b));
    const invited = await ok(tenantHeaders(a), 'mutation($e: [String!]!) { organization { bulkInvite(input: { emails: $e }) { successful { invitation { id } } } } }', { e: [engineer.address] });
    const invitationId = invited.organization.bulkInvite.successful[0].invitation.id as string;
    await resetPassword(engineer.address);
    expect(await getMembership(store, a.organization.id, engineer.id, true)).toBeUndefined();
    const pending = await ok(tenantHeaders(a), 'query { organization { invitations { id status } } }');
    expect(pending.organization.invitations).toEqual([{ id: invitationId, status: 'PENDING' }]);
  });
});

describe("an API key of one organization and the person's other organizations", () => {
  it("reads neither B's invitations nor B as a sandbox parent through A's key; the person's session reads both", async () => {
    const a = await newTenant();
    const b = await newTenant({ email: a.user.email });
    expect(b.user.id).toBe(a.user.id);
    const c = await newTenant();
    const invited = await ok(tenantHeaders(c), 'mutation($e: [String!]!) { organization { bulkInvite(input: { emails: $e }) { successful { invitation { id } } } } }', { e: [a.user.email] });
    const invitationId = invited.organization.bulkInvite.successful[0].invitation.id as string;
    const standing = 'query { user { invitations { id organization { id name } } orgCreationOptions { canCreateSandbox sandboxParents { organization { id name } } } } }';

    // A's key (the person's, of A's library): A's own standing only.
    const viaKey = await ok(tenantHeaders(a), standing);
    expect(viaKey.user).toEqual({
      invitations: [],
      orgCreationOptions: { canCreateSandbox: true, sandboxParents: [{ organization: { id: a.organization.id, name: `Org ${a.organization.slug}` } }] },
    });
    expect(JSON.stringify(viaKey)).not.toContain(b.organization.id);
    expect(JSON.stringify(viaKey)).not.toContain(c.organization.id);

    // The person's own session: every organization of theirs.
    const password = strongPassword();
    await resetPasswordTo(a.user.email, password);
    const signedIn = await postAuth('/auth/signin', { email: a.user.email, password }, freshClientIp());
    const session = { cookie: `__Host-service_session=${sessionFrom(signedIn)}`, 'x-csrf-token': signedIn.body.csrfToken as string };
    const viaSession = await ok(session, standing);
    expect(viaSession.user.invitations).toEqual([{ id: invitationId, organization: { id: c.organization.id, name: `Org ${c.organization.slug}` } }]);
    expect(viaSession.user.orgCreationOptions.sandboxParents.map((p: { organization: { id: string } }) => p.organization.id).sort()).toEqual([a.organization.id, b.organization.id].sort());
  });
});

/** A password reset to a chosen password (an operator-made account's first one). */
async function resetPasswordTo(address: string, password: string) {
  const ip = freshClientIp();
  await postAuth('/auth/password-reset/request', { email: address }, ip);
  expect((await postAuth('/auth/password-reset/complete', { token: await emailedToken(address, '/reset-password'), password }, ip)).status).toBe(200);
}

describe("one organization's SCIM user at another organization's address, and mail", () => {
  it("mails nothing to an address the account never verified: A's mention of its SCIM user does not reach B's admin", async () => {
    const [a, b] = await Promise.all([scimTenant(), newTenant()]);
    const victim = b.user.email;
    const posted = await scim(a.token, 'POST', '/Users', { schemas: [userSchema], userName: victim, displayName: 'Not B Admin', emails: [{ value: victim, primary: true }] });
    expect(posted.status).toBe(201);
    const orphanId = posted.body.id as string;
    expect(orphanId).not.toBe(b.user.id);
    // A gives its SCIM user a role (as a pushed group with a role would) and so may mention it.
    await grantMembership(store, a.tenant.organization.id, orphanId, 'VIEWER');
    const colleague = await memberWithRole(a.tenant, 'VIEWER');
    const [part] = await createParts(a.tenant, ['Mentioned part']);
    const comment = 'mutation($input: CreateCommentInput!) { comments { create(input: $input) { id } } }';
    await ok(a.admin, comment, { input: { targetId: part!.id, body: `@[Someone](user:${orphanId}) please look at https://evil.example` } });
    // A later comment on the same target: once its mention mail arrived, the first one's was sent (the stream keeps order).
    await ok(a.admin, comment, { input: { targetId: part!.id, body: `@[Colleague](user:${colleague.userId}) marker` } });
    for (let attempt = 0; !(await mailTo(colleague.email)).some((m) => m.subject === 'You were mentioned'); attempt += 1) {
      if (attempt > 150) throw new Error('the mention mail never arrived');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await mailTo(victim)).filter((m) => m.subject === 'You were mentioned')).toEqual([]);
  });
});
