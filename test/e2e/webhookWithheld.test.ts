import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { eventually, webhookReceiver } from '../support/webhooks.js';
import { ok } from './accessHelpers.js';

/**
 * A webhook delivers as the principal that created it reads (lib/webhooks/withheld.ts): an integration's
 * webhook gets no sourcing.changed when sourcing.parts is withheld from it, no quote ids (and no event about
 * quotes only) when sourcing.quotes is, by the policy as it stands at each attempt; a person's webhook in the
 * same library gets every event whole. Absence is proven without waiting on a clock: the stream is handled in
 * order, event by event, so once a later event (a component created after the write: the "marker") reached a
 * receiver, every earlier event was delivered to every webhook that was to get it.
 */

const createWebhookM = 'mutation($input: CreateWebhookInput!) { webhooks { create(input: $input) { secret webhook { id principal { id isNative } } } } }';
const updateWebhookM = 'mutation($input: UpdateWebhookInput!) { webhooks { update(input: $input) { id principal { id isNative } } } }';
const setAccess = 'mutation($entries: [AttributeAccessEntryInput!]!) { setAttributeAccess(entries: $entries) { version } }';
const createVendor = 'mutation($input: CreateVendorInput!) { vendorSourcing { createVendor(input: $input) { id } } }';
const createPartM = 'mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { id } } }';
const createQuoteM = 'mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { id } } }';
const primaryM = 'mutation($input: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $input) { componentId } } }';
const createComponentM = 'mutation($name: String!) { component { create(inputs: [{ name: $name, categoryId: "mechanical" }]) { id } } }';
const logQ = 'query { webhooks { findAll { id deliveries(first: 50) { eventId eventType status lastError body replayOf } } } }';

interface Payload {
  id: string;
  type: string;
  data: any;
}
type Receiver = ReturnType<typeof webhookReceiver>;

