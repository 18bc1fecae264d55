import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../lib/webhooks/signing.js';
import { eventually, webhookReceiver } from '../support/webhooks.js';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';

const createWebhook = 'mutation($input: CreateWebhookInput!) { webhooks { create(input: $input) { secret webhook { id url events enabled secretPrefix } } } }';
const deliveriesQuery = 'query { webhooks { findAll { id deliveries(first: 50) { eventType status attempts lastStatusCode lastError nextAttemptAt deliveredAt } } } }';
const allEvents = ['COMPONENT_CREATED', 'COMPONENT_UPDATED', 'COMPONENT_DELETED', 'COMPONENT_RELEASED', 'BOM_CHANGED', 'CHANGE_ORDER_TRANSITIONED'];

describe('webhooks', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let alice: Member;
  let bob: Member;
  let secret: string | undefined;
  const good = webhookReceiver(
    () => 204,
    () => secret,
  );

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    [alice, bob] = await Promise.all([memberWithRole(tenant, 'EDITOR'), memberWithRole(tenant, 'REVIEWER')]);
  });
  afterAll(() => good.server.close());

  it('delivers a signed event of every type; the receiver rejects a tampered signature', { timeout: 120_000 }, async () => {
    const created = (await ok(admin, createWebhook, { input: { url: await good.url(), events: allEvents } })).webhooks.create;
    secret = created.secret;
    expect(created.secret.startsWith(created.webhook.secretPrefix)).toBe(true);
    expect(created.webhook).toMatchObject({ enabled: true, events: allEvents });

    const part = (await ok(alice.headers, 'mutation { component { create(inputs: [{ name: "Hooked part", categoryId: "mechanical" }]) { id version } } }')).component.create[0];
    await ok(alice.headers, 'mutation($id: ID!) { component { update(inputs: [{ id: $id, description: "changed" }]) { id } } }', { id: part.id });
    const assembly = (
      await ok(alice.headers, 'mutation($child: ID!) { item { create(inputs: [{ name: "Hooked assembly", categoryId: "pcba", children: [{ childId: $child, quantity: 2 }] }]) { id } } }', {
        child: part.id,
      })
    ).item.create[0];
    const co = (
      await ok(alice.headers, 'mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { id } } }', {
        input: {
          name: 'Release hooked part',
          templateId: 'default-one-stage',
          componentIds: [part.id],
          values: { reason: 'x' },
          stages: [{ index: 0, reviewerIds: [bob.userId], approvalType: 'Minimum' }],
        },
      })
    ).changeOrders.create;
    await ok(alice.headers, 'mutation($id: ID!) { changeOrders { submit(id: $id) { status } } }', { id: co.id });
    await ok(bob.headers, 'mutation($id: ID!) { changeOrders { approve(id: $id) { status } } }', { id: co.id });
    const scrap = (await ok(alice.headers, 'mutation { component { create(inputs: [{ name: "Scrap", categoryId: "mechanical" }]) { id } } }')).component.create[0];
    await ok(admin, 'mutation($ids: [ID!]) { component { delete(ids: $ids) { deletedIds } } }', { ids: [scrap.id] });

    const types = ['component.created', 'component.updated', 'bom.changed', 'change_order.transitioned', 'component.released', 'component.deleted'];
    const payloads = () => good.received.map((r) => ({ ...(JSON.parse(r.body) as { id: string; type: string; data: any; libraryId: string }), verified: r.verified, headers: r.headers }));
    const all = await eventually(
      payloads,
      (list) => types.every((type) => list.some((p) => p.type === type)) && list.filter((p) => p.type === 'change_order.transitioned').length >= 3,
      'every event type',
    );
    expect(all.every((p) => p.verified)).toBe(true);
    expect(all.every((p) => p.libraryId === tenant.library.id && p.headers['x-plm-event-id'] === p.id && p.headers['x-plm-event-type'] === p.type)).toBe(true);
    const released = all.find((p) => p.type === 'component.released')!;
    expect(released.data).toMatchObject({ component: { id: part.id, state: 'RELEASED', revisionValue: 'B' }, fromRevision: 'A', toRevision: 'B' });
    expect(all.find((p) => p.type === 'bom.changed')!.data).toMatchObject({ assemblyId: assembly.id, bomVersion: 1, lineCount: 1, childIds: [part.id] });
    expect(all.find((p) => p.type === 'component.deleted')!.data.component.id).toBe(scrap.id);
    const transitions = all.filter((p) => p.type === 'change_order.transitioned').map((p) => [p.data.from?.status ?? null, p.data.to.status]);
    expect(transitions).toEqual(
      expect.arrayContaining([
        [null, 'DRAFT'],
        ['DRAFT', 'OPEN'],
        ['OPEN', 'CLOSED'],
      ]),
    );
    // The hold and release of the component by the change order (no new version) are not updates.
    expect(all.filter((p) => p.type === 'component.updated' && p.data.component.id === part.id)).toHaveLength(1);

    // Tampering: the same delivery with one byte of the body changed no longer verifies.
    const sample = good.received[0]!;
    const tampered = await fetch(await good.url().catch(() => `http://127.0.0.1:${(good.server.address() as AddressInfo).port}/hooks`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-plm-signature': String(sample.headers['x-plm-signature']) },
      body: sample.body.replace('"type":"', '"type":"x'),
    });
    expect(tampered.status).toBe(401);
    const log = (await ok(admin, deliveriesQuery)).webhooks.findAll[0].deliveries;
    expect(log.length).toBeGreaterThanOrEqual(types.length);
    expect(log.every((d: { status: string; attempts: number; lastStatusCode: number }) => d.status === 'DELIVERED' && d.attempts === 1 && d.lastStatusCode === 204)).toBe(true);
  });

  it('retries a failing receiver with backoff and records the failure; a receiver that recovers gets it delivered', { timeout: 120_000 }, async () => {
    // Slow to answer (longer than the test stack's 300 ms retry sweep): overlapping sweeps must still send each attempt once.
    const failing = webhookReceiver(
      () => 500,
      () => secrets.failing,
      { delayMs: 600 },
    );
    const flaky = webhookReceiver(
      (count) => (count === 1 ? 503 : 200),
      () => secrets.flaky,
    );
    const secrets: Record<string, string> = {};
    const one = (await ok(admin, createWebhook, { input: { url: await failing.url(), events: ['COMPONENT_CREATED'] } })).webhooks.create;
    secrets.failing = one.secret;
    const two = (await ok(admin, createWebhook, { input: { url: await flaky.url(), events: ['COMPONENT_CREATED'] } })).webhooks.create;
    secrets.flaky = two.secret;
    await ok(alice.headers, 'mutation { component { create(inputs: [{ name: "Retried part", categoryId: "mechanical" }]) { id } } }');
    const logOf = async (id: string) => (await ok(admin, deliveriesQuery)).webhooks.findAll.find((w: { id: string }) => w.id === id).deliveries;
    const failed = await eventually(
      () => logOf(one.webhook.id),
      (log) => log[0]?.status === 'FAILED',
      'the failing delivery to end FAILED',
    );
    expect(failed[0]).toMatchObject({ eventType: 'COMPONENT_CREATED', status: 'FAILED', attempts: 3, lastStatusCode: 500, lastError: 'HTTP 500', nextAttemptAt: null });
    expect(failing.received).toHaveLength(3);
    expect(failing.received.every((r) => r.verified)).toBe(true);
    // Every attempt carries the same event and delivery ids, signed anew.
    expect(new Set(failing.received.map((r) => r.headers['x-plm-delivery-id'])).size).toBe(1);
    const recovered = await eventually(
      () => logOf(two.webhook.id),
      (log) => log[0]?.status === 'DELIVERED',
      'the flaky delivery to succeed',
    );
    expect(recovered[0]).toMatchObject({ status: 'DELIVERED', attempts: 2, lastStatusCode: 200, lastError: null });
    failing.server.close();
    flaky.server.close();
  });

  it('delivers sourcing.changed for manufacturer part and quote writes, naming what changed', { timeout: 120_000 }, async () => {
    const secrets: Record<string, string> = {};
    const hooked = webhookReceiver(
      () => 204,
      () => secrets.sourcing,
    );
    const created = (await ok(admin, createWebhook, { input: { url: await hooked.url(), events: ['SOURCING_CHANGED'] } })).webhooks.create;
    secrets.sourcing = created.secret;
    const c = (await ok(alice.headers, 'mutation { component { create(inputs: [{ name: "Sourced part", categoryId: "mechanical" }]) { id } } }')).component.create[0];
    const vendor = async (kind: string, name: string) =>
      (await ok(admin, 'mutation($input: CreateVendorInput!) { vendorSourcing { createVendor(input: $input) { id } } }', { input: { kind, name } })).vendorSourcing.createVendor.id;
    const manufacturerId = await vendor('MANUFACTURER', 'Hooked Semi');
    const distributorId = await vendor('DISTRIBUTOR', 'Hooked Parts Co');
    const part = (
      await ok(alice.headers, 'mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { id } } }', {
        input: { componentId: c.id, manufacturerId, mpn: 'HK-1', approval: 'APPROVED' },
      })
    ).vendorSourcing.createPart;
    const quote = (
      await ok(alice.headers, 'mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { id } } }', {
        input: { componentId: c.id, partId: part.id, distributorId, currency: 'USD', unitPrice: 1.5 },
      })
    ).vendorSourcing.createQuote;
    const payloads = () => hooked.received.map((r) => ({ ...(JSON.parse(r.body) as { type: string; data: any }), verified: r.verified }));
    const all = await eventually(payloads, (list) => list.length >= 2, 'two sourcing.changed events');
    expect(all.every((p) => p.verified && p.type === 'sourcing.changed')).toBe(true);
    const byRev = [...all].sort((a, b) => a.data.rev - b.data.rev);
    expect(byRev[0]!.data).toMatchObject({ componentId: c.id, rev: 1, parts: { added: [part.id], updated: [], removed: [] }, quotes: { added: [] } });
    expect(byRev[1]!.data).toMatchObject({ componentId: c.id, rev: 2, parts: { added: [], updated: [], removed: [] }, quotes: { added: [quote.id] } });
    const log = (await ok(admin, deliveriesQuery)).webhooks.findAll.find((w: { id: string }) => w.id === created.webhook.id).deliveries;
    expect(log.map((d: { eventType: string }) => d.eventType)).toEqual(['SOURCING_CHANGED', 'SOURCING_CHANGED']);
    hooked.server.close();
  });

  it('resends a lost delivery (redeliver) and a window (replay) with the same event id and a new delivery id', { timeout: 120_000 }, async () => {
    const secrets: Record<string, string> = {};
    // A receiver that answers 204 but loses what it got (its queue crashed): it asks for the events again.
    const lossy = webhookReceiver(
      () => 204,
      () => secrets.lossy,
    );
    const created = (await ok(admin, createWebhook, { input: { url: await lossy.url(), events: ['COMPONENT_CREATED'] } })).webhooks.create;
    secrets.lossy = created.secret;
    const from = new Date(Date.now() - 1000).toISOString();
    await ok(alice.headers, 'mutation { component { create(inputs: [{ name: "Lost part", categoryId: "mechanical" }]) { id } } }');
    const logQuery = 'query { webhooks { findAll { id deliveries(first: 50) { id eventId status replayOf } } } }';
    const logOf = async () => (await ok(admin, logQuery)).webhooks.findAll.find((w: { id: string }) => w.id === created.webhook.id).deliveries;
    const [original] = await eventually(logOf, (log) => log[0]?.status === 'DELIVERED', 'the first delivery');
    await eventually(
      () => lossy.received.length,
      (n) => n === 1,
      'the first POST',
    );
    const first = lossy.received[0]!;
    expect(first.headers['x-plm-delivery-id']).toBe(original.id);

    const resend = (await ok(admin, 'mutation($id: ID!) { webhooks { redeliver(deliveryId: $id) { id eventId status replayOf } } }', { id: original.id })).webhooks.redeliver;
    expect(resend).toMatchObject({ eventId: original.eventId, status: 'PENDING', replayOf: original.id });
    expect(resend.id).not.toBe(original.id);
    await eventually(
      () => lossy.received.length,
      (n) => n === 2,
      'the redelivered POST',
    );
    const again = lossy.received[1]!;
    expect(again.verified).toBe(true);
    expect(again.headers['x-plm-event-id']).toBe(first.headers['x-plm-event-id']);
    expect(again.headers['x-plm-delivery-id']).toBe(resend.id);
    expect(again.body).toBe(first.body);
    await eventually(logOf, (log) => log.find((d: { id: string }) => d.id === resend.id)?.status === 'DELIVERED', 'the resend recorded DELIVERED');

    // A replay of the window resends the original only (not the earlier resend), once more with a new id.
    const replayMutation = 'mutation($webhookId: ID!, $from: DateTime!, $to: DateTime!) { webhooks { replay(webhookId: $webhookId, from: $from, to: $to) { id eventId replayOf } } }';
    const replayed = (await ok(admin, replayMutation, { webhookId: created.webhook.id, from, to: new Date().toISOString() })).webhooks.replay;
    expect(replayed).toHaveLength(1);
    expect(replayed[0]).toMatchObject({ eventId: original.eventId, replayOf: original.id });
    await eventually(
      () => lossy.received.length,
      (n) => n === 3,
      'the replayed POST',
    );
    expect(lossy.received[2]!.headers['x-plm-event-id']).toBe(first.headers['x-plm-event-id']);
    expect(lossy.received[2]!.headers['x-plm-delivery-id']).toBe(replayed[0].id);
    expect(new Set(lossy.received.map((r) => r.headers['x-plm-delivery-id'])).size).toBe(3);

    // An empty window resends nothing; a reversed one, an unknown delivery and a caller without the permission are refused.
    expect((await ok(admin, replayMutation, { webhookId: created.webhook.id, from: '2000-01-01T00:00:00Z', to: '2000-01-02T00:00:00Z' })).webhooks.replay).toEqual([]);
    expect((await refusal(admin, replayMutation, { webhookId: created.webhook.id, from: new Date().toISOString(), to: from })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(admin, 'mutation { webhooks { redeliver(deliveryId: "nope") { id } } }')).code).toBe('NOT_FOUND');
    const denied = await refusal(alice.headers, 'mutation($id: ID!) { webhooks { redeliver(deliveryId: $id) { id } } }', { id: original.id });
    expect(denied.error!.extensions).toMatchObject({ code: 'FORBIDDEN', requiredPermission: 'library.settings.update' });
    lossy.server.close();
  });

  it('validates receivers and needs library.settings.update; update, rotation and delete', async () => {
    expect((await refusal(admin, createWebhook, { input: { url: 'ftp://example.com/x', events: ['BOM_CHANGED'] } })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(admin, createWebhook, { input: { url: 'not a url', events: ['BOM_CHANGED'] } })).code).toBe('BAD_USER_INPUT');
    // The local stack allows loopback only (README): never the metadata service or another internal address.
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://2852039166/', 'http://[::ffff:169.254.169.254]/', 'http://10.0.0.1/x', 'http://[fd00::1]/x', 'http://0.0.0.0:9/x']) {
      expect((await refusal(admin, createWebhook, { input: { url, events: ['BOM_CHANGED'] } })).code, url).toBe('BAD_USER_INPUT');
    }
    expect((await refusal(admin, createWebhook, { input: { url: 'https://example.com/x', events: [] } })).code).toBe('BAD_USER_INPUT');
    const denied = await refusal(alice.headers, createWebhook, { input: { url: 'https://example.com/x', events: ['BOM_CHANGED'] } });
    expect(denied.error!.extensions).toMatchObject({ code: 'FORBIDDEN', requiredPermission: 'library.settings.update' });
    const { webhook, secret: first } = (await ok(admin, createWebhook, { input: { url: 'http://127.0.0.1:9/never', events: ['BOM_CHANGED'], enabled: false } })).webhooks.create;
    const updated = (
      await ok(admin, 'mutation($input: UpdateWebhookInput!) { webhooks { update(input: $input) { id events enabled url } } }', {
        input: { id: webhook.id, events: ['BOM_CHANGED', 'COMPONENT_DELETED'] },
      })
    ).webhooks.update;
    expect(updated).toMatchObject({ enabled: false, events: ['BOM_CHANGED', 'COMPONENT_DELETED'], url: 'http://127.0.0.1:9/never' });
    const rotated = (await ok(admin, 'mutation($id: ID!) { webhooks { rotateSecret(id: $id) { secret webhook { secretPrefix } } } }', { id: webhook.id })).webhooks.rotateSecret;
    expect(rotated.secret).not.toBe(first);
    expect(rotated.secret.startsWith(rotated.webhook.secretPrefix)).toBe(true);
    expect((await ok(admin, 'mutation($id: ID!) { webhooks { delete(id: $id) } }', { id: webhook.id })).webhooks.delete).toBe(true);
    expect((await refusal(admin, 'mutation($id: ID!) { webhooks { delete(id: $id) } }', { id: webhook.id })).code).toBe('NOT_FOUND');
  });

  it('refuses receivers at IPv6 addresses that are not global unicast, over https too (they were taken as public)', async () => {
    // Site-local (fec0::/10, deprecated but routed inside some networks), IPv4-compatible (::/96: ::7f00:1 is
    // 127.0.0.1, ::a9fe:a9fe the metadata service), discard-only (100::/64), SRv6 segment ids (5f00::/16).
    for (const url of ['https://[fec0::1]/x', 'https://[::7f00:1]/x', 'https://[::a9fe:a9fe]/latest/meta-data', 'https://[100::1]/x', 'https://[5f00::1]/x']) {
      const refused = await refusal(admin, createWebhook, { input: { url, events: ['BOM_CHANGED'] } });
      expect(refused.code, url).toBe('BAD_USER_INPUT');
      expect(refused.error!.message, url).toMatch(/neither public nor loopback/);
    }
    const hooks = (await ok(admin, 'query { webhooks { findAll { url } } }')).webhooks.findAll as { url: string }[];
    expect(hooks.filter((h) => h.url.includes('['))).toEqual([]);
  });

  it('refuses a delivery log page outside 1 to 100 (it was clamped: first 500 answered 100, first 0 and -5 one)', async () => {
    const { webhook } = (await ok(admin, createWebhook, { input: { url: 'http://127.0.0.1:9/log', events: ['BOM_CHANGED'], enabled: false } })).webhooks.create;
    const log = 'query($first: Int) { webhooks { findAll { id deliveries(first: $first) { id } } } }';
    for (const first of [0, -5, 101, 500]) {
      const refused = await refusal(admin, log, { first });
      expect(refused.code, String(first)).toBe('BAD_USER_INPUT');
      expect(refused.error!.extensions).toMatchObject({ field: 'first' });
      expect(refused.error!.message).toMatch(/1 to 100/);
    }
    for (const first of [1, 100, null]) {
      const hooks = (await ok(admin, log, { first })).webhooks.findAll as { id: string; deliveries: unknown[] }[];
      expect(hooks.find((h) => h.id === webhook.id)!.deliveries).toEqual([]);
    }
  });
});
