import { describe, expect, it } from 'vitest';
import type { ChangedItem } from '../../lib/store/stream.js';
import { eventOf } from '../../lib/webhooks/events.js';
import { deriveWebhookSecret, signatureHeader, verifySignature } from '../../lib/webhooks/signing.js';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postToReceiver } from '../../lib/webhooks/transport.js';
import { checkReceiverUrl, isPublicAddress, resolveReceiver, type HostLookup } from '../../lib/webhooks/urls.js';

const org = '11111111-1111-4111-8111-111111111111';
const lib = '22222222-2222-4222-8222-222222222222';
const pk = `ORG#${org}#LIB#${lib}`;
const component = (fields: Record<string, unknown>) => ({
  PK: pk,
  SK: 'C#c1',
  entity: 'Component',
  id: 'c1',
  cpn: '100-00001',
  name: 'Part',
  version: 1,
  state: 'MODIFIED',
  revisionValue: 'A',
  ...fields,
});
const change = (kind: ChangedItem['kind'], oldImage?: Record<string, unknown>, newImage?: Record<string, unknown>): ChangedItem => ({
  eventId: 'e1',
  kind,
  at: '2026-01-01T00:00:00.000Z',
  oldImage,
  newImage,
});

describe('webhook events from the change stream', () => {
  it('maps component changes, leaving out uncommitted and lock-only changes', () => {
    expect(eventOf(change('INSERT', undefined, component({})))?.type).toBe('COMPONENT_CREATED');
    expect(eventOf(change('INSERT', undefined, component({ writeId: 'w' })))).toBeUndefined();
    expect(eventOf(change('MODIFY', component({ writeId: 'w' }), component({})))?.type).toBe('COMPONENT_CREATED');
    expect(eventOf(change('REMOVE', component({ writeId: 'w' }), undefined))).toBeUndefined();
    expect(eventOf(change('REMOVE', component({}), undefined))?.type).toBe('COMPONENT_DELETED');
    expect(eventOf(change('MODIFY', component({}), component({ lockedBy: 'co' })))).toBeUndefined();
    expect(eventOf(change('MODIFY', component({}), component({ version: 2 })))?.type).toBe('COMPONENT_UPDATED');
    expect(eventOf(change('MODIFY', component({}), component({ version: 2, state: 'RELEASED', revisionValue: 'B' })))).toMatchObject({
      type: 'COMPONENT_RELEASED',
      data: { fromRevision: 'A', toRevision: 'B' },
    });
  });

  it('maps comments: comment.created on insert, comment.deleted when it turns into a tombstone, nothing for edits', () => {
    const comment = (fields: Record<string, unknown>) => ({
      PK: pk,
      SK: 'CMT#t#c#c',
      entity: 'Comment',
      id: 'c',
      targetType: 'COMPONENT',
      targetId: 't',
      parentId: null,
      body: 'hi',
      mentions: ['m'],
      createdBy: 'u',
      createdAt: 'x',
      deleted: false,
      ...fields,
    });
    expect(eventOf(change('INSERT', undefined, comment({})))).toMatchObject({
      type: 'COMMENT_CREATED',
      name: 'comment.created',
      data: { comment: { id: 'c', targetId: 't', body: 'hi', mentions: ['m'] } },
    });
    expect(eventOf(change('MODIFY', comment({}), comment({ body: 'edited' })))).toBeUndefined();
    expect(eventOf(change('MODIFY', comment({}), comment({ deleted: true, body: null, deletedBy: 'mod' })))).toMatchObject({
      type: 'COMMENT_DELETED',
      name: 'comment.deleted',
      data: { comment: { id: 'c', deletedBy: 'mod' } },
    });
    expect(eventOf(change('MODIFY', comment({ deleted: true }), comment({ deleted: true, locked: true })))).toBeUndefined();
  });

  it('maps BOM versions and change order transitions; ignores other items', () => {
    const bom = (v: number, extra: Record<string, unknown> = {}) => ({ PK: pk, SK: 'BOM#a', entity: 'Bom', assemblyId: 'a', bomVersion: v, lines: [{}], childIds: ['c'], ...extra });
    expect(eventOf(change('INSERT', undefined, bom(1)))?.type).toBe('BOM_CHANGED');
    expect(eventOf(change('MODIFY', bom(1), bom(1)))).toBeUndefined();
    expect(eventOf(change('REMOVE', bom(1), undefined))).toBeUndefined();
    const co = (status: string, resolution: string | null = null) => ({
      PK: pk,
      SK: 'CO#x',
      entity: 'ChangeOrder',
      id: 'x',
      number: 'CO-1',
      status,
      resolution,
      history: [{ action: 'SUBMIT', by: 'u' }],
    });
    expect(eventOf(change('MODIFY', co('DRAFT'), co('OPEN')))).toMatchObject({
      type: 'CHANGE_ORDER_TRANSITIONED',
      data: { from: { status: 'DRAFT' }, to: { status: 'OPEN' }, action: 'submit', by: 'u' },
    });
    expect(eventOf(change('MODIFY', co('OPEN'), co('OPEN')))).toBeUndefined();
    expect(eventOf(change('INSERT', undefined, { PK: pk, SK: 'H#c1#1', entity: 'ComponentHistory' }))).toBeUndefined();
    expect(eventOf(change('INSERT', undefined, { PK: 'ORG#x', SK: 'ORG', entity: 'Organization' }))).toBeUndefined();
  });
});

