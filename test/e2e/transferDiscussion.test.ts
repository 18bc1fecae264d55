import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { addMember } from '../../lib/orgs/operator.js';
import { plans } from '../../lib/orgs/plans.js';
import { listAuditEntries, sealAuditChain, verifyAuditChain } from '../../lib/store/audit.js';
import { listWatchesOfUser } from '../../lib/store/watch.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import { readImportDirectory, writeExportDirectory } from '../../lib/transfer/files.js';
import type { ExportedAuditEntry, ExportedComponent, Manifest } from '../../lib/transfer/format.js';
import { importLibrary } from '../../lib/transfer/import.js';
import { gqlOk, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { adminCli } from '../support/admin.js';
import { memberWithRole, ok, type Member } from './accessHelpers.js';
import { createAssembly, createParts } from './itemHelpers.js';
import { stackFiles } from './transferHelpers.js';

/**
 * Comments, watches and audit entries carried by a library export into ANOTHER organization, through the
 * operator CLI (export, import): threads, tombstones, resolved state and mentions come back under new ids;
 * people are matched in the target organization (by id, then by email), a commenter who is nobody there
 * keeps their name only, a watcher who is nobody there is dropped; the source's audit entries are in the
 * export and never in the target's log, whose chain still verifies.
 */
const store = testStore();
const fields = 'id parentId body deleted deletedBy { id } resolved resolvedBy { id } createdBy { id } authorName mentions { id }';
const create = `mutation($input: CreateCommentInput!) { comments { create(input: $input) { ${fields} } } }`;
const list = `query($targetId: ID!) { comments { list(targetId: $targetId) { edges { node { ${fields} } } } } }`;
const watchMutation = `mutation($input: WatchInput!) { watch(input: $input) { targetId } }`;
const findOne = `query($id: ID!) { component { findOne(id: $id) { id commentCount } } }`;

let source: Tenant;
let target: Tenant;
/** B: a member of both organizations; C: of the source only. */
let both: Member;
let onlySource: Member;
let partId: string;
let assemblyId: string;

const chainOf = (t: Tenant) => `ORG#${t.organization.id}#AUDIT`;
const post = (who: Record<string, string>, input: Record<string, unknown>) => ok(who, create, { input }).then((d) => d.comments.create);

beforeAll(async () => {
  [source, target] = await Promise.all([newTenant(), newTenant()]);
  [both, onlySource] = await Promise.all([memberWithRole(source, 'EDITOR'), memberWithRole(source, 'EDITOR')]);
  await addMember(store, { orgSlug: target.organization.slug, email: both.email, role: 'EDITOR' });
  const [part] = await createParts(source, ['Commented part']);
  partId = part!.id;
  assemblyId = (await createAssembly(source, 'Watched board', [{ childId: partId, quantity: 1 }])).id;
});

describe('library export and import of comments, watches and audit entries', () => {
  it('round-trips threads, tombstones and watches into another organization and never writes the source audit entries there', async () => {
    // Explicit watches first, so that the automatic ones of the comments below (from the stream) add nothing.
    await ok(both.headers, watchMutation, { input: { targetId: partId } });
    await ok(both.headers, watchMutation, { input: { targetId: assemblyId, withChildren: true } });
    await ok(onlySource.headers, watchMutation, { input: { targetId: partId } });
    const root = await post(both.headers, { targetId: partId, body: `Check the tolerance @[C](user:${onlySource.userId})`, mentions: [both.userId] });
    const reply = await post(onlySource.headers, { targetId: partId, parentId: root.id, body: 'Done, 1 %' });
    const removed = await post(both.headers, { targetId: partId, parentId: root.id, body: 'typo' });
    await ok(both.headers, 'mutation($id: ID!) { comments { delete(id: $id) { id } } }', { id: removed.id });
    await ok(tenantHeaders(source), 'mutation($id: ID!) { comments { resolve(id: $id) { id } } }', { id: root.id });

    const directory = await mkdtemp(join(tmpdir(), 'plm-discussion-'));
    const librarySlug = ['--library-slug', 'main'];
    const exported = JSON.parse((await adminCli(['export', '--org-slug', source.organization.slug, ...librarySlug, '--out', directory])).stdout);
    expect(exported.counts).toMatchObject({ components: 2, comments: 3, watches: 3 });
    const manifest = JSON.parse(await readFile(join(directory, 'library.json'), 'utf8')) as Manifest;
    const components = JSON.parse(await readFile(join(directory, 'components.json'), 'utf8')) as ExportedComponent[];
    const part = components.find((c) => c.id === partId)!;
    expect(part.comments!.map((c) => [c.id, c.parentId, c.deleted, c.body])).toEqual([
      [root.id, null, false, root.body],
      [reply.id, root.id, false, 'Done, 1 %'],
      [removed.id, root.id, true, null],
    ]);
    expect(manifest.people![onlySource.userId]).toEqual({ name: expect.any(String), email: onlySource.email });
    // The audit entries about the library (its comments' creation among them), one JSON object a line.
    const auditEntries = (await readFile(join(directory, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ExportedAuditEntry);
    expect(auditEntries.filter((e) => e.operation === 'comments.create' && e.targets.includes(partId))).toHaveLength(3);
    expect(manifest.audit).toMatchObject({ included: true, entries: auditEntries.length });

    // A watcher known to the file by email only (an export from another deployment): matched to the target's owner.
    const stranger = randomUUID();
    part.watches!.push({ userId: stranger, withChildren: false, active: true, automatic: false, createdAt: new Date().toISOString() });
    manifest.people![stranger] = { name: 'Owner elsewhere', email: target.user.email };
    await writeFile(join(directory, 'components.json'), JSON.stringify(components));
    await writeFile(join(directory, 'library.json'), JSON.stringify(manifest));

    await sealAuditChain(store, chainOf(target));
    const before = new Set((await listAuditEntries(store, chainOf(target))).map((e) => e.entryId));
    const imported = JSON.parse((await adminCli(['import', '--org-slug', target.organization.slug, ...librarySlug, '--in', directory])).stdout);
    expect(imported).toMatchObject({ components: 2, comments: 3, watches: 3, watchesDropped: 1, commentAuthorsUnmatched: 1, auditEntriesSkipped: auditEntries.length });

    // Threads under new ids, in order; the author who is nobody here keeps a name only, the mention of them is dropped.
    const targetLibrary = await exportLibrary(store, { organizationId: target.organization.id, libraryId: target.library.id }, { auditEntries: false });
    const idOf = (cpn: string) => targetLibrary.components.find((c) => c.cpn === cpn)!.id;
    const newPart = (await gqlOk<any>(target, findOne, { id: idOf(part.cpn) })).component.findOne;
    expect(newPart.commentCount).toBe(2);
    const thread = (await gqlOk<any>(target, list, { targetId: newPart.id })).comments.list.edges.map((e: { node: any }) => e.node);
    expect(thread.map((c: { id: string }) => c.id)).not.toContain(root.id);
    expect(thread).toEqual([
      {
        id: thread[0].id,
        parentId: null,
        body: root.body,
        deleted: false,
        deletedBy: null,
        resolved: true,
        resolvedBy: null,
        createdBy: { id: both.userId },
        authorName: null,
        mentions: [{ id: both.userId }],
      },
      {
        id: thread[1].id,
        parentId: thread[0].id,
        body: 'Done, 1 %',
        deleted: false,
        deletedBy: null,
        resolved: false,
        resolvedBy: null,
        createdBy: null,
        authorName: manifest.people![onlySource.userId]!.name,
        mentions: [],
      },
      {
        id: thread[2].id,
        parentId: thread[0].id,
        body: null,
        deleted: true,
        deletedBy: { id: both.userId },
        resolved: false,
        resolvedBy: null,
        createdBy: { id: both.userId },
        authorName: null,
        mentions: [],
      },
    ]);

    // Watches: B's two (the assembly's with its children), the owner's by email; C's dropped.
    const newAssembly = { id: idOf(components.find((c) => c.id === assemblyId)!.cpn) };
    const inTarget = (w: { organizationId: string }) => w.organizationId === target.organization.id;
    const watchesOfB = (await listWatchesOfUser(store, both.userId)).filter(inTarget).map((w) => [w.targetId, w.targetType, w.withChildren]);
    expect(watchesOfB.sort()).toEqual(
      [
        [newPart.id, 'COMPONENT', false],
        [newAssembly.id, 'ASSEMBLY', true],
      ].sort(),
    );
    expect((await listWatchesOfUser(store, target.user.id)).filter(inTarget).map((w) => w.targetId)).toEqual([newPart.id]);
    expect((await listWatchesOfUser(store, onlySource.userId)).filter(inTarget)).toEqual([]);

    // An imported thread takes new replies (an audited mutation of the target organization).
    const later = await post(tenantHeaders(target), { targetId: newPart.id, parentId: thread[0].id, body: 'Imported and answered' });

    // The target's log: only its own entries (the reply, and the operator's import when the CLI audits it), none of the source's; the chain verifies.
    await sealAuditChain(store, chainOf(target));
    const after = await listAuditEntries(store, chainOf(target));
    const added = after.filter((e) => !before.has(e.entryId));
    const sourceIds = new Set(auditEntries.map((e) => e.entryId));
    expect(added.filter((e) => e.operation === 'comments.create').map((e) => e.targets)).toEqual([[newPart.id, thread[0].id]]);
    expect(later.parentId).toBe(thread[0].id);
    expect(added.every((e) => e.organizationId === target.organization.id && !sourceIds.has(e.entryId) && e.operation !== 'comments.delete')).toBe(true);
    expect(after.some((e) => sourceIds.has(e.entryId) || e.organizationId === source.organization.id)).toBe(false);
    expect((await verifyAuditChain(store, chainOf(target))).ok).toBe(true);
    expect(JSON.parse((await adminCli(['audit', 'verify', '--org-slug', target.organization.slug])).stdout).ok).toBe(true);
  }, 180_000);

  it('leaves the audit entries out of an API export for a caller who may not read the log, and refuses a broken thread', async () => {
    const exported = await exportLibrary(store, { organizationId: source.organization.id, libraryId: source.library.id }, { auditEntries: false });
    expect(exported.auditEntries).toEqual([]);
    expect(exported.manifest.audit).toMatchObject({ included: false, entries: 0 });

    // A reply whose thread is not in the file: refused with its path, nothing written.
    const withComments = await exportLibrary(store, { organizationId: source.organization.id, libraryId: source.library.id });
    const index = withComments.components.findIndex((c) => (c.comments?.length ?? 0) > 1);
    const broken = withComments.components[index]!.comments!;
    withComments.components[index]!.comments = broken.filter((c) => c.parentId !== null);
    const directory = await mkdtemp(join(tmpdir(), 'plm-discussion-bad-'));
    await writeExportDirectory(directory, withComments, stackFiles());
    const fresh = await newTenant();
    const refused = importLibrary(store, { organizationId: fresh.organization.id, libraryId: fresh.library.id }, await readImportDirectory(directory), {
      actor: { userId: fresh.user.id, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() },
      entitlements: plans.enterprise,
      blobs: stackFiles(),
    });
    await expect(refused).rejects.toMatchObject({
      code: 'IMPORT_INVALID',
      problems: expect.arrayContaining([expect.objectContaining({ path: `components.json[${index}].comments[0].parentId`, code: 'COMMENT_THREAD_INVALID' })]),
    });
  });
});
