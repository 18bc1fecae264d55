import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { newSession, sessionPutItem } from '../../lib/people/sessions.js';
import { createComponents } from '../../lib/components/service.js';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { addMember } from '../../lib/orgs/operator.js';
import { plans } from '../../lib/orgs/plans.js';
import { federatedIdentityPut, getIdentity, getSession } from '../../lib/store/account.js';
import { sha256 } from '../../lib/people/sessions.js';
import { componentItem, getComponent, listComponents } from '../../lib/store/component.js';
import { historyItem, listComponentHistory } from '../../lib/store/componentHistory.js';
import { transactWrite } from '../../lib/store/items.js';
import { getMembership } from '../../lib/store/membership.js';
import { findUserIdByEmail, getUser } from '../../lib/store/user.js';
import { createApiKey } from '../../lib/apikeys/apiKeys.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import { readImportDirectory, writeExportDirectory } from '../../lib/transfer/files.js';
import { importLibrary } from '../../lib/transfer/import.js';
import { graphql, newTenant, tenantHeaders, testStore, uniqueSlug, type Tenant } from '../support/api.js';
import { memberWithRole, ok } from './accessHelpers.js';
import { freshClientIp, newAddress, postAuth, sessionFrom, strongPassword, verifiedAccount } from './accountHelpers.js';
import { seedContext } from './searchHelpers.js';
import { patchOp, scim, scimTenant, userSchema, type ScimTenant } from './scimHelpers.js';
import { newEmptyLibrary, stackFiles } from './transferHelpers.js';

const store = testStore();
const me = 'query { user { me { permitted hasOrganizations user { id name primaryEmail } } } }';
const current = '{ organization { current { id } } }';

/** A person of organization B who signs in with a password: B's Site Admin. */
interface Person {
  id: string;
  address: string;
  password: string;
}

/** A person who signed up (password) and verified their address. */
async function person(label: string, address = newAddress(label)): Promise<Person> {
  const password = strongPassword();
  await verifiedAccount(address, password);
  return { id: (await findUserIdByEmail(store, address))!, address, password };
}

async function signIn(who: Person) {
  const response = await postAuth('/auth/signin', { email: who.address, password: who.password }, freshClientIp());
  expect(response.status).toBe(200);
  return { cookie: `__Host-service_session=${sessionFrom(response)}`, 'x-csrf-token': response.body.csrfToken as string };
}

async function bearer(who: Person) {
  const response = await postAuth('/auth/token', { email: who.address, password: who.password }, freshClientIp());
  expect(response.status).toBe(200);
  return { authorization: `Bearer ${response.body.accessToken as string}` };
}

const inOrg = (tenant: Tenant, headers: Record<string, string>) => ({ ...headers, 'x-organization': `@${tenant.organization.slug}` });

/** Everything B's admin holds still works: password sign-in, the session and Bearer token from before, B's API key, user.me. */
async function expectUntouched(b: Tenant, admin: Person, held: { session: Record<string, string>; bearer: Record<string, string> }, name: string) {
  await ok(inOrg(b, held.session), current);
  await ok(inOrg(b, held.bearer), current);
  await ok(tenantHeaders(b), current);
  await ok(inOrg(b, await signIn(admin)), current);
  expect((await ok(held.session, me)).user.me).toEqual({ permitted: true, hasOrganizations: true, user: { id: admin.id, name, primaryEmail: admin.address } });
  expect((await getMembership(store, b.organization.id, admin.id, true))?.role).toBe('SITE_ADMIN');
}

