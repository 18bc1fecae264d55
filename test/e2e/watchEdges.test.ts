import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { eventually } from '../support/webhooks.js';
import { memberWithRole, refusal } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/** Watches of targets deleted since, and a person's notifications through an API key of one of their organizations (found by probing from outside). */

const watchM = 'mutation($id: ID!) { watch(input: { targetId: $id }) { targetId } }';
const unwatchM = 'mutation($id: ID!) { unwatch(targetId: $id) }';
const watchingQ = '{ user { watching { targetId } } }';

describe('watch edges', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
  });

  it('ends the watch of a component deleted since (unwatch answered NOT_FOUND and the watch stayed listed)', async () => {
    const [part] = await createParts(tenant, ['Watched then deleted']);
    await ok(admin, watchM, { id: part!.id });
    await ok(admin, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [part!.id] });
    const targets = async () => ((await ok(admin, watchingQ)).user.watching as { targetId: string }[]).map((w) => w.targetId);
    expect(await targets()).toContain(part!.id);
    expect((await ok(admin, unwatchM, { id: part!.id })).unwatch).toBe(true);
    expect(await targets()).not.toContain(part!.id);
    // A target that never was, and never watched, is still NOT_FOUND.
    expect((await refusal(admin, unwatchM, { id: '00000000-0000-4000-8000-000000000000' })).code).toBe('NOT_FOUND');
  });

  it("holds an API key to its organization: a person's notifications and watches of another organization are neither read nor marked through it", async () => {
    // One person, Site Admin of two organizations, with a key in each.
    const email = `two-orgs-${randomUUID().slice(0, 8)}@example.com`;
    const [home, other] = [await newTenant({ plan: 'team', email }), await newTenant({ plan: 'team', email })];
    expect(home.user.id).toBe(other.user.id);
    const [homeKey, otherKey] = [tenantHeaders(home), tenantHeaders(other)];
    const [part] = await createParts(other, ['Watched elsewhere']);
    await ok(otherKey, watchM, { id: part!.id });
    const editor = await memberWithRole(other, 'EDITOR');
    await ok(editor.headers, 'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id } } }', { inputs: [{ id: part!.id, description: 'changed' }] });
    const notificationsQ = '{ user { notifications(unreadOnly: true) { edges { node { id organizationId } } } } }';
    const unread = async (headers: Record<string, string>) => (await ok(headers, notificationsQ)).user.notifications.edges.map((e: { node: { id: string; organizationId: string } }) => e.node);
    const told = await eventually(
      () => unread(otherKey),
      (nodes) => nodes.length > 0,
      'the notification of the other organization',
    );
    expect(told.every((n: { organizationId: string }) => n.organizationId === other.organization.id)).toBe(true);

    // Through the home organization's key: nothing of the other one, and nothing of it marked read.
    expect(await unread(homeKey)).toEqual([]);
    expect(((await ok(homeKey, watchingQ)).user.watching as { targetId: string }[]).map((w) => w.targetId)).not.toContain(part!.id);
    expect((await ok(homeKey, 'mutation($ids: [ID!]!) { markRead(ids: $ids) }', { ids: told.map((n: { id: string }) => n.id) })).markRead).toBe(0);
    expect((await ok(homeKey, 'mutation { markAllRead }')).markAllRead).toBe(0);
    expect(await unread(otherKey)).toEqual(told);
    // Through its own organization's key, as before.
    expect((await ok(otherKey, 'mutation { markAllRead }')).markAllRead).toBe(told.length);
  });

  it("refuses a person's mail setting to an integration's key of one of their organizations; their own key still sets it", async () => {
    const admin = tenantHeaders(tenant);
    const settingsQ = '{ user { notificationSettings { email } } }';
    const setM = 'mutation($email: NotificationEmailMode!) { setNotificationSettings(input: { email: $email }) { email } }';
    const integration = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id } } }', { input: { name: `Mail ${randomUUID().slice(0, 8)}` } }))
      .integration.create;
    const key = (await ok(admin, 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret } } }', { input: { name: 'connector', integrationId: integration.id } })).apiKey
      .create;
    const asIntegration = { ...admin, 'x-api-key': key.secret as string };
    expect((await ok(admin, setM, { email: 'EACH' })).setNotificationSettings.email).toBe('EACH');
    const refused = await refusal(asIntegration, setM, { email: 'DIGEST' });
    expect([refused.code, refused.error?.extensions?.reason]).toEqual(['FORBIDDEN', 'API_KEY_ROLE']);
    expect((await ok(admin, settingsQ)).user.notificationSettings.email).toBe('EACH');
    expect((await ok(admin, setM, { email: 'DIGEST' })).setNotificationSettings.email).toBe('DIGEST');
  });
});