describe('change request events from the change stream', () => {
  const request = (fields: Record<string, unknown>, history: { action: string; by: string; comment?: string | null }[] = [{ action: 'CREATE', by: 'u1' }]) => ({
    PK: pk,
    SK: 'CR#r1',
    entity: 'ChangeRequest',
    id: 'r1',
    number: 'CR-000001',
    title: 'Resistor drifts',
    description: null,
    priority: 'MEDIUM',
    componentIds: ['c1'],
    values: { a: 1, b: 2 },
    status: 'DRAFT',
    changeOrderId: null,
    createdBy: 'u1',
    rev: 0,
    history,
    ...fields,
  });

  it('maps creation, status changes (by action or by release), promotion and field edits', () => {
    expect(eventOf(change('INSERT', undefined, request({})))).toMatchObject({
      type: 'CHANGE_REQUEST_CREATED',
      name: 'change_request.created',
      organizationId: org,
      libraryId: lib,
      data: { changeRequest: { id: 'r1', number: 'CR-000001', status: 'DRAFT', componentIds: ['c1'], changeOrderId: null }, by: 'u1' },
    });
    expect(eventOf(change('MODIFY', request({ status: 'SUBMITTED', rev: 1 }), request({ status: 'APPROVED', rev: 2 }, [{ action: 'APPROVE', by: 'u2', comment: 'ok' }])))).toMatchObject({
      type: 'CHANGE_REQUEST_TRANSITIONED',
      name: 'change_request.transitioned',
      data: { changeRequest: { status: 'APPROVED' }, from: { status: 'SUBMITTED' }, to: { status: 'APPROVED' }, action: 'approve', by: 'u2', comment: 'ok' },
    });
    const promoted = request({ status: 'APPROVED', rev: 3, changeOrderId: 'co1' }, [{ action: 'PROMOTE', by: 'u3', comment: 'CO-000007' }]);
    expect(eventOf(change('MODIFY', request({ status: 'APPROVED', rev: 2 }), promoted))).toMatchObject({
      type: 'CHANGE_REQUEST_PROMOTED',
      data: { changeRequest: { changeOrderId: 'co1' }, changeOrder: { id: 'co1', number: 'CO-000007' }, by: 'u3' },
    });
    // Closed by the release of its order: a transition, not a second promotion.
    const closed = request({ status: 'CLOSED', rev: 4, changeOrderId: 'co1' }, [{ action: 'CLOSE', by: 'u4', comment: 'CO-000007' }]);
    expect(eventOf(change('MODIFY', promoted, closed))).toMatchObject({
      type: 'CHANGE_REQUEST_TRANSITIONED',
      data: { from: { status: 'APPROVED' }, to: { status: 'CLOSED' }, action: 'close', comment: 'CO-000007' },
    });
    // Promoted again after its first order was rejected: a new link.
    expect(eventOf(change('MODIFY', promoted, request({ status: 'APPROVED', rev: 4, changeOrderId: 'co2' }, [{ action: 'PROMOTE', by: 'u3', comment: 'CO-000008' }])))?.data).toMatchObject({
      changeOrder: { id: 'co2', number: 'CO-000008' },
    });
    expect(eventOf(change('MODIFY', request({}), request({ rev: 1, title: 'New', values: { b: 2, a: 1 } }, [{ action: 'UPDATE', by: 'u1' }])))).toMatchObject({
      type: 'CHANGE_REQUEST_UPDATED',
      data: { changedFields: ['title'], changeRequest: { title: 'New' } },
    });
  });

  it('stays silent for an update that changed nothing, a rewrite at the same revision and a removal', () => {
    // The same values with their keys in another order are the same values.
    expect(eventOf(change('MODIFY', request({}), request({ rev: 1, values: { b: 2, a: 1 } }, [{ action: 'UPDATE', by: 'u1' }])))).toBeUndefined();
    expect(eventOf(change('MODIFY', request({}), request({ status: 'SUBMITTED' })))).toBeUndefined();
    expect(eventOf(change('REMOVE', request({}), undefined))).toBeUndefined();
  });
});

