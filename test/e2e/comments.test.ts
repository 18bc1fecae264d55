import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, ok, refusal, type Member } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/** Comments over HTTP: permissions of each system role, mentions, threads, tombstones, locks, tenancy. */
const fields = 'id targetType targetId parentId stageIndex body deleted deletedBy { id } locked resolved createdBy { id } mentions { id }';
const create = `mutation($input: CreateCommentInput!) { comments { create(input: $input) { ${fields} } } }`;
const update = `mutation($input: UpdateCommentInput!) { comments { update(input: $input) { ${fields} } } }`;
const remove = `mutation($id: ID!) { comments { delete(id: $id) { ${fields} } } }`;
const lock = `mutation($id: ID!) { comments { lock(id: $id) { ${fields} } } }`;
const unlock = `mutation($id: ID!) { comments { unlock(id: $id) { ${fields} } } }`;
const resolve = `mutation($id: ID!) { comments { resolve(id: $id) { ${fields} } } }`;
const list = `query($targetId: ID!, $first: Int, $after: String) { comments { list(targetId: $targetId, pagination: { first: $first, after: $after }) { edges { cursor node { ${fields} } } pageInfo { hasNextPage endCursor } } } }`;
const countOf = `query($id: ID!) { component { findOne(id: $id) { commentCount } } }`;

let tenant: Tenant;
let admin: Record<string, string>;
let author: Member;
let otherEditor: Member;
let moderator: Member;
let viewer: Member;
let reviewer: Member;
let partId: string;

const post = (who: Member, input: Record<string, unknown>) => ok(who.headers, create, { input }).then((d) => d.comments.create);
const headersOf = (who: Member) => who.headers;

beforeAll(async () => {
  tenant = await newTenant();
  admin = tenantHeaders(tenant);
  [author, otherEditor, moderator, viewer, reviewer] = await Promise.all([
    memberWithRole(tenant, 'EDITOR'),
    memberWithRole(tenant, 'EDITOR'),
    memberWithRole(tenant, 'ADMIN'),
    memberWithRole(tenant, 'VIEWER'),
    memberWithRole(tenant, 'REVIEWER'),
  ]);
  partId = (await createParts(tenant, ['Commented part']))[0]!.id;
});

