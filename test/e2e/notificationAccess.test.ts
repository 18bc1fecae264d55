import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxMailer } from '../../lib/mail/mailer.js';
import { sendDueDigests } from '../../lib/notifications/digest.js';
import { newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { memberWithRole, notificationsOf as notesOf, ok, untilNotifications as until, type Member } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/**
 * user.notifications shows what a notification says (names, comment text) only to someone who may still
 * read its target: a watcher whose role in the library was narrowed since no longer reads them there.
 */
const comment = 'mutation($input: CreateCommentInput!) { comments { create(input: $input) { id } } }';
const updateAccess = 'mutation($input: UpdateLibraryAccessInput!) { organization { membership { updateLibraryAccess(input: $input) } } }';

let tenant: Tenant;
let admin: Record<string, string>;
let watcher: Member;

beforeAll(async () => {
  tenant = await newTenant();
  admin = tenantHeaders(tenant);
  watcher = await memberWithRole(tenant, 'VIEWER');
});

describe('notifications after access is lost', () => {
  it('hides the notifications of a library in which the reader no longer holds components.read, and shows them again when it is given back', async () => {
    const [part] = await createParts(tenant, ['Watched part']);
    await ok(watcher.headers, 'mutation($input: WatchInput!) { watch(input: $input) { targetId } }', { input: { targetId: part!.id } });
    await ok(admin, comment, { input: { targetId: part!.id, body: 'Confidential supplier price 4.20' } });
    const seen = await until(watcher, (notes) => notes.some((n) => n.kind === 'COMMENT'));
    expect(seen).toContainEqual(expect.objectContaining({ kind: 'COMMENT', targetId: part!.id, summary: 'New comment: Confidential supplier price 4.20' }));

    // Narrowed in the library to a role without components.read: the comment's text is no longer theirs to read.
    const role = await ok(admin, 'mutation($input: CreateRoleInput!) { roles { create(input: $input) { id } } }', {
      input: { name: 'Library reader without components', type: 'LIBRARY', permissions: ['library.read'] },
    });
    await ok(admin, updateAccess, { input: { userId: watcher.userId, libraryId: tenant.library.id, roleId: role.roles.create.id } });
    expect(await notesOf(watcher)).toEqual([]);

    await ok(admin, updateAccess, { input: { userId: watcher.userId, libraryId: tenant.library.id, roleId: null } });
    expect((await notesOf(watcher)).map((n) => n.kind)).toEqual(['COMMENT']);
  });

  it('leaves out of the daily digest what the reader may no longer read (it mailed the comment text to a watcher whose access was narrowed)', async () => {
    const digestWatcher = await memberWithRole(tenant, 'VIEWER');
    await ok(digestWatcher.headers, 'mutation { setNotificationSettings(input: { email: DIGEST }) { email } }');
    const [secret, open] = await createParts(tenant, ['Digest secret part', 'Digest open part']);
    await ok(digestWatcher.headers, 'mutation($input: WatchInput!) { watch(input: $input) { targetId } }', { input: { targetId: secret!.id } });
    await ok(admin, comment, { input: { targetId: secret!.id, body: 'Digest-hidden supplier price 9.99' } });
    await until(digestWatcher, (notes) => notes.some((n) => n.kind === 'COMMENT'));

    // Narrowed in the library after the notification was made, before the daily run.
    const role = await ok(admin, 'mutation($input: CreateRoleInput!) { roles { create(input: $input) { id } } }', {
      input: { name: 'Digest reader without components', type: 'LIBRARY', permissions: ['library.read'] },
    });
    await ok(admin, updateAccess, { input: { userId: digestWatcher.userId, libraryId: tenant.library.id, roleId: role.roles.create.id } });
    expect(await notesOf(digestWatcher)).toEqual([]);

    const outbox = new OutboxMailer();
    await sendDueDigests({ store: testStore(), mailer: outbox, appUrl: 'https://app.example' });
    expect(outbox.sent.filter((m) => m.to.includes(digestWatcher.email))).toEqual([]);

    // Given back, what they may read is in the next digest again (its mark was not spent on nothing).
    await ok(admin, updateAccess, { input: { userId: digestWatcher.userId, libraryId: tenant.library.id, roleId: null } });
    await ok(digestWatcher.headers, 'mutation($input: WatchInput!) { watch(input: $input) { targetId } }', { input: { targetId: open!.id } });
    await ok(admin, comment, { input: { targetId: open!.id, body: 'Digest-visible note' } });
    await until(digestWatcher, (notes) => notes.filter((n) => n.kind === 'COMMENT').length === 2);
    const again = new OutboxMailer();
    await sendDueDigests({ store: testStore(), mailer: again, appUrl: 'https://app.example' });
    const digests = again.sent.filter((m) => m.to.includes(digestWatcher.email));
    expect(digests).toHaveLength(1);
    expect(digests[0]!.text).toContain('Digest-visible note');
  });
});