describe('sourcing.changed from the sourcing item', () => {
  const quote = (id: string, fields: Record<string, unknown> = {}) => ({ id, distributorId: 'd', currency: 'USD', priceBreaks: [], ...fields });
  const part = (id: string, quotes: unknown[] = [], fields: Record<string, unknown> = {}) => ({ id, manufacturerId: 'm', mpn: 'X', approval: 'APPROVED', quotes, ...fields });
  const sourcing = (rev: number, parts: unknown[], primaryPartId: string | null = null, primaryQuoteId: string | null = null) => ({
    PK: pk,
    SK: 'SRC#c1',
    entity: 'Sourcing',
    componentId: 'c1',
    parts,
    primaryPartId,
    primaryQuoteId,
    rev,
  });

  it('names the parts and quotes added, updated and removed, and the primary source', () => {
    expect(eventOf(change('INSERT', undefined, sourcing(1, [part('p1')])))).toMatchObject({
      type: 'SOURCING_CHANGED',
      name: 'sourcing.changed',
      data: { componentId: 'c1', rev: 1, parts: { added: ['p1'], updated: [], removed: [] }, quotes: { added: [], updated: [], removed: [] }, primaryChanged: false, partCount: 1 },
    });
    // A quote added is a quote change, not a part change.
    expect(eventOf(change('MODIFY', sourcing(1, [part('p1')]), sourcing(2, [part('p1', [quote('q1')])])))?.data).toMatchObject({
      parts: { added: [], updated: [], removed: [] },
      quotes: { added: ['q1'], updated: [], removed: [] },
    });
    expect(eventOf(change('MODIFY', sourcing(2, [part('p1', [quote('q1')])]), sourcing(3, [part('p1', [quote('q1', { stock: 5 })], { mpn: 'Y' })])))?.data).toMatchObject({
      parts: { updated: ['p1'] },
      quotes: { updated: ['q1'] },
    });
    expect(eventOf(change('MODIFY', sourcing(3, [part('p1', [quote('q1')])]), sourcing(4, [part('p1', [quote('q1')])], 'p1', 'q1')))?.data).toMatchObject({
      primary: { partId: 'p1', quoteId: 'q1' },
      primaryChanged: true,
    });
    expect(eventOf(change('MODIFY', sourcing(4, [part('p1', [quote('q1')]), part('p2')]), sourcing(5, [part('p2')])))?.data).toMatchObject({
      parts: { removed: ['p1'] },
      quotes: { removed: ['q1'] },
    });
  });

  it('stays silent for a rewrite without a change and for the removal of the item', () => {
    expect(eventOf(change('MODIFY', sourcing(2, [part('p1')]), sourcing(2, [part('p1')])))).toBeUndefined();
    expect(eventOf(change('MODIFY', sourcing(2, [part('p1')]), sourcing(3, [part('p1')])))).toBeUndefined();
    expect(eventOf(change('REMOVE', sourcing(2, [part('p1')]), undefined))).toBeUndefined();
  });
});

describe('webhook signatures', () => {
  it('verify over the raw body within the tolerance, and fail for any change', () => {
    const secret = deriveWebhookSecret('stack key', 'w1', 1);
    expect(deriveWebhookSecret('stack key', 'w1', 2)).not.toBe(secret);
    expect(deriveWebhookSecret('other key', 'w1', 1)).not.toBe(secret);
    const header = signatureHeader(secret, '{"a":1}', 1_700_000_000);
    expect(verifySignature(secret, '{"a":1}', header, 1_700_000_100)).toBe(true);
    expect(verifySignature(secret, '{"a":2}', header, 1_700_000_100)).toBe(false);
    expect(verifySignature(deriveWebhookSecret('stack key', 'w1', 2), '{"a":1}', header, 1_700_000_100)).toBe(false);
    expect(verifySignature(secret, '{"a":1}', header, 1_700_001_000)).toBe(false);
    expect(verifySignature(secret, '{"a":1}', 'garbage', 1_700_000_100)).toBe(false);
  });
});

