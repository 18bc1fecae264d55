import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ok } from './accessHelpers.js';
import { enterpriseSchema, errorSchema, groupSchema, listSchema, patchOp, scim, scimTenant, scimUrl, userSchema, type ScimTenant } from './scimHelpers.js';

const newUser = async (t: ScimTenant, extra: Record<string, unknown> = {}) => {
  const created = await scim(t.token, 'POST', '/Users', { schemas: [userSchema], userName: `u.${randomUUID().slice(0, 8)}@acme.test`, ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; userName: string } & Record<string, unknown>;
};
const patch = (t: ScimTenant, path: string, Operations: unknown) => scim(t.token, 'PATCH', path, { schemas: [patchOp], Operations });

/**
 * scim-patch 0.8.3 (GHSA-9m6g-wc8r-q59c, GHSA-2mhw-wcx5-v3xj) walked PATCH paths into Object.prototype: one
 * organization's token polluted the process, and every later DynamoDB read of every tenant failed (500).
 */
describe('SCIM PATCH cannot reach an object prototype (one tenant cannot break the others)', () => {
  let attacker: ScimTenant;
  let victim: ScimTenant;
  beforeAll(async () => {
    [attacker, victim] = await Promise.all([scimTenant(), scimTenant()]);
  });

  it('refuses __proto__, constructor and prototype in paths and values with 400, and the other organization still answers 200', async () => {
    const { id } = await newUser(attacker);
    const victimUser = await newUser(victim, { displayName: 'Victim' });
    const attacks: [string, unknown[]][] = [
      ['invalidPath', [{ op: 'replace', path: '__proto__.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'add', path: '__proto__.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'toString.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'constructor.prototype.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'add', path: 'name.__proto__.polluted', value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'emails[type eq "work"].__proto__', value: { polluted: 'x' } }]],
      ['invalidPath', [{ op: 'replace', path: `${enterpriseSchema}:__proto__.polluted`, value: 'x' }]],
      ['invalidPath', [{ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:constructor.prototype.polluted', value: 'x' }]],
      ['invalidValue', [{ op: 'replace', value: JSON.parse('{"__proto__":{"polluted":"x"}}') }]],
      ['invalidValue', [{ op: 'add', value: { constructor: { prototype: { polluted: 'x' } } } }]],
      ['invalidValue', [{ op: 'replace', path: 'name', value: JSON.parse('{"givenName":"A","__proto__":{"polluted":"x"}}') }]],
      ['invalidValue', [{ op: 'add', path: 'emails', value: [JSON.parse('{"value":"a@b.test","__proto__":{"polluted":"x"}}')] }]],
    ];
    const answers = [];
    for (const [, Operations] of attacks) answers.push(await patch(attacker, `/Users/${id}`, Operations));
    // The same process still serves the other organization, whose reads go through DynamoDB (the marshaller
    // fails on a polluted Object.prototype: "Unsupported type passed").
    const read = await scim(victim.token, 'GET', `/Users/${victimUser.id}`);
    expect(read).toMatchObject({ status: 200, body: { id: victimUser.id, displayName: 'Victim' } });
    expect(read.body).not.toHaveProperty('polluted');
    expect((await scim(victim.token, 'GET', '/Users')).status).toBe(200);
    expect((await patch(victim, `/Users/${victimUser.id}`, [{ op: 'replace', path: 'displayName', value: 'Still here' }])).body.displayName).toBe('Still here');
    const org = await ok(victim.admin, '{ organization { current { id } } }');
    expect(org.organization.current.id).toBe(victim.tenant.organization.id);
    // A fresh object made by the stack carries no inherited `polluted` (a list response's keys are its own).
    const list = await scim(victim.token, 'GET', `/Users?filter=${encodeURIComponent('polluted eq "x"')}`);
    expect(list).toMatchObject({ status: 200, body: { schemas: [listSchema], totalResults: 0 } });
    // Each attack was refused, not applied.
    for (const [index, [scimType, Operations]] of attacks.entries()) {
      expect(answers[index]!.status, JSON.stringify(Operations)).toBe(400);
      expect(answers[index]!.body, JSON.stringify(Operations)).toMatchObject({ schemas: [errorSchema], status: '400', scimType });
    }
    // The raw body text too: JSON.parse makes "__proto__" an own key, which a naive merge would follow.
    const raw = await scim(attacker.token, 'PATCH', `/Users/${id}`, `{"schemas":["${patchOp}"],"Operations":[{"op":"add","value":{"name":{"__proto__":{"polluted":"x"}}}}]}`);
    expect(raw).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    // Group PATCH and POST/PUT bodies are checked the same way.
    const group = await scim(attacker.token, 'POST', '/Groups', { schemas: [groupSchema], displayName: `G ${randomUUID().slice(0, 6)}` });
    expect((await patch(attacker, `/Groups/${group.body.id}`, [{ op: 'replace', path: '__proto__.polluted', value: 'x' }])).body).toMatchObject({ scimType: 'invalidPath' });
    expect((await patch(attacker, `/Groups/${group.body.id}`, [{ op: 'add', path: 'members', value: [JSON.parse('{"value":"x","__proto__":{"polluted":"x"}}')] }])).body).toMatchObject({ scimType: 'invalidValue' });
    const hostilePost = `{"schemas":["${userSchema}"],"userName":"p.${randomUUID().slice(0, 8)}@acme.test","name":{"constructor":{"prototype":{"polluted":"x"}}}}`;
    expect(await scim(attacker.token, 'POST', '/Users', hostilePost)).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    const hostilePut = `{"schemas":["${userSchema}"],"userName":"x@acme.test","${enterpriseSchema}":{"__proto__":{"polluted":"x"}}}`;
    expect(await scim(attacker.token, 'PUT', `/Users/${id}`, hostilePut)).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });

    // And the attacker's user is as it was.
    expect((await scim(attacker.token, 'GET', `/Users/${id}`)).body).not.toHaveProperty('polluted');
  });
});
