import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, ok, type Member } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/**
 * user.notifications shows what a notification says (names, comment text) only to someone who may still
 * read its target: a watcher whose role in the library was narrowed since no longer reads them there.
 */
const notificationsQuery = 'query { user { notifications(pagination: { first: 200 }) { edges { node { kind targetId summary } } } } }';
const comment = 'mutation($input: CreateCommentInput!) { comments { create(input: $input) { id } } }';
const updateAccess = 'mutation($input: UpdateLibraryAccessInput!) { organization { membership { updateLibraryAccess(input: $input) } } }';

interface Note {
  kind: string;
  targetId: string;
  summary: string;
}

const notesOf = async (who: Member): Promise<Note[]> => (await ok(who.headers, notificationsQuery)).user.notifications.edges.map((e: { node: Note }) => e.node);

async function until(who: Member, test: (notes: Note[]) => boolean): Promise<Note[]> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    const notes = await notesOf(who);
    if (test(notes)) return notes;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`notifications never arrived for ${who.email}: ${JSON.stringify(await notesOf(who))}`);
}

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
    expect(seen).toContainEqual({ kind: 'COMMENT', targetId: part!.id, summary: 'New comment: Confidential supplier price 4.20' });

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