describe('comments', () => {
  it('keeps the body as written, counts comments and lists threads one level deep in order', async () => {
    const target = (await createParts(tenant, ['Thread part']))[0]!.id;
    const body = '# Title\n\n*markdown* <b>kept</b> as written';
    const root = await post(author, { targetId: target, body });
    expect(root).toMatchObject({ body, parentId: null, targetType: 'COMPONENT', deleted: false, createdBy: { id: author.userId } });
    const reply = await post(otherEditor, { targetId: target, parentId: root.id, body: 'a reply' });
    expect(reply.parentId).toBe(root.id);
    const second = await post(reviewer, { targetId: target, body: 'second thread' });
    expect((await refusal(headersOf(author), create, { input: { targetId: target, parentId: reply.id, body: 'deeper' } })).code).toBe('COMMENT_THREAD_TOO_DEEP');
    // An empty parentId names no comment (it was dropped, and the reply became a thread of its own).
    expect((await refusal(headersOf(author), create, { input: { targetId: target, parentId: '', body: 'meant as a reply' } })).code).toBe('NOT_FOUND');

    const first = (await ok(admin, list, { targetId: target, first: 2 })).comments.list;
    expect(first.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([root.id, reply.id]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const next = (await ok(admin, list, { targetId: target, first: 2, after: first.pageInfo.endCursor })).comments.list;
    expect(next.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([second.id]);
    expect((await ok(admin, countOf, { id: target })).component.findOne.commentCount).toBe(3);

    expect((await refusal(headersOf(author), create, { input: { targetId: target, body: 'x'.repeat(10_001) } })).code).toBe('BAD_USER_INPUT');
    expect((await post(author, { targetId: target, body: 'y'.repeat(10_000) })).body).toHaveLength(10_000);
  });

  it("refuses a cursor of another target's list (was read as a position in this one)", async () => {
    const [one, two] = (await createParts(tenant, ['Cursor part one', 'Cursor part two'])).map((p) => p.id);
    await post(author, { targetId: one, body: 'first on one' });
    await post(author, { targetId: one, body: 'second on one' });
    await post(author, { targetId: two, body: 'first on two' });
    await post(author, { targetId: two, body: 'second on two' });
    const page = (await ok(admin, list, { targetId: one, first: 1 })).comments.list;
    const refused = await refusal(admin, list, { targetId: two, first: 5, after: page.pageInfo.endCursor });
    expect({ code: refused.code, data: refused.data }).toEqual({ code: 'BAD_REQUEST', data: null });
    // The cursor still pages its own list.
    const rest = (await ok(admin, list, { targetId: one, first: 5, after: page.pageInfo.endCursor })).comments.list;
    expect(rest.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(['second on one']);
  });

  it('lets authors edit and delete their own, moderators anyone, and nobody else', async () => {
    const comment = await post(author, { targetId: partId, body: 'mine' });
    expect((await ok(headersOf(author), update, { input: { id: comment.id, body: 'mine, edited' } })).comments.update.body).toBe('mine, edited');
    const other = await refusal(headersOf(otherEditor), update, { input: { id: comment.id, body: 'not yours' } });
    expect(other).toMatchObject({ code: 'FORBIDDEN', error: { extensions: { requiredPermission: 'comments.moderate' } } });
    expect((await refusal(headersOf(otherEditor), remove, { id: comment.id })).code).toBe('FORBIDDEN');
    expect((await refusal(headersOf(viewer), update, { input: { id: comment.id, body: 'viewer' } })).code).toBe('FORBIDDEN');
    expect((await refusal(headersOf(viewer), remove, { id: comment.id })).code).toBe('FORBIDDEN');
    expect((await ok(headersOf(moderator), update, { input: { id: comment.id, body: 'moderated' } })).comments.update.body).toBe('moderated');

    // A viewer reads but does not write; a reviewer comments and edits its own but does not delete.
    expect((await refusal(headersOf(viewer), create, { input: { targetId: partId, body: 'hello' } })).code).toBe('FORBIDDEN');
    expect((await ok(headersOf(viewer), list, { targetId: partId })).comments.list.edges.length).toBeGreaterThan(0);
    const reviewers = await post(reviewer, { targetId: partId, body: 'review note' });
    expect((await ok(headersOf(reviewer), update, { input: { id: reviewers.id, body: 'review note 2' } })).comments.update.body).toBe('review note 2');
    expect((await refusal(headersOf(reviewer), remove, { id: reviewers.id })).code).toBe('FORBIDDEN');
    expect((await refusal(headersOf(otherEditor), lock, { id: comment.id })).code).toBe('FORBIDDEN');

    const before = (await ok(admin, countOf, { id: partId })).component.findOne.commentCount;
    await ok(headersOf(author), remove, { id: comment.id });
    expect((await ok(headersOf(moderator), remove, { id: reviewers.id })).comments.delete.deletedBy.id).toBe(moderator.userId);
    expect((await ok(admin, countOf, { id: partId })).component.findOne.commentCount).toBe(before - 2);
  });

  it('leaves a tombstone in the thread, with its replies', async () => {
    const root = await post(author, { targetId: partId, body: 'to be deleted' });
    const reply = await post(otherEditor, { targetId: partId, parentId: root.id, body: 'stays' });
    const deleted = (await ok(headersOf(author), remove, { id: root.id })).comments.delete;
    expect(deleted).toMatchObject({ id: root.id, deleted: true, body: null, deletedBy: { id: author.userId } });
    const nodes = (await ok(admin, list, { targetId: partId, first: 200 })).comments.list.edges.map((e: { node: { id: string } }) => e.node);
    expect(nodes.find((n: { id: string }) => n.id === root.id)).toMatchObject({ deleted: true, body: null });
    expect(nodes.find((n: { id: string }) => n.id === reply.id)).toMatchObject({ deleted: false, body: 'stays' });
    expect((await refusal(headersOf(author), update, { input: { id: root.id, body: 'back' } })).code).toBe('COMMENT_DELETED');
    expect((await refusal(headersOf(author), remove, { id: root.id })).code).toBe('COMMENT_DELETED');
  });

  it('locks a thread: replies and authors refused until a moderator unlocks it', async () => {
    const root = await post(author, { targetId: partId, body: 'heated' });
    expect((await ok(headersOf(moderator), lock, { id: root.id })).comments.lock.locked).toBe(true);
    expect((await refusal(headersOf(otherEditor), create, { input: { targetId: partId, parentId: root.id, body: 'more' } })).code).toBe('COMMENT_THREAD_LOCKED');
    expect((await refusal(headersOf(author), update, { input: { id: root.id, body: 'edit' } })).code).toBe('COMMENT_THREAD_LOCKED');
    expect((await refusal(headersOf(author), resolve, { id: root.id })).code).toBe('COMMENT_THREAD_LOCKED');
    expect((await ok(headersOf(moderator), update, { input: { id: root.id, body: 'calm' } })).comments.update.body).toBe('calm');
    await ok(headersOf(moderator), unlock, { id: root.id });
    expect((await post(otherEditor, { targetId: partId, parentId: root.id, body: 'after' })).parentId).toBe(root.id);
    expect((await ok(headersOf(author), resolve, { id: root.id })).comments.resolve.resolved).toBe(true);
  });

  it('accepts mentions of members who read the library and refuses others, writing nothing', async () => {
    const body = `cc @[Viewer](user:${viewer.userId})`;
    const comment = await post(author, { targetId: partId, body, mentions: [reviewer.userId] });
    expect(comment.mentions.map((m: { id: string }) => m.id).sort()).toEqual([viewer.userId, reviewer.userId].sort());

    const outsider = await newTenant();
    const stranger = outsider.user.id;
    const before = (await ok(admin, countOf, { id: partId })).component.findOne.commentCount;
    const refused = await refusal(headersOf(author), create, { input: { targetId: partId, body: `hi @[x](user:${stranger})` } });
    expect(refused).toMatchObject({ code: 'MENTION_NOT_ALLOWED', error: { extensions: { userIds: [stranger] } } });
    expect((await refusal(headersOf(author), create, { input: { targetId: partId, body: 'hi', mentions: [randomUUID()] } })).code).toBe('MENTION_NOT_ALLOWED');
    expect((await ok(admin, countOf, { id: partId })).component.findOne.commentCount).toBe(before);
  });

  it('comments on change orders need change_orders.read too, and count on the change order', async () => {
    const supplier = await memberWithRole(tenant, 'SUPPLIER');
    const co = (
      await ok(headersOf(author), 'mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { id } } }', {
        input: { name: 'Discussed', templateId: 'default-one-stage', componentIds: [partId], values: { reason: 'x' }, stages: [{ index: 0, reviewerIds: [reviewer.userId] }] },
      })
    ).changeOrders.create;
    const comment = await post(reviewer, { targetId: co.id, body: 'about this change' });
    expect(comment).toMatchObject({ targetType: 'CHANGE_ORDER', stageIndex: null });
    // A thread on a stage's decisions; its replies carry the stage.
    const onStage = await post(reviewer, { targetId: co.id, stageIndex: 0, body: 'why approve?' });
    expect((await post(author, { targetId: co.id, parentId: onStage.id, body: 'because' })).stageIndex).toBe(0);
    expect((await refusal(headersOf(author), create, { input: { targetId: co.id, stageIndex: 1, body: 'no such stage' } })).code).toBe('BAD_USER_INPUT');
    expect((await refusal(headersOf(author), create, { input: { targetId: partId, stageIndex: 0, body: 'not a change order' } })).code).toBe('BAD_USER_INPUT');
    const count = await ok(admin, 'query { changeOrders { get { nodes { id commentCount } } } }');
    expect(count.changeOrders.get.nodes.find((n: { id: string }) => n.id === co.id).commentCount).toBe(3);
    // A supplier comments on components but cannot see change orders.
    expect((await post(supplier, { targetId: partId, body: 'supplier note' })).targetType).toBe('COMPONENT');
    expect(await refusal(headersOf(supplier), list, { targetId: co.id })).toMatchObject({ code: 'FORBIDDEN', error: { extensions: { requiredPermission: 'change_orders.read' } } });
    expect((await refusal(headersOf(supplier), create, { input: { targetId: co.id, body: 'x' } })).code).toBe('FORBIDDEN');
  });

  it("refuses a mention on a change order's thread of a member who cannot read change orders (was accepted, and they were never told)", async () => {
    const supplier = await memberWithRole(tenant, 'SUPPLIER');
    const co = (
      await ok(headersOf(author), 'mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { id } } }', {
        input: { name: 'Mentions on a change order', templateId: 'default-one-stage', componentIds: [partId], values: { reason: 'x' }, stages: [{ index: 0, reviewerIds: [reviewer.userId] }] },
      })
    ).changeOrders.create;
    const coCount = async () => (await ok(admin, 'query { changeOrders { get { nodes { id commentCount } } } }')).changeOrders.get.nodes.find((n: { id: string }) => n.id === co.id).commentCount;

    const refused = await refusal(headersOf(author), create, { input: { targetId: co.id, body: `see @[Supplier](user:${supplier.userId})` } });
    expect(refused).toMatchObject({ code: 'MENTION_NOT_ALLOWED', data: null, error: { extensions: { userIds: [supplier.userId] } } });
    expect((await refusal(headersOf(author), create, { input: { targetId: co.id, body: 'see', mentions: [supplier.userId] } })).code).toBe('MENTION_NOT_ALLOWED');
    expect(await coCount()).toBe(0);
    expect((await ok(headersOf(author), list, { targetId: co.id })).comments.list.edges).toEqual([]);

    // An edit may not bring them in either; the comment stays as it was.
    const comment = await post(author, { targetId: co.id, body: `ask @[Reviewer](user:${reviewer.userId})` });
    expect((await refusal(headersOf(author), update, { input: { id: comment.id, body: 'ask', mentions: [supplier.userId] } })).code).toBe('MENTION_NOT_ALLOWED');
    const [stored] = (await ok(headersOf(author), list, { targetId: co.id })).comments.list.edges.map((e: { node: unknown }) => e.node);
    expect(stored).toMatchObject({ body: `ask @[Reviewer](user:${reviewer.userId})`, mentions: [{ id: reviewer.userId }] });
    // On a component they read, the same member is mentioned.
    expect((await post(author, { targetId: partId, body: 'see', mentions: [supplier.userId] })).mentions).toEqual([{ id: supplier.userId }]);
  });

  it("cannot read or touch another tenant's comments", async () => {
    const comment = await post(author, { targetId: partId, body: 'private' });
    const other = await newTenant();
    const otherHeaders = tenantHeaders(other);
    expect((await refusal(otherHeaders, list, { targetId: partId })).code).toBe('NOT_FOUND');
    expect((await refusal(otherHeaders, update, { input: { id: comment.id, body: 'hijack' } })).code).toBe('NOT_FOUND');
    expect((await refusal(otherHeaders, remove, { id: comment.id })).code).toBe('NOT_FOUND');
    expect((await refusal(otherHeaders, create, { input: { targetId: partId, parentId: comment.id, body: 'reply' } })).code).toBe('NOT_FOUND');
    // Another tenant's headers with this tenant's library are refused before anything is read.
    expect((await refusal({ ...otherHeaders, 'x-library': tenant.library.path }, list, { targetId: partId })).status).toBe(403);
  });
});