describe("one organization's SCIM and another organization's people", () => {
  let a: ScimTenant;
  let b: Tenant;
  let admin: Person;
  let held: { session: Record<string, string>; bearer: Record<string, string> };
  let name: string;
  beforeAll(async () => {
    a = await scimTenant();
    admin = await person('b-admin');
    b = await newTenant({ email: admin.address });
    expect(b.user.id).toBe(admin.id);
    held = { session: await signIn(admin), bearer: await bearer(admin) };
    name = (await getUser(store, admin.id))!.name;
  });

  it("does not bind B's Site Admin, never answers B's account id, and cannot sign them out", async () => {
    const posted = await scim(a.token, 'POST', '/Users', {
      schemas: [userSchema],
      userName: admin.address,
      displayName: 'Mallory Impostor',
      emails: [{ value: admin.address, primary: true }],
    });
    expect(posted.status).toBe(201);
    expect(posted.body.id).not.toBe(admin.id);
    expect(JSON.stringify(posted.body)).not.toContain(admin.id);
    const id = posted.body.id as string;
    // A's SCIM user is an account of A's own, which does not hold B's admin's address.
    expect(await getUser(store, id)).toMatchObject({ emails: [], emailVerified: false });
    const listed = await scim(a.token, 'GET', '/Users');
    expect(JSON.stringify(listed.body)).not.toContain(admin.id);

    // A renames, deactivates and deletes its user: B's admin is untouched.
    expect((await scim(a.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'replace', path: 'displayName', value: 'Renamed by A' }] })).status).toBe(200);
    const deactivated = await scim(a.token, 'PATCH', `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(deactivated.status).toBe(200);
    expect(JSON.stringify(deactivated.body)).not.toContain(admin.id);
    await expectUntouched(b, admin, held, name);
    expect((await scim(a.token, 'DELETE', `/Users/${id}`)).status).toBe(204);
    await expectUntouched(b, admin, held, name);
    // A PUT and a POST of the same address again bind nothing either.
    const again = await scim(a.token, 'POST', '/Users', { schemas: [userSchema], userName: `again.${admin.address}`, emails: [{ value: admin.address }] });
    expect(again.body.id).not.toBe(admin.id);
  });

  it('binds a member of A legitimately, and deprovisioning ends only what A granted', async () => {
    // B's admin is also a member of A (invited there): A's IdP may provision them.
    await addMember(store, { orgSlug: a.tenant.organization.slug, email: admin.address, role: 'EDITOR' });
    // A session A's SAML sign-in opened, and a federated identity of A's IdP: A's to end.
    const ssoSession = newSession(admin.id, new Date().toISOString(), a.tenant.organization.id);
    const sub = randomUUID();
    await transactWrite(store, [
      sessionPutItem(ssoSession),
      federatedIdentityPut(sub, admin.id, { providerName: `p-${a.tenant.organization.id.slice(0, 8)}`, organizationId: a.tenant.organization.id, domain: `${a.tenant.organization.slug}.test` }),
    ]);

    const posted = await scim(a.token, 'POST', '/Users', { schemas: [userSchema], userName: `member.${randomUUID().slice(0, 6)}`, emails: [{ value: admin.address, primary: true }] });
    expect(posted).toMatchObject({ status: 201, body: { id: admin.id } });
    expect((await scim(a.token, 'PATCH', `/Users/${admin.id}`, { schemas: [patchOp], Operations: [{ op: 'replace', value: { active: false } }] })).status).toBe(200);
    expect(await getMembership(store, a.tenant.organization.id, admin.id, true)).toBeUndefined();
    expect(await getSession(store, sha256(ssoSession.cookieValue))).toBeUndefined();
    expect((await getIdentity(store, sub))?.tokensValidAfter).toEqual(expect.any(Number));
    await expectUntouched(b, admin, held, name);
    expect((await scim(a.token, 'DELETE', `/Users/${admin.id}`)).status).toBe(204);
    await expectUntouched(b, admin, held, name);
  });

  it('binds an account whose verified address is in a domain A verified', async () => {
    const address = `engineer.${randomUUID().slice(0, 8)}@${a.tenant.organization.slug}.test`;
    const engineer = await person('engineer', address);
    const posted = await scim(a.token, 'POST', '/Users', { schemas: [userSchema], userName: address, emails: [{ value: address, primary: true }] });
    expect(posted).toMatchObject({ status: 201, body: { id: engineer.id } });
  });
});

describe("an import naming another tenant's users", () => {
  let a: Tenant;
  let b: Tenant;
  let bAdminEmail: string;
  const createdByQuery = 'query($id: ID!) { component { findOne(id: $id) { createdBy { id name primaryEmail } updatedBy { id } history { user { id primaryEmail } } } } }';
  beforeAll(async () => {
    [a, b] = await Promise.all([newTenant(), newTenant()]);
    bAdminEmail = b.user.email;
  });

  it("resolves no user reference to B's people: the import maps them to the importer", async () => {
    // An export of A's own library, rewritten to name B's Site Admin as every author (the file is A's to write).
    const ctx = await seedContext(store, a, new Date().toISOString());
    await createComponents(store, ctx, [{ name: 'Forged authorship', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 1 }] }]);
    const exported = await exportLibrary(store, { organizationId: a.organization.id, libraryId: a.library.id });
    const forged = {
      ...exported,
      components: exported.components.map((c) => ({ ...c, createdBy: b.user.id, updatedBy: b.user.id, history: c.history.map((h) => ({ ...h, by: b.user.id })) })),
    };
    const directory = await mkdtemp(join(tmpdir(), 'plm-forged-'));
    await writeExportDirectory(directory, forged, stackFiles());
    const target = await newEmptyLibrary(store, a, uniqueSlug('imp'));
    await importLibrary(store, target.ref, await readImportDirectory(directory), {
      actor: { userId: a.user.id, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() },
      entitlements: plans.enterprise,
      blobs: stackFiles(),
    });
    const key = await createApiKey(store, { ...target.ref, userId: a.user.id }, { name: 'reader' });
    const headers = { 'x-api-key': key.secret, 'x-organization': a.organization.id, 'x-library': target.ref.libraryId };
    const ids = (await listComponents(store, target.ref.organizationId, target.ref.libraryId)).map((c) => c.id);
    expect(ids).toHaveLength(1);
    const read = await graphql(createdByQuery, { id: ids[0] }, headers);
    expect(read.body.errors).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(b.user.id);
    expect(JSON.stringify(read.body)).not.toContain(bAdminEmail);
    expect(read.body.data).toEqual({
      component: {
        findOne: {
          createdBy: { id: a.user.id, name: expect.any(String), primaryEmail: a.user.email },
          updatedBy: { id: a.user.id },
          history: [{ user: { id: a.user.id, primaryEmail: a.user.email } }],
        },
      },
    });
  });

  it("resolves a reference already stored to B's Site Admin as nobody (data imported before the fix)", async () => {
    const ctx = await seedContext(store, a, new Date().toISOString());
    const [component] = await createComponents(store, ctx, [{ name: 'Stored foreign author', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 2 }] }]);
    // Rewrite the stored component and its history as an old import left them.
    const stored = (await getComponent(store, a.organization.id, a.library.id, component!.id, true))!;
    const history = await listComponentHistory(store, a.organization.id, a.library.id, component!.id, 10);
    await transactWrite(store, [
      { Put: { Item: componentItem({ ...stored, createdBy: b.user.id, updatedBy: b.user.id }) } },
      ...history.map((h) => ({ Put: { Item: historyItem(a.organization.id, a.library.id, { ...h, by: b.user.id }) } })),
    ]);
    const read = await graphql(createdByQuery, { id: component!.id }, tenantHeaders(a));
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toEqual({ component: { findOne: { createdBy: null, updatedBy: null, history: [{ user: null }] } } });
    // B's side: B's admin still reads themselves as before.
    expect((await ok(tenantHeaders(b), me)).user.me.user).toMatchObject({ id: b.user.id, primaryEmail: bAdminEmail });
  });

  it('still resolves a former member of the organization', async () => {
    const leaver = await memberWithRole(a, 'EDITOR');
    const ctx = { ...(await seedContext(store, a, new Date().toISOString())), userId: leaver.userId };
    const [component] = await createComponents(store, ctx, [{ name: 'By a leaver', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 3 }] }]);
    await ok(tenantHeaders(a), 'mutation($u: String!) { organization { membership { removeOrgRole(userId: $u) } } }', { u: leaver.userId });
    expect(await getMembership(store, a.organization.id, leaver.userId, true)).toBeUndefined();
    const read = await ok(tenantHeaders(a), createdByQuery, { id: component!.id });
    expect(read.component.findOne.createdBy).toEqual({ id: leaver.userId, name: expect.any(String), primaryEmail: leaver.email });
  });
});

describe('a SUPPLIER and the people behind the data', () => {
  it('reads the names of createdBy and history users, not their addresses (FORBIDDEN on primaryEmail and emails)', async () => {
    const t = await newTenant();
    const supplier = await memberWithRole(t, 'SUPPLIER');
    const [component] = await createComponents(store, await seedContext(store, t, new Date().toISOString()), [
      { name: 'Supplied part', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 4 }] },
    ]);
    const names = await ok(supplier.headers, 'query($id: ID!) { component { findOne(id: $id) { createdBy { id name firstName lastName } history { user { id name } } } } }', { id: component!.id });
    expect(names.component.findOne.createdBy).toMatchObject({ id: t.user.id, name: expect.any(String) });
    expect(names.component.findOne.history).toEqual([{ user: { id: t.user.id, name: expect.any(String) } }]);

    for (const field of ['primaryEmail', 'emails']) {
      const read = await graphql(`query($id: ID!) { component { findOne(id: $id) { name createdBy { name ${field} } history { user { ${field} } } } } }`, { id: component!.id }, supplier.headers);
      expect(JSON.stringify(read.body)).not.toContain(t.user.email);
      expect(read.body.errors?.map((error) => [error.extensions?.code, error.extensions?.requiredPermission, error.path?.at(-1)])).toEqual([
        ['FORBIDDEN', 'organization.users.read', field],
        ['FORBIDDEN', 'organization.users.read', field],
      ]);
      // The reference is withheld (nullable); the rest of the answer stands.
      expect(read.body.data).toEqual({ component: { findOne: { name: 'Supplied part', createdBy: null, history: [{ user: null }] } } });
    }
    // A SUPPLIER still reads their own address, and a VIEWER reads the author's.
    expect((await ok(supplier.headers, me)).user.me.user.primaryEmail).toBe(supplier.email);
    const viewer = await memberWithRole(t, 'VIEWER');
    expect((await ok(viewer.headers, 'query($id: ID!) { component { findOne(id: $id) { createdBy { primaryEmail } } } }', { id: component!.id })).component.findOne.createdBy.primaryEmail).toBe(
      t.user.email,
    );
  });
});
