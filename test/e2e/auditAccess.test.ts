import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listAuditEntries, type AuditEntryRecord } from '../../lib/store/audit.js';
import { findUserIdByEmail } from '../../lib/store/user.js';
import { testStore } from '../support/api.js';
import { freshClientIp, newAddress, postAuth, sessionFrom, strongPassword, verifiedAccount } from './accountHelpers.js';
import { scim, scimTenant } from './scimHelpers.js';

async function entriesOf(chainPk: string, operation: string): Promise<AuditEntryRecord[]> {
  return (await listAuditEntries(testStore(), chainPk)).filter((entry) => entry.operation === operation);
}

describe('audit of the SCIM and account routes', () => {
  it('a SCIM write records one entry with the token as actor; a refused one DENIED or FAILED with its code only; reads none', { timeout: 60_000 }, async () => {
    const { tenant, token, tokenId } = await scimTenant();
    const chain = `ORG#${tenant.organization.id}#AUDIT`;
    const userName = `scim-${Date.now()}@${tenant.organization.slug}.test`;
    const created = await scim(token, 'POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName, active: true, name: { givenName: 'Ada', familyName: 'Audit' } });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const patched = await scim(token, 'PATCH', `/Users/${id}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] });
    expect(patched.status).toBe(200);
    const [patch] = await entriesOf(chain, 'scim.PATCH /Users');
    expect(patch).toMatchObject({ actorType: 'scimToken', actorId: tokenId, targets: [id], result: 'SUCCESS' });
    expect(await entriesOf(chain, 'scim.POST /Users')).toMatchObject([{ actorType: 'scimToken', result: 'SUCCESS' }]);

    // A second user with the same userName: refused 409 uniqueness, FAILED with the code, no body value.
    const again = await scim(token, 'POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName, active: true });
    expect(again.status).toBe(409);
    const posts = await entriesOf(chain, 'scim.POST /Users');
    const refused = posts.find((entry) => entry.result !== 'SUCCESS');
    expect(refused).toMatchObject({ result: 'FAILED', errorCode: 'SCIM_UNIQUENESS', actorId: tokenId });
    expect(JSON.stringify(posts)).not.toContain(userName);

    const missing = await scim(token, 'DELETE', '/Users/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(await entriesOf(chain, 'scim.DELETE /Users')).toMatchObject([{ result: 'FAILED', errorCode: 'SCIM_404', targets: ['00000000-0000-4000-8000-000000000000'] }]);
    await scim(token, 'GET', '/Users');
    expect((await listAuditEntries(testStore(), chain)).filter((entry) => entry.operation.startsWith('scim.GET'))).toEqual([]);
  });

  it('a sign-in writes an entry in the person chain without the password or session; a failed one too', { timeout: 60_000 }, async () => {
    const address = newAddress('audited');
    const password = strongPassword();
    const ip = freshClientIp();
    await verifiedAccount(address, password, ip);
    const signedIn = await postAuth('/auth/signin', { email: address, password }, ip);
    expect(signedIn.status).toBe(200);
    const cookie = sessionFrom(signedIn);
    const wrong = await postAuth('/auth/signin', { email: address, password: `${password}x` }, ip);
    expect(wrong.status).toBe(401);
    const userId = await findUserIdByEmail(testStore(), address);
    const chain = `USER#${userId}#AUDIT`;
    const signins = await entriesOf(chain, 'account.signin');
    expect(signins.map((entry) => entry.result).sort()).toEqual(['DENIED', 'SUCCESS']);
    expect(signins.find((entry) => entry.result !== 'SUCCESS')!.errorCode).toMatch(/^[A-Z_]+$/);
    expect(await entriesOf(chain, 'account.verify-email')).toMatchObject([{ result: 'SUCCESS', actorId: userId }]);
    const all = JSON.stringify(await listAuditEntries(testStore(), chain));
    for (const secret of [password, `${password}x`, cookie, signedIn.body.csrfToken]) expect(all).not.toContain(secret);
  });

  it('a sign-in at an address nobody holds is recorded too, in the chain named by its hash, so both cost the same write', { timeout: 60_000 }, async () => {
    const address = newAddress('nobody');
    const password = strongPassword();
    const refused = await postAuth('/auth/signin', { email: address, password }, freshClientIp());
    expect(refused.status).toBe(401);
    const chain = `USER#address:${createHash('sha256').update(address.toLowerCase()).digest('hex')}#AUDIT`;
    const [entry] = await entriesOf(chain, 'account.signin');
    expect(entry).toMatchObject({ result: 'DENIED', actorType: 'anonymous' });
    const all = JSON.stringify(await listAuditEntries(testStore(), chain));
    expect(all).not.toContain(address);
    expect(all).not.toContain(password);
  });
});
