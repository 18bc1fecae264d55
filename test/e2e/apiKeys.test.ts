import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { sha256Hex } from '../support/files.js';

const create = 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret apiKey { id name prefix status libraryId ownerId expiresAt } } } }';
const rotate = 'mutation($id: ID!) { apiKey { rotate(input: { id: $id }) { secret apiKey { id rotatedAt status } } } }';
const deactivate = 'mutation($id: ID!) { apiKey { deactivate(input: { id: $id }) { id status revokedAt } } }';
const whoAmI = '{ user { me { user { id } } } }';

type Issued = { apiKey: { create: { secret: string; apiKey: { id: string; name: string; prefix: string; status: string; libraryId: string; ownerId: string } } } };

describe('API keys', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
  });

  async function issue(name: string, expiresAt?: string) {
    return (await gqlOk<Issued>(tenant, create, { input: { name, ...(expiresAt ? { expiresAt } : {}) } })).apiKey.create;
  }

  it('creates a key for the library in x-library that acts as its owner there', async () => {
    const issued = await issue('ci');
    expect(issued.secret).toMatch(/^plm_[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{64}$/);
    expect(issued.apiKey).toMatchObject({ name: 'ci', status: 'ACTIVE', libraryId: tenant.library.id, ownerId: tenant.user.id });
    expect(issued.secret.startsWith(issued.apiKey.prefix)).toBe(true);
    const me = await graphql<{ user: { me: { user: { id: string } } } }>(whoAmI, undefined, { 'x-api-key': issued.secret });
    expect(me.body.data?.user.me.user.id).toBe(tenant.user.id);
  });

  it('stores only the SHA-256 of the secret', async () => {
    const issued = await issue('hashed');
    // Every item of the tenant (its organization and library partitions) and the key's lookup item:
    // the secret appears nowhere; its hash is the lookup key.
    const store = testStore();
    const hash = sha256Hex(issued.secret);
    const items: Record<string, unknown>[] = [];
    for (const pk of [`ORG#${tenant.organization.id}`, `ORG#${tenant.organization.id}#LIB#${tenant.library.id}`, `APIKEYHASH#${hash}`]) {
      const page = await store.ddb.send(new QueryCommand({ TableName: store.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }));
      items.push(...(page.Items ?? []));
    }
    expect(JSON.stringify(items)).not.toContain(issued.secret);
    expect(items.filter((item) => item.entity === 'ApiKey').length).toBeGreaterThanOrEqual(2);
    expect(items.some((item) => item.PK === `APIKEYHASH#${hash}` && item.keyId === issued.apiKey.id)).toBe(true);
  });

  it('lists the caller keys without secrets, and finds one by id', async () => {
    const issued = await issue('listed');
    const { apiKey } = await gqlOk<{ apiKey: { findAllForUser: { id: string; name: string }[]; findOneForUser: { name: string } | null } }>(
      tenant,
      'query($id: ID!) { apiKey { findAllForUser { id name } findOneForUser(input: { id: $id }) { name } } }',
      { id: issued.apiKey.id },
    );
    expect(apiKey.findAllForUser.map((k) => k.name)).toEqual(expect.arrayContaining(['bootstrap', 'listed']));
    expect(apiKey.findOneForUser).toEqual({ name: 'listed' });
  });

  it('rotates: the new secret works at once and the old one gets 401', async () => {
    const issued = await issue('rotating');
    const { apiKey } = await gqlOk<{ apiKey: { rotate: { secret: string; apiKey: { id: string; rotatedAt: string; status: string } } } }>(tenant, rotate, {
      id: issued.apiKey.id,
    });
    expect(apiKey.rotate.apiKey).toMatchObject({ id: issued.apiKey.id, status: 'ACTIVE', rotatedAt: expect.any(String) });
    expect(apiKey.rotate.secret).not.toBe(issued.secret);
    expect((await graphql(whoAmI, undefined, { 'x-api-key': issued.secret })).status).toBe(401);
    expect((await graphql(whoAmI, undefined, { 'x-api-key': apiKey.rotate.secret })).status).toBe(200);
  });

  it('revokes: requests with the key get 401, and revoking again is harmless', async () => {
    const issued = await issue('revoked');
    const headers = { ...tenantHeaders(tenant), 'x-api-key': issued.secret };
    expect((await graphql('{ libraries { id } }', undefined, headers)).status).toBe(200);
    const { apiKey } = await gqlOk<{ apiKey: { deactivate: { status: string; revokedAt: string } } }>(tenant, deactivate, { id: issued.apiKey.id });
    expect(apiKey.deactivate).toMatchObject({ status: 'REVOKED', revokedAt: expect.any(String) });
    const refused = await graphql('{ libraries { id } }', undefined, headers);
    expect(refused.status).toBe(401);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const again = await gqlOk<{ apiKey: { deactivate: { status: string } } }>(tenant, deactivate, { id: issued.apiKey.id });
    expect(again.apiKey.deactivate.status).toBe('REVOKED');
    const rotated = await graphql(rotate, { id: issued.apiKey.id }, tenantHeaders(tenant));
    expect(rotated.body.errors?.[0]?.extensions?.code).toBe('API_KEY_REVOKED');
  });

  it('refuses an expired key with 401', async () => {
    // Five seconds of life: a busy machine took longer than 1.5 s between the key's creation and its first use.
    const expiresAt = Date.now() + 5000;
    const issued = await issue('short-lived', new Date(expiresAt).toISOString());
    expect((await graphql(whoAmI, undefined, { 'x-api-key': issued.secret })).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 100));
    expect((await graphql(whoAmI, undefined, { 'x-api-key': issued.secret })).status).toBe(401);
  });

  it('refuses an empty name and an expiry in the past', async () => {
    const empty = await graphql(create, { input: { name: '  ' } }, tenantHeaders(tenant));
    expect(empty.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const past = await graphql(create, { input: { name: 'x', expiresAt: '2001-01-01T00:00:00Z' } }, tenantHeaders(tenant));
    expect(past.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('does not let another organization see or touch the key', async () => {
    const issued = await issue('private');
    const stranger = await newTenant();
    const found = await gqlOk<{ apiKey: { findOneForUser: unknown } }>(stranger, 'query($id: ID!) { apiKey { findOneForUser(input: { id: $id }) { id } } }', {
      id: issued.apiKey.id,
    });
    expect(found.apiKey.findOneForUser).toBeNull();
    const revoke = await graphql(deactivate, { id: issued.apiKey.id }, tenantHeaders(stranger));
    expect(revoke.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await graphql(whoAmI, undefined, { 'x-api-key': issued.secret })).status).toBe(200);
  });
});