describe('webhook receiver URLs (deployed policy)', () => {
  const deployed = { allowLoopback: false };
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    'fe80::1',
    'fd00::1',
    '0.0.0.0',
    '::ffff:127.0.0.1',
    '100.64.0.1',
    'fec0::1',
    '::7f00:1',
    '::a9fe:a9fe',
    '100::1',
    '5f00::1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])('accepts the public %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
  it('needs https and a public host', async () => {
    await expect(checkReceiverUrl('http://93.184.216.34/x', deployed)).rejects.toThrow(/https/);
    await expect(checkReceiverUrl('https://169.254.169.254/latest/meta-data', deployed)).rejects.toThrow(/private, loopback or link-local/);
    await expect(checkReceiverUrl('https://[::1]/x', deployed)).rejects.toThrow(/private/);
    await expect(checkReceiverUrl('https://user:pw@93.184.216.34/x', deployed)).rejects.toThrow(/credentials/);
    await expect(checkReceiverUrl('https://localhost/x', deployed)).rejects.toThrow(/private|resolve/);
    expect((await checkReceiverUrl('https://93.184.216.34/hooks', deployed)).href).toBe('https://93.184.216.34/hooks');
    expect((await checkReceiverUrl('http://127.0.0.1:8080/hooks', { allowLoopback: true })).href).toBe('http://127.0.0.1:8080/hooks');
  });
});

describe('webhook receiver URLs (local stack policy: loopback only, as the README says)', () => {
  const local = { allowLoopback: true };
  const deployed = { allowLoopback: false };
  const resolvesTo =
    (...addresses: string[]): HostLookup =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each([
    'http://169.254.169.254/latest/meta-data',
    'https://169.254.169.254/latest/meta-data',
    'http://2852039166/',
    'http://0251.0376.0251.0376/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fe80::1]/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://0.0.0.0:8080/',
    'http://[::]:8080/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://93.184.216.34/',
  ])('refuses %s locally and when deployed', async (url) => {
    await expect(checkReceiverUrl(url, local)).rejects.toThrow(/url/);
    await expect(checkReceiverUrl(url, deployed)).rejects.toThrow(/url/);
  });

  it('accepts loopback over http or https, by address or by a name that resolves only to loopback, and public hosts over https', async () => {
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://127.1.2.3/hooks', 'http://[::1]:8080/hooks', 'https://127.0.0.1/hooks', 'http://[::ffff:127.0.0.1]/hooks']) {
      expect((await checkReceiverUrl(url, local)).protocol).toMatch(/^https?:$/);
    }
    expect((await checkReceiverUrl('http://localhost:8080/hooks', local, resolvesTo('127.0.0.1', '::1'))).href).toBe('http://localhost:8080/hooks');
    expect((await checkReceiverUrl('https://93.184.216.34/hooks', local)).href).toBe('https://93.184.216.34/hooks');
  });

  it('refuses a name when any of its addresses is refused (checked all, not the first)', async () => {
    await expect(checkReceiverUrl('http://mixed.test/hooks', local, resolvesTo('127.0.0.1', '169.254.169.254'))).rejects.toThrow(/169\.254\.169\.254/);
    await expect(checkReceiverUrl('https://mixed.test/hooks', deployed, resolvesTo('93.184.216.34', '10.0.0.1'))).rejects.toThrow(/10\.0\.0\.1/);
    await expect(checkReceiverUrl('https://mapped.test/hooks', deployed, resolvesTo('93.184.216.34', '::ffff:169.254.169.254'))).rejects.toThrow(/private/);
  });

  it('resolves the host once and connects to the checked address (no second resolution to rebind)', async () => {
    const received: IncomingHttpHeaders[] = [];
    const server = createServer((request, response) => {
      received.push(request.headers);
      response.statusCode = 204;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      // The first answer is checked; a rebinding resolver then answers the metadata address.
      const answers = ['127.0.0.1', '169.254.169.254'];
      let calls = 0;
      const rebinding: HostLookup = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
      const target = await resolveReceiver(`http://rebind.test:${port}/hooks`, local, rebinding);
      expect(target).toMatchObject({ address: '127.0.0.1', family: 4 });
      // rebind.test resolves nowhere else: only a connection to the checked address reaches the receiver.
      expect(await postToReceiver(target, { 'content-type': 'application/json' }, '{}', 5000)).toBe(204);
      expect(calls).toBe(1);
      expect(received).toHaveLength(1);
      expect(received[0]!.host).toBe(`rebind.test:${port}`);
    } finally {
      server.close();
    }
  });
});

describe('stream records', () => {
  it('read an empty map given as {} (DynamoDB Local) as the empty map', async () => {
    const { changedItemOf } = await import('../../lib/store/stream.js');
    const item = changedItemOf({
      eventID: 'e',
      eventName: 'INSERT',
      dynamodb: { ApproximateCreationDateTime: 1_700_000_000, NewImage: { PK: { S: pk }, attributeValues: {}, labels: { L: [] }, nested: { M: { inner: {} } } } },
    });
    expect(item).toMatchObject({ eventId: 'e', kind: 'INSERT', at: '2023-11-14T22:13:20.000Z', newImage: { PK: pk, attributeValues: {}, labels: [], nested: { inner: {} } } });
  });
});
