import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxMailer } from '../../lib/mail/mailer.js';
import { buildDigest, sendDueDigests } from '../../lib/notifications/digest.js';
import { notifyChanges } from '../../lib/notifications/fanout.js';
import { newMeter, withMeter } from '../../lib/store/meter.js';
import type { ChangedItem } from '../../lib/store/stream.js';
import { newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { mailTo, memberWithRole, notificationsOf as notesOf, ok, refusal, untilNotifications as until, type Member, type Note } from './accessHelpers.js';
import { createAssembly, createParts } from './itemHelpers.js';

/**
 * Watching and notifications, made from the table's stream by the local stack's poller: a watcher of an
 * assembly with children hears once of a release three levels down (one notification, one mail), the actor
 * hears nothing, a digest user gets no mail per notification, and a mention is mailed whatever the choice.
 */
const watchMutation = `mutation($input: WatchInput!) { watch(input: $input) { targetType targetId withChildren } }`;
const action = (name: string) => `mutation($id: ID!) { changeOrders { ${name}(id: $id) { id status } } }`;

let tenant: Tenant;
let admin: Record<string, string>;
let drafter: Member;
let approver: Member;
let watcher: Member;
let digestUser: Member;

beforeAll(async () => {
  tenant = await newTenant({ plan: 'team' });
  admin = tenantHeaders(tenant);
  [drafter, approver, watcher, digestUser] = await Promise.all([
    memberWithRole(tenant, 'EDITOR'),
    memberWithRole(tenant, 'REVIEWER'),
    memberWithRole(tenant, 'VIEWER'),
    memberWithRole(tenant, 'VIEWER'),
  ]);
});

describe('notifications', () => {
  it('tells a watcher of an assembly with children once of a release three levels down, by mail, and not the actor', async () => {
    const [part] = await createParts(tenant, ['Deep part']);
    const level3 = await createAssembly(tenant, 'Level 3', [{ childId: part!.id, quantity: 1 }]);
    const level2 = await createAssembly(tenant, 'Level 2', [
      { childId: level3.id, quantity: 1 },
      { childId: part!.id, quantity: 2 },
    ]);
    const top = await createAssembly(tenant, 'Top', [{ childId: level2.id, quantity: 1 }]);

    expect((await ok(watcher.headers, watchMutation, { input: { targetId: top.id, withChildren: true } })).watch).toMatchObject({ targetType: 'ASSEMBLY', withChildren: true });
    await ok(digestUser.headers, watchMutation, { input: { targetId: top.id, withChildren: true } });
    await ok(approver.headers, watchMutation, { input: { targetId: top.id, withChildren: true } });
    expect((await refusal(watcher.headers, watchMutation, { input: { targetId: part!.id, withChildren: true } })).code).toBe('BAD_USER_INPUT');
    await ok(digestUser.headers, 'mutation { setNotificationSettings(input: { email: DIGEST }) { email } }');
    const watching = (await ok(watcher.headers, '{ user { watching { targetId withChildren } } }')).user.watching;
    expect(watching).toContainEqual({ targetId: top.id, withChildren: true });

    const co = (
      await ok(drafter.headers, 'mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { id } } }', {
        input: { name: 'Release deep part', templateId: 'default-one-stage', componentIds: [part!.id], values: { reason: 'x' }, stages: [{ index: 0, reviewerIds: [approver.userId] }] },
      })
    ).changeOrders.create;
    await ok(admin, action('submit'), { id: co.id });
    expect((await ok(approver.headers, action('approve'), { id: co.id })).changeOrders.approve.status).toBe('CLOSED');

    // A later event on the same partition (the stream keeps its order): once it arrived, everything before it did.
    const marker = `@[Digest](user:${digestUser.userId}) released`;
    await ok(admin, 'mutation($input: CreateCommentInput!) { comments { create(input: $input) { id } } }', { input: { targetId: top.id, body: marker } });
    const notes = await until(watcher, (all) => all.some((n) => n.kind === 'COMMENT'));

    const released = notes.filter((n) => n.kind === 'COMPONENT_RELEASED');
    expect(released).toHaveLength(1);
    expect(released[0]).toMatchObject({ targetId: top.id, subjectId: part!.id, actorId: approver.userId, read: false });
    const mails = await mailTo(watcher.email);
    expect(mails.filter((m) => m.text.includes('Deep part'))).toHaveLength(1);

    // The actor (the last approval released it) hears nothing of its own release.
    const approverNotes = await notesOf(approver);
    expect(approverNotes.filter((n) => n.kind === 'COMPONENT_RELEASED')).toEqual([]);

    // The digest user: the notification, no mail for it; the mention is mailed at once.
    const digestNotes = await until(digestUser, (all) => all.some((n) => n.kind === 'MENTION'));
    expect(digestNotes.filter((n) => n.kind === 'COMPONENT_RELEASED')).toHaveLength(1);
    const digestMails = await mailTo(digestUser.email);
    expect(digestMails.filter((m) => m.text.includes('Deep part'))).toEqual([]);
    expect(digestMails.filter((m) => m.subject === 'You were mentioned')).toHaveLength(1);

    // The daily run mails one digest holding the release (the mention is not repeated).
    const outbox = new OutboxMailer();
    await sendDueDigests({ store: testStore(), mailer: outbox, appUrl: 'https://app.example' });
    const digests = outbox.sent.filter((m) => m.to.includes(digestUser.email));
    expect(digests).toHaveLength(1);
    expect(digests[0]!.text).toContain('Deep part');
    expect(digests[0]!.text).not.toContain('mentioned');

    // The comment's author watches the assembly automatically; an unwatch sticks through the next comment.
    const watchingQuery = '{ user { watching { targetId targetType automatic } } }';
    expect((await ok(admin, watchingQuery)).user.watching).toContainEqual({ targetId: top.id, targetType: 'ASSEMBLY', automatic: true });
    expect((await ok(admin, 'mutation($id: ID!) { unwatch(targetId: $id) }', { id: top.id })).unwatch).toBe(true);
    await ok(admin, 'mutation($input: CreateCommentInput!) { comments { create(input: $input) { id } } }', { input: { targetId: top.id, body: 'again' } });
    await until(watcher, (all) => all.filter((n) => n.kind === 'COMMENT').length === 2);
    expect((await ok(admin, watchingQuery)).user.watching.filter((w: { targetId: string }) => w.targetId === top.id)).toEqual([]);

    // markRead and markAllRead.
    expect((await ok(watcher.headers, 'mutation($ids: [ID!]!) { markRead(ids: $ids) }', { ids: [released[0]!.id] })).markRead).toBe(1);
    expect((await notesOf(watcher, true)).some((n) => n.id === released[0]!.id)).toBe(false);
    await ok(watcher.headers, 'mutation { markAllRead }');
    expect(await notesOf(watcher, true)).toEqual([]);
  });

  it('fans a burst of events out without dropping one, and a redelivered batch notifies and mails nobody twice', async () => {
    const [part] = await createParts(tenant, ['Burst part']);
    const burstWatcher = await memberWithRole(tenant, 'VIEWER');
    await ok(burstWatcher.headers, watchMutation, { input: { targetId: part!.id } });
    const image = (version: number) => ({
      PK: `ORG#${tenant.organization.id}#LIB#${tenant.library.id}`,
      SK: `C#${part!.id}`,
      entity: 'Component',
      id: part!.id,
      cpn: 'X',
      name: 'Burst part',
      version,
      state: 'MODIFIED',
      updatedBy: tenant.user.id,
    });
    const burst: ChangedItem[] = Array.from({ length: 40 }, (_, i) => ({
      eventId: `burst-${part!.id}-${i}`,
      kind: 'MODIFY',
      at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
      oldImage: image(i + 1),
      newImage: image(i + 2),
    }));
    const outbox = new OutboxMailer();
    const deps = { store: testStore(), mailer: outbox, appUrl: 'https://app.example' };
    expect(await notifyChanges(deps, burst)).toBe(40);
    expect(await notifyChanges(deps, burst)).toBe(0);
    expect(outbox.sent.filter((m) => m.to.includes(burstWatcher.email))).toHaveLength(40);
    expect((await notesOf(burstWatcher)).filter((n) => n.kind === 'COMPONENT_UPDATED' && n.targetId === part!.id)).toHaveLength(40);

    // A watch outlives its watcher's membership; what it would tell is withheld from a former member.
    await ok(admin, 'mutation($u: String!) { organization { membership { removeOrgRole(userId: $u) } } }', { u: burstWatcher.userId });
    const later = burst.map((change) => ({ ...change, eventId: `${change.eventId}-after` }));
    expect(await notifyChanges(deps, later)).toBe(0);
    expect(outbox.sent.filter((m) => m.to.includes(burstWatcher.email))).toHaveLength(40);
  });

  it("fans a partly redelivered batch out once, and a comment's automatic watch counts for the events after it only", async () => {
    const [part] = await createParts(tenant, ['Redelivered part']);
    const [reader, commenter] = await Promise.all([memberWithRole(tenant, 'VIEWER'), memberWithRole(tenant, 'VIEWER')]);
    await ok(reader.headers, watchMutation, { input: { targetId: part!.id } });
    const pk = `ORG#${tenant.organization.id}#LIB#${tenant.library.id}`;
    const at = (i: number) => new Date(Date.UTC(2031, 0, 1, 0, 0, i)).toISOString();
    const image = (version: number) => ({ PK: pk, SK: `C#${part!.id}`, entity: 'Component', id: part!.id, cpn: 'R', name: 'Redelivered part', version, state: 'MODIFIED', updatedBy: tenant.user.id });
    const update = (i: number): ChangedItem => ({ eventId: `redo-${part!.id}-${i}`, kind: 'MODIFY', at: at(i), oldImage: image(i + 1), newImage: image(i + 2) });
    const commentId = randomUUID();
    const comment: ChangedItem = {
      eventId: `redo-comment-${part!.id}`,
      kind: 'INSERT',
      at: at(60),
      oldImage: undefined,
      newImage: {
        PK: pk,
        SK: `COMMENT#${commentId}`,
        entity: 'Comment',
        id: commentId,
        targetType: 'COMPONENT',
        targetId: part!.id,
        createdBy: commenter.userId,
        createdAt: at(60),
        body: 'Looking at it',
        mentions: [],
      },
    };
    // 121 events: 60 updates, a comment (its author then watches the part), 60 updates; 181 notifications in all
    // (the reader: 120 updates and the comment; its author: the 60 updates after it).
    const batch = [...Array.from({ length: 60 }, (_, i) => update(i)), comment, ...Array.from({ length: 60 }, (_, i) => update(61 + i))];
    const outbox = new OutboxMailer();
    const deps = { store: testStore(), mailer: outbox, appUrl: 'https://app.example' };
    expect(await notifyChanges(deps, batch.slice(0, 30))).toBe(30);
    // Redelivered with the rest: the first transaction of 100 meets the 30 notifications that exist and writes the others.
    expect(await notifyChanges(deps, batch)).toBe(151);
    // The events after the comment once more (told to both already): nothing new. (The whole batch again would
    // tell the author of the 60 updates before the comment: a redelivery reads the watches as they are then.)
    expect(await notifyChanges(deps, batch.slice(61))).toBe(0);

    const readerNotes = await notesOf(reader);
    expect(readerNotes.filter((n) => n.kind === 'COMPONENT_UPDATED')).toHaveLength(120);
    expect(readerNotes.filter((n) => n.kind === 'COMMENT')).toHaveLength(1);
    expect(outbox.sent.filter((m) => m.to.includes(reader.email))).toHaveLength(121);
    // The author hears of the updates after the comment (60), not of those before it nor of the comment.
    const commenterNotes = await notesOf(commenter);
    expect(commenterNotes.map((n) => n.kind)).toEqual(Array.from({ length: 60 }, () => 'COMPONENT_UPDATED'));
    expect(outbox.sent.filter((m) => m.to.includes(commenter.email))).toHaveLength(60);
    expect(new Set(commenterNotes.map((n) => n.id)).size).toBe(60);
  });

  it('reads where-used in rounds and the watches of a library whole for a batch about many of its components, and tells the same people', async () => {
    // A library of its own: its watches are only the two below.
    const own = await newTenant({ plan: 'team' });
    const parts = await createParts(
      own,
      Array.from({ length: 40 }, (_, i) => `Batch part ${i}`),
    );
    const assembly = await createAssembly(
      own,
      'Batch assembly',
      parts.slice(1, 6).map((part) => ({ childId: part.id, quantity: 1 })),
    );
    const [partWatcher, assemblyWatcher] = await Promise.all([memberWithRole(own, 'VIEWER'), memberWithRole(own, 'VIEWER')]);
    await ok(partWatcher.headers, watchMutation, { input: { targetId: parts[0]!.id } });
    await ok(assemblyWatcher.headers, watchMutation, { input: { targetId: assembly.id, withChildren: true } });
    const pk = `ORG#${own.organization.id}#LIB#${own.library.id}`;
    // A release of the 40 parts: one event each.
    const batch: ChangedItem[] = parts.map((part, i) => {
      const image = (version: number) => ({ PK: pk, SK: `C#${part.id}`, entity: 'Component', id: part.id, cpn: `P${i}`, name: `Batch part ${i}`, version, state: 'MODIFIED', updatedBy: own.user.id });
      return { eventId: `many-${part.id}`, kind: 'MODIFY', at: new Date(Date.UTC(2032, 0, 1, 0, 0, i)).toISOString(), oldImage: image(1), newImage: image(2) };
    });
    const outbox = new OutboxMailer();
    const meter = newMeter();
    expect(await withMeter(meter, () => notifyChanges({ store: testStore(), mailer: outbox, appUrl: 'https://app.example' }, batch))).toBe(6);
    // One Query of the watches and one BatchGetItem of the 40 where-used entries (a Query and a BatchGetItem
    // per component made 96 requests in all), then the assembly's BOM for each of its five children, its own
    // where-used entry, the two watchers' access, the notifications' transaction and their addressees: 13.
    expect(meter.requests).toBeLessThanOrEqual(16);
    expect((await notesOf(partWatcher)).map((n) => [n.kind, n.targetId])).toEqual([['COMPONENT_UPDATED', parts[0]!.id]]);
    const told = await notesOf(assemblyWatcher);
    expect(told.map((n) => n.targetId)).toEqual(Array(5).fill(assembly.id));
    expect(new Set(told.map((n) => n.subjectId))).toEqual(new Set(parts.slice(1, 6).map((part) => part.id)));
  });

  it('builds a digest of the notifications it is given, oldest first', () => {
    const note = (id: string, createdAt: string, summary: string) => ({
      id,
      userId: id,
      organizationId: id,
      libraryId: id,
      kind: 'COMPONENT_UPDATED' as const,
      targetId: id,
      subjectId: null,
      actorId: null,
      summary,
      eventId: id,
      createdAt,
      read: false,
    });
    expect(buildDigest('a@example.com', [], 'https://app')).toBeUndefined();
    const mail = buildDigest(
      'a@example.com',
      [note('00000000-0000-7000-8000-000000000002', '2030-01-02T00:00:00.000Z', 'second <b>'), note('00000000-0000-7000-8000-000000000001', '2030-01-01T00:00:00.000Z', 'first')],
      'https://app',
    );
    expect(mail!.subject).toBe('Your daily digest: 2 notifications');
    expect(mail!.text.indexOf('first')).toBeLessThan(mail!.text.indexOf('second'));
    expect(mail!.html).toContain('second &lt;b&gt;');
  });
});