describe('webhooks deliver as the principal that created them', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let manufacturerId: string;
  let distributorId: string;
  const receivers: Receiver[] = [];
  const secrets = new Map<Receiver, string>();

  function receiver(): Receiver {
    const made: Receiver = webhookReceiver(
      () => 204,
      () => secrets.get(made),
    );
    receivers.push(made);
    return made;
  }
  const payloads = (r: Receiver): Payload[] => r.received.filter((d) => d.verified).map((d) => JSON.parse(d.body) as Payload);
  const sourcingOf = (r: Receiver, componentId: string) => payloads(r).filter((p) => p.type === 'sourcing.changed' && p.data.componentId === componentId);

  async function integration(name: string) {
    const created = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id } } }', { input: { name } })).integration.create;
    // Webhooks need library.settings.update: a library administrator's role, chosen explicitly.
    const key = (
      await ok(admin, 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret } } }', { input: { name: `${name} key`, integrationId: created.id, roleId: 'LIBRARY_ADMIN' } })
    ).apiKey.create;
    return { id: created.id as string, headers: { ...admin, 'x-api-key': key.secret as string } };
  }
  async function webhook(headers: Record<string, string>, events: string[]) {
    const r = receiver();
    const created = (await ok(headers, createWebhookM, { input: { url: await r.url(), events } })).webhooks.create;
    secrets.set(r, created.secret);
    return { receiver: r, id: created.webhook.id as string, principal: created.webhook.principal as { id: string; isNative: boolean } };
  }
  const component = async (name: string) => (await ok(admin, createComponentM, { name })).component.create[0].id as string;
  const part = async (componentId: string, mpn: string) => (await ok(admin, createPartM, { input: { componentId, manufacturerId, mpn, approval: 'APPROVED' } })).vendorSourcing.createPart.id as string;
  const quote = async (componentId: string, partId: string) =>
    (await ok(admin, createQuoteM, { input: { componentId, partId, distributorId, currency: 'USD', unitPrice: 2.5 } })).vendorSourcing.createQuote.id as string;
  /** Creates a component and waits until each receiver got its component.created: every earlier event was handled. */
  async function marker(...waitFor: Receiver[]) {
    const id = await component('Marker');
    for (const r of waitFor)
      await eventually(
        () => payloads(r),
        (list) => list.some((p) => p.type === 'component.created' && p.data.component.id === id),
        'the marker',
      );
  }

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    manufacturerId = (await ok(admin, createVendor, { input: { kind: 'MANUFACTURER', name: 'Withheld Semi' } })).vendorSourcing.createVendor.id;
    distributorId = (await ok(admin, createVendor, { input: { kind: 'DISTRIBUTOR', name: 'Withheld Parts Co' } })).vendorSourcing.createVendor.id;
  }, 60_000);
  afterAll(() => {
    for (const r of receivers) r.server.close();
  });

  it('an integration without sourcing.parts gets no sourcing.changed; a person’s webhook gets the event whole', { timeout: 150_000 }, async () => {
    const blind = await integration('Blind MES');
    await ok(admin, setAccess, { entries: [{ attribute: 'sourcing.parts', principal: blind.id, read: 'NO_ACCESS' }] });
    const theirs = await webhook(blind.headers, ['SOURCING_CHANGED', 'COMPONENT_CREATED']);
    const ours = await webhook(admin, ['SOURCING_CHANGED', 'COMPONENT_CREATED']);
    expect(theirs.principal).toEqual({ id: blind.id, isNative: false });
    expect(ours.principal).toMatchObject({ isNative: true });

    const c = await component('Sourced for people');
    const p = await part(c, 'BL-1');
    await marker(theirs.receiver, ours.receiver);
    expect(sourcingOf(ours.receiver, c)).toHaveLength(1);
    expect(sourcingOf(ours.receiver, c)[0]!.data).toMatchObject({ parts: { added: [p] }, partCount: 1 });
    expect(sourcingOf(theirs.receiver, c)).toEqual([]);
    expect(theirs.receiver.received.map((d) => d.body).join('\n')).not.toContain(p);
    // Nothing was recorded for it either: its log has no sourcing delivery.
    const log = (await ok(admin, logQ)).webhooks.findAll.find((w: { id: string }) => w.id === theirs.id).deliveries;
    expect(log.map((d: { eventType: string }) => d.eventType)).not.toContain('SOURCING_CHANGED');
    // The person's webhook log, read by the integration, shows it no sourcing delivery either.
    const seen = (await ok(blind.headers, logQ)).webhooks.findAll.find((w: { id: string }) => w.id === ours.id).deliveries;
    expect(seen.map((d: { eventType: string }) => d.eventType)).not.toContain('SOURCING_CHANGED');
    expect(JSON.stringify(seen)).not.toContain(p);

    // Pointing a person's webhook at its own receiver binds it to the integration: it still gets no sourcing.
    const taken = await webhook(admin, ['SOURCING_CHANGED', 'COMPONENT_CREATED']);
    const redirected = receiver();
    secrets.set(redirected, secrets.get(taken.receiver)!);
    const updated = (await ok(blind.headers, updateWebhookM, { input: { id: taken.id, url: await redirected.url() } })).webhooks.update;
    expect(updated.principal).toEqual({ id: blind.id, isNative: false });
    await part(c, 'BL-2');
    await marker(redirected, ours.receiver);
    expect(sourcingOf(ours.receiver, c)).toHaveLength(2);
    expect(sourcingOf(redirected, c)).toEqual([]);
  });

  it('an integration without sourcing.quotes gets parts without quote ids, and no event about quotes only', { timeout: 150_000 }, async () => {
    const priceless = await integration('Priceless PLM sync');
    await ok(admin, setAccess, { entries: [{ attribute: 'sourcing.quotes', principal: priceless.id, read: 'RECEIVE_ONLY' }] });
    const theirs = await webhook(priceless.headers, ['SOURCING_CHANGED', 'COMPONENT_CREATED']);
    const ours = await webhook(admin, ['SOURCING_CHANGED', 'COMPONENT_CREATED']);

    const c = await component('Quoted');
    const p = await part(c, 'PQ-1');
    const q = await quote(c, p); // quotes only
    await ok(admin, primaryM, { input: { componentId: c, partId: p, quoteId: q } }); // the primary part and quote
    await ok(admin, primaryM, { input: { componentId: c, partId: p, quoteId: null } }); // the primary quote only
    await marker(theirs.receiver, ours.receiver);

    const full = sourcingOf(ours.receiver, c).sort((a, b) => a.data.rev - b.data.rev);
    expect(full.map((e) => e.data.rev)).toEqual([1, 2, 3, 4]);
    expect(full[1]!.data.quotes.added).toEqual([q]);
    expect(full[2]!.data).toMatchObject({ primary: { partId: p, quoteId: q }, previousPrimary: { partId: null, quoteId: null }, primaryChanged: true });

    const shaped = sourcingOf(theirs.receiver, c).sort((a, b) => a.data.rev - b.data.rev);
    expect(shaped.map((e) => e.data.rev)).toEqual([1, 3]);
    expect(shaped[0]!.data).toMatchObject({ parts: { added: [p], updated: [], removed: [] }, quotes: { added: [], updated: [], removed: [] }, partCount: 1 });
    expect(shaped[1]!.data).toMatchObject({ quotes: { added: [], updated: [], removed: [] }, primary: { partId: p, quoteId: null }, primaryChanged: true });
    expect(theirs.receiver.received.map((d) => d.body).join('\n')).not.toContain(q);
  });

  it('takes access changed after the webhook was made at the next delivery, a replay included; a disabled integration’s webhook delivers nothing', { timeout: 180_000 }, async () => {
    const erp = await integration('Changing ERP');
    const theirs = await webhook(erp.headers, ['SOURCING_CHANGED', 'COMPONENT_CREATED']);
    const ours = await webhook(admin, ['SOURCING_CHANGED', 'COMPONENT_CREATED']);
    const c = await component('Changing');
    const p1 = await part(c, 'CH-1');
    const q1 = await quote(c, p1);
    await marker(theirs.receiver);
    // Everything readable: both events whole.
    expect(sourcingOf(theirs.receiver, c).map((e) => e.data.rev)).toEqual([1, 2]);
    expect(sourcingOf(theirs.receiver, c)[1]!.data.quotes.added).toEqual([q1]);
    const from = new Date(Date.now() - 60_000).toISOString();

    await ok(admin, setAccess, { entries: [{ attribute: 'sourcing.quotes', principal: erp.id, read: 'NO_ACCESS' }] });
    const q2 = await quote(c, p1);
    const p2 = await part(c, 'CH-2');
    await marker(theirs.receiver);
    expect(sourcingOf(theirs.receiver, c).map((e) => e.data.rev)).toEqual([1, 2, 4]);
    expect(theirs.receiver.received.map((d) => d.body).join('\n')).not.toContain(q2);

    // A replay of the window resends as the access stands now: the quote event is not sent again.
    const before = theirs.receiver.received.length;
    const resends = (
      await ok(erp.headers, 'mutation($id: ID!, $from: DateTime!, $to: DateTime!) { webhooks { replay(webhookId: $id, from: $from, to: $to) { id } } }', {
        id: theirs.id,
        from,
        to: new Date(Date.now() + 60_000).toISOString(),
      })
    ).webhooks.replay;
    expect(resends.length).toBeGreaterThanOrEqual(3);
    const log = await eventually(
      async () =>
        (await ok(admin, logQ)).webhooks.findAll.find((w: { id: string }) => w.id === theirs.id).deliveries as {
          eventType: string;
          status: string;
          lastError: string | null;
          body: string;
          replayOf: string | null;
        }[],
      (list) => list.filter((d) => d.replayOf).length === resends.length && list.filter((d) => d.replayOf).every((d) => d.status !== 'PENDING'),
      'the resends attempted',
    );
    const resent = log.filter((d) => d.replayOf && d.eventType === 'SOURCING_CHANGED');
    const quoteResend = resent.find((d) => JSON.parse(d.body).data.rev === 2)!;
    expect(quoteResend).toMatchObject({ status: 'FAILED' });
    expect(quoteResend.lastError).toMatch(/withheld/);
    const replayed = theirs.receiver.received.slice(before).map((d) => JSON.parse(d.body) as Payload);
    expect(
      replayed
        .filter((p) => p.type === 'sourcing.changed')
        .map((p) => p.data.rev)
        .sort(),
    ).toEqual([1, 4]);
    expect(JSON.stringify(replayed)).not.toContain(q1);

    // Parts withheld as well: nothing of sourcing; back to READ: whole again.
    await ok(admin, setAccess, { entries: [{ attribute: 'sourcing.parts', principal: erp.id, read: 'NO_ACCESS' }] });
    const p3 = await part(c, 'CH-3');
    await marker(theirs.receiver);
    expect(theirs.receiver.received.map((d) => d.body).join('\n')).not.toContain(p3);
    await ok(admin, setAccess, {
      entries: [
        { attribute: 'sourcing.parts', principal: erp.id, read: 'READ' },
        { attribute: 'sourcing.quotes', principal: erp.id, read: 'READ' },
      ],
    });
    const q3 = await quote(c, p2);
    await eventually(
      () => sourcingOf(theirs.receiver, c),
      (list) => list.some((e) => e.data.quotes.added.includes(q3)),
      'the quote event once quotes are readable again',
    );

    // Disabled: its webhook delivers nothing, while the person's keeps delivering.
    await ok(admin, 'mutation($input: UpdateIntegrationInput!) { integration { update(input: $input) { disabled } } }', { input: { id: erp.id, disabled: true } });
    const count = theirs.receiver.received.length;
    await part(c, 'CH-4');
    await marker(ours.receiver);
    expect(theirs.receiver.received.length).toBe(count);
  });
});
