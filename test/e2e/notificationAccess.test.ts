import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
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
});
