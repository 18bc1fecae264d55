import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxMailer } from '../../lib/mail/mailer.js';
import { sendDueDigests } from '../../lib/notifications/digest.js';
import { newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { mailTo, memberWithRole, notificationsOf as notesOf, ok, refusal, untilNotifications as until, type Member } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/**
 * What comments tell people, made from the table's stream by the local stack's poller: mentions added by an
 * edit, deleted comments' text, and the mail of both.
 */
const create = 'mutation($input: CreateCommentInput!) { comments { create(input: $input) { id } } }';
const remove = 'mutation($id: ID!) { comments { delete(id: $id) { id deleted body } } }';
const update = 'mutation($input: UpdateCommentInput!) { comments { update(input: $input) { id mentions { id } } } }';
const mention = (who: Member) => `@[${who.email}](user:${who.userId})`;
const mentionsOf = <N extends { kind: string; targetId: string }>(notes: N[], targetId: string) => notes.filter((n) => n.kind === 'MENTION' && n.targetId === targetId);

let tenant: Tenant;
let admin: Record<string, string>;
let author: Member;

beforeAll(async () => {
  tenant = await newTenant();
  admin = tenantHeaders(tenant);
  author = await memberWithRole(tenant, 'EDITOR');
});

describe('comment notifications', () => {
  it('tells a user mentioned by an edit once (mail included), and not those mentioned before it, nor the editor', async () => {
    const [part] = await createParts(tenant, ['Edited mention part']);
    const [early, added, marker] = await Promise.all([memberWithRole(tenant, 'VIEWER'), memberWithRole(tenant, 'VIEWER'), memberWithRole(tenant, 'VIEWER')]);
    const comment = (await ok(author.headers, create, { input: { targetId: part!.id, body: `Please check ${mention(early)}` } })).comments.create;
    await until(early, (notes) => mentionsOf(notes, part!.id).length === 1);

    // The edit adds a mention (and keeps the first): the one added is told, with the edited text.
    const edited = (await ok(author.headers, update, { input: { id: comment.id, body: `Please check ${mention(early)} and ${mention(added)}` } })).comments.update;
    expect(edited.mentions.map((m: { id: string }) => m.id).sort()).toEqual([early.userId, added.userId].sort());
    const told = await until(added, (notes) => mentionsOf(notes, part!.id).length > 0);
    expect(mentionsOf(told, part!.id)).toEqual([expect.objectContaining({ actorId: author.userId, summary: `You were mentioned: Please check ${mention(early)} and ${mention(added)}` })]);

    // Edited again with the same mentions: nobody is told anew. A later comment on the part marks that the stream went past both edits.
    await ok(author.headers, update, { input: { id: comment.id, body: `Please check ${mention(early)} and ${mention(added)} (typo fixed)` } });
    await ok(admin, create, { input: { targetId: part!.id, body: `Marker ${mention(marker)}` } });
    await until(marker, (notes) => mentionsOf(notes, part!.id).length === 1);
    expect(mentionsOf(await notesOf(added), part!.id)).toHaveLength(1);
    expect(mentionsOf(await notesOf(early), part!.id)).toHaveLength(1);
    expect(mentionsOf(await notesOf(author), part!.id)).toEqual([]);
    expect((await mailTo(added.email)).filter((m) => m.subject === 'You were mentioned')).toHaveLength(1);
    expect((await mailTo(early.email)).filter((m) => m.subject === 'You were mentioned')).toHaveLength(1);
    // The user mentioned by the edit watches the part, as one mentioned in a new comment does.
    expect((await ok(added.headers, '{ user { watching { targetId automatic } } }')).user.watching).toContainEqual({ targetId: part!.id, automatic: true });
  }, 60_000);

  it("refuses an edit's mention of someone who may not read the target, and tells nobody", async () => {
    const [part] = await createParts(tenant, ['Refused edit mention part']);
    const outsider = await memberWithRole(await newTenant(), 'VIEWER');
    const comment = (await ok(author.headers, create, { input: { targetId: part!.id, body: 'Plain' } })).comments.create;
    expect((await refusal(author.headers, update, { input: { id: comment.id, body: `Plain ${mention(outsider)}` } })).code).toBe('MENTION_NOT_ALLOWED');
    const listed = await ok(admin, 'query($id: ID!) { comments { list(targetId: $id) { edges { node { body mentions { id } } } } } }', { id: part!.id });
    expect(listed.comments.list.edges).toEqual([{ node: { body: 'Plain', mentions: [] } }]);
  });

  it("keeps a deleted comment's notifications without its text, in user.notifications and out of the digest", async () => {
    const [part] = await createParts(tenant, ['Deleted comment part']);
    const [watcher, digestWatcher, mentioned] = await Promise.all([memberWithRole(tenant, 'VIEWER'), memberWithRole(tenant, 'VIEWER'), memberWithRole(tenant, 'VIEWER')]);
    await ok(digestWatcher.headers, 'mutation { setNotificationSettings(input: { email: DIGEST }) { email } }');
    for (const who of [watcher, digestWatcher]) await ok(who.headers, 'mutation($input: WatchInput!) { watch(input: $input) { targetId } }', { input: { targetId: part!.id } });
    const secret = `Withdrawn supplier price ${Date.now()}`;
    const deleted = (await ok(author.headers, create, { input: { targetId: part!.id, body: `${secret} ${mention(mentioned)}` } })).comments.create;
    await ok(author.headers, create, { input: { targetId: part!.id, body: 'Kept note' } });
    await until(digestWatcher, (notes) => notes.filter((n) => n.kind === 'COMMENT').length === 2);
    const before = await until(watcher, (notes) => notes.filter((n) => n.kind === 'COMMENT').length === 2);
    expect(before.filter((n) => n.summary.includes(secret))).toHaveLength(1);
    await until(mentioned, (notes) => mentionsOf(notes, part!.id).length === 1);

    expect((await ok(author.headers, remove, { id: deleted.id })).comments.delete).toEqual({ id: deleted.id, deleted: true, body: null });
    // The notifications stay (read state, links), saying the comment was deleted, as its tombstone does: no text.
    const after = await notesOf(watcher);
    expect(after.map((n) => n.id)).toEqual(before.map((n) => n.id));
    expect(
      after
        .filter((n) => n.kind === 'COMMENT')
        .map((n) => n.summary)
        .sort(),
    ).toEqual(['A comment, since deleted', 'New comment: Kept note']);
    expect(mentionsOf(await notesOf(mentioned), part!.id).map((n) => n.summary)).toEqual(['You were mentioned in a comment, since deleted']);
    expect(JSON.stringify(await notesOf(digestWatcher))).not.toContain(secret);

    // The daily digest mails what is still there, not the deleted comment.
    const outbox = new OutboxMailer();
    await sendDueDigests({ store: testStore(), mailer: outbox, appUrl: 'https://app.example' });
    const digests = outbox.sent.filter((m) => m.to.includes(digestWatcher.email));
    expect(digests).toHaveLength(1);
    expect(digests[0]!.subject).toBe('Your daily digest: 1 notification');
    expect(digests[0]!.text).toContain('Kept note');
    expect(digests[0]!.text).not.toContain(secret);
  });

  it('mails a comment written over several lines with a one-line subject of bounded length', async () => {
    const [part] = await createParts(tenant, ['Multi-line comment part']);
    const watcher = await memberWithRole(tenant, 'VIEWER');
    await ok(watcher.headers, 'mutation($input: WatchInput!) { watch(input: $input) { targetId } }', { input: { targetId: part!.id } });
    const body = `Line one\r\n\nBcc: someone@example.com\n\n${'long '.repeat(60)}`;
    await ok(author.headers, create, { input: { targetId: part!.id, body } });
    await until(watcher, (notes) => notes.some((n) => n.kind === 'COMMENT'));
    const mails = await mailTo(watcher.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^Update: New comment: Line one Bcc: someone@example\.com long long .*…$/);
    expect(mails[0]!.subject).not.toMatch(/[\r\n\t]/);
    expect([...mails[0]!.subject].length).toBeLessThanOrEqual(150);
    // The body keeps the text as written.
    expect(mails[0]!.text).toContain('Line one\r\n\nBcc: someone@example.com');
  });
});
