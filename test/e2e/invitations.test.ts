import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureUser } from '../../lib/orgs/operator.js';
import { getMembership } from '../../lib/store/membership.js';
import { newSession, sessionPutItem } from '../../lib/people/sessions.js';
import { transactWrite } from '../../lib/store/items.js';
import { userKey } from '../../lib/store/user.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { graphql, newTenant, ok, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { capacityOf } from './itemHelpers.js';
import { mailTo, memberWithRole, refusal } from './accessHelpers.js';

const invite = `mutation($input: BulkInviteInput) { organization { bulkInvite(input: $input) { successful { email invitation { id email roleId role { id } accepted status libraryRoles { libraryId roleId } invitedBy { id } organization { id } } } failed { email code message } } } }`;
const accept = `mutation($id: String!) { organization { acceptInvitation(id: $id) { organizationId role hasDirectOrgRole libraryAccess { libraryId roleId } } } }`;
const decline = `mutation($id: String!) { organization { declineInvitation(id: $id) } }`;
const listInvitations = `query($filter: InvitationFilterInput) { organization { invitations(filter: $filter) { id email status accepted } } }`;

const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@Example.com`;

/** The invitation id in the email the local stack captured for the address. */
async function invitationIdFromMail(address: string): Promise<string> {
  const mails = await mailTo(address);
  expect(mails.length).toBeGreaterThan(0);
  const mail = mails.at(-1)!;
  const link = /\/invitations\/([0-9a-f-]{36})/.exec(mail.text);
  expect(link, mail.text).not.toBeNull();
  return link![1]!;
}

describe('invitations', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  beforeAll(async () => {
    tenant = await newTenant();
    admin = tenantHeaders(tenant);
  });

  it("accepting by the matching verified address joins with the invitation's roles", async () => {
    // Someone who already has an account elsewhere, with a verified address.
    const elsewhere = await newTenant({ email: uniqueEmail('ada').toLowerCase() });
    const address = elsewhere.user.email;
    const sent = await ok(admin, invite, {
      input: { emails: [address.toUpperCase()], orgRoleId: 'EDITOR', libraryRoles: [{ libraryId: tenant.library.id, roleName: 'Reviewer' }] },
    });
    const entry = sent.organization.bulkInvite.successful[0];
    expect(entry).toMatchObject({ email: address, invitation: { email: address, roleId: 'EDITOR', role: { id: 'EDITOR' }, accepted: false, status: 'PENDING', invitedBy: { id: tenant.user.id } } });
    expect(entry.invitation.libraryRoles).toEqual([{ libraryId: tenant.library.id, roleId: 'LIBRARY_REVIEWER' }]);

    const id = await invitationIdFromMail(address);
    expect(id).toBe(entry.invitation.id);
    const mail = (await mailTo(address)).at(-1)!;
    expect(mail.subject).toContain(`Org ${tenant.organization.slug}`);

    const invitee = tenantHeaders(elsewhere);
    // The invitee lists invitations of other organizations with their own session; an API key of one
    // organization reads that organization's only (crossTenantAdmission.test.ts).
    const session = newSession(elsewhere.user.id);
    await transactWrite(testStore(), [sessionPutItem(session)]);
    const signedIn = { cookie: `__Host-service_session=${session.cookieValue}`, 'x-csrf-token': session.csrfToken };
    const mine = await ok(signedIn, 'query { user { invitations { id organization { id } } } }');
    expect(mine.user.invitations).toEqual([{ id, organization: { id: tenant.organization.id } }]);
    expect((await ok(invitee, 'query { user { invitations { id } } }')).user.invitations).toEqual([]);
    const joined = await ok(invitee, accept, { id });
    expect(joined.organization.acceptInvitation).toEqual({
      organizationId: tenant.organization.id,
      role: 'EDITOR',
      hasDirectOrgRole: true,
      libraryAccess: [{ libraryId: tenant.library.id, roleId: 'LIBRARY_REVIEWER' }],
    });
    expect((await ok(admin, listInvitations, { filter: { email: address } })).organization.invitations).toEqual([{ id, email: address, status: 'ACCEPTED', accepted: true }]);
    expect((await refusal(invitee, accept, { id })).code).toBe('INVITATION_NOT_PENDING');
    expect((await ok(signedIn, 'query { user { invitations { id } } }')).user.invitations).toEqual([]);
  });

  it("the invitee reads the inviter's name and primary address, not the inviter's other addresses", async () => {
    // The inviter has a second address; only the organization's user readers see it.
    const secondary = uniqueEmail('inviter-other').toLowerCase();
    await testStore().ddb.send(
      new UpdateCommand({
        TableName: testStore().tableName,
        Key: userKey(tenant.user.id),
        UpdateExpression: 'SET emails = list_append(emails, :more)',
        ExpressionAttributeValues: { ':more': [secondary] },
      }),
    );
    const elsewhere = await newTenant({ email: uniqueEmail('lin').toLowerCase() });
    await ok(admin, invite, { input: { emails: [elsewhere.user.email], orgRoleId: 'VIEWER' } });
    const session = newSession(elsewhere.user.id);
    await transactWrite(testStore(), [sessionPutItem(session)]);
    const signedIn = { cookie: `__Host-service_session=${session.cookieValue}`, 'x-csrf-token': session.csrfToken };
    const mine = await ok(signedIn, 'query { user { invitations { invitedBy { id name primaryEmail emails } } } }');
    expect(mine.user.invitations).toEqual([{ invitedBy: { id: tenant.user.id, name: expect.any(String), primaryEmail: tenant.user.email, emails: [tenant.user.email] } }]);
    // The organization's user readers see every address.
    const listed = await ok(admin, 'query($filter: InvitationFilterInput) { organization { invitations(filter: $filter) { invitedBy { emails } } } }', { filter: { email: elsewhere.user.email } });
    expect(listed.organization.invitations).toEqual([{ invitedBy: { emails: [tenant.user.email, secondary] } }]);
  });

  it('an invitation to another address is not consumed and stays open', async () => {
    const address = uniqueEmail('grace').toLowerCase();
    await ok(admin, invite, { input: { emails: [address], orgRoleId: 'VIEWER' } });
    const id = await invitationIdFromMail(address);
    const someoneElse = tenantHeaders(await newTenant());
    const refused = await refusal(someoneElse, accept, { id });
    expect(refused.code).toBe('INVITATION_NOT_FOR_YOU');
    expect((await refusal(someoneElse, decline, { id })).code).toBe('NOT_FOUND');
    expect((await ok(admin, listInvitations, { filter: { email: address } })).organization.invitations[0]).toMatchObject({ status: 'PENDING', accepted: false });
  });

  it('the invitee declines; a declined invitation cannot be accepted', async () => {
    const elsewhere = await newTenant({ email: uniqueEmail('linus').toLowerCase() });
    await ok(admin, invite, { input: { emails: [elsewhere.user.email], role: 'REVIEWER' } });
    const id = await invitationIdFromMail(elsewhere.user.email);
    const invitee = tenantHeaders(elsewhere);
    expect(await ok(invitee, decline, { id })).toEqual({ organization: { declineInvitation: true } });
    expect((await refusal(invitee, accept, { id })).code).toBe('INVITATION_NOT_PENDING');
    expect((await refusal(invitee, decline, { id })).code).toBe('INVITATION_NOT_PENDING');
    expect((await ok(admin, listInvitations, { filter: { status: 'DECLINED' } })).organization.invitations.map((i: { id: string }) => i.id)).toContain(id);
    expect(await getMembership(testStore(), tenant.organization.id, elsewhere.user.id)).toBeUndefined();
  });

  it('a new person with the invited verified address joins when their account is created', async () => {
    const address = uniqueEmail('new').toLowerCase();
    await ok(admin, invite, { input: { emails: [address], roleId: 'SUPPLIER' } });
    const { user, created } = await ensureUser(testStore(), address);
    expect(created).toBe(true);
    expect((await getMembership(testStore(), tenant.organization.id, user.id))?.role).toBe('SUPPLIER');
  });

  it('reports refused addresses, re-sends pending ones, and an administrator can revoke', async () => {
    const member = await memberWithRole(tenant, 'VIEWER');
    const pendingAddress = uniqueEmail('pending').toLowerCase();
    await ok(admin, invite, { input: { emails: [pendingAddress] } });
    const result = await ok(admin, invite, { input: { emails: ['not-an-address', member.email, pendingAddress] } });
    expect(result.organization.bulkInvite.failed.map((f: { code: string }) => f.code)).toEqual(['INVALID_EMAIL', 'ALREADY_MEMBER']);
    expect(result.organization.bulkInvite.successful.map((s: { email: string }) => s.email)).toEqual([pendingAddress]);
    expect(await mailTo(pendingAddress)).toHaveLength(2);
    const id = result.organization.bulkInvite.successful[0].invitation.id;
    expect(result.organization.bulkInvite.successful[0].invitation.roleId).toBe('VIEWER');
    expect(await ok(admin, decline, { id })).toEqual({ organization: { declineInvitation: true } });
  });

  it('checks roles and permissions', async () => {
    expect((await refusal(admin, invite, { input: { emails: ['a@example.com'], orgRoleId: 'NOPE' } })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(admin, invite, { input: { emails: ['a@example.com'], libraryRoles: [{ libraryId: tenant.library.id, roleName: 'Site Admin' }] } })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(admin, invite, {})).code).toBe('BAD_USER_INPUT');
    const editor = await memberWithRole(tenant, 'EDITOR');
    const refused = await refusal(editor.headers, invite, { input: { emails: ['a@example.com'] } });
    expect([refused.status, refused.code, refused.error?.extensions?.requiredPermission]).toEqual([403, 'FORBIDDEN', 'organization.users.invite']);
    const orgAdmin = await memberWithRole(tenant, 'ADMIN');
    const escalation = await refusal(orgAdmin.headers, invite, { input: { emails: ['b@example.com'], orgRoleId: 'SITE_ADMIN' } });
    expect([escalation.code, escalation.error?.extensions?.requiredPermission]).toEqual(['FORBIDDEN', 'integrations.configure']);
  });
  it('reads the inviters of a list of invitations together, not one read per invitation', async () => {
    const own = await newTenant();
    const second = await memberWithRole(own, 'ADMIN');
    const emails = (label: string, n: number) => Array.from({ length: n }, (_, i) => uniqueEmail(`${label}${i}`));
    const inviteBoth = async (n: number) => {
      await ok(tenantHeaders(own), invite, { input: { emails: emails('first', n), orgRoleId: 'VIEWER' } });
      await ok(second.headers, invite, { input: { emails: emails('second', n), orgRoleId: 'VIEWER' } });
    };
    const listed = async () => {
      const response = await graphql<any>('query { organization { invitations { id invitedBy { id emails } } } }', undefined, tenantHeaders(own));
      expect(response.body.errors).toBeUndefined();
      const invitations = response.body.data.organization.invitations as { invitedBy: { id: string } }[];
      expect(new Set(invitations.map((invitation) => invitation.invitedBy.id))).toEqual(new Set([own.user.id, second.userId]));
      return { requests: capacityOf(response).requests, count: invitations.length };
    };
    await inviteBoth(1);
    const two = await listed();
    await inviteBoth(5);
    const twelve = await listed();
    expect([two.count, twelve.count]).toEqual([2, 12]);
    // The inviters of a page are read in one BatchGetItem: ten invitations more cost no request more.
    expect(twelve.requests).toBe(two.requests);
  });
});
