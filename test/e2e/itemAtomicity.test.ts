import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanupAbandonedWrites } from '../../lib/items/cleanup.js';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { uploadFile } from '../support/files.js';
import { historyOf } from '../support/history.js';
import { expectCode } from '../support/errors.js';
import { libraryPartition, partitionItems, totalCount } from './componentHelpers.js';
import { capacityOf, createItems, createParts, itemCreateMutation, itemFields, itemUpdateMutation, itemWrites, lineSummary, readItem, type Item, type Link } from './itemHelpers.js';

/** What must not change on a parent when a call fails: version, BOM, links, history, BOM history (one query per parent). */
async function parentState(tenant: Tenant, ids: string[]) {
  return Promise.all(
    ids.map(async (id) => {
      const { component } = await gqlOk<{
        component: { findOne: Item & { history: { id: string; version: number }[]; bomHistory: { bomVersion: number; lines: Link[] }[] } };
      }>(
        tenant,
        `query($id: ID!) { component { findOne(id: $id) {
          ${itemFields} history(first: 1000) { id version } bomHistory(first: 1000) { bomVersion lines { id childId quantity refDes itemNumber notes childHistoryId } }
        } } }`,
        { id },
      );
      const item = component.findOne;
      return {
        id,
        name: item.name,
        description: item.description,
        version: item.version,
        children: item.children.map((l) => ({ ...lineSummary([l])[0], lineId: l.id })),
        documents: item.documents.map((d) => ({ id: d.id, documentId: d.documentId })).sort((a, b) => a.id.localeCompare(b.id)),
        history: item.history.map((h) => h.version),
        bomHistory: item.bomHistory.map((s) => s.bomVersion),
        bomSnapshots: item.bomHistory,
      };
    }),
  );
}

const allItems = (tenant: Tenant) => partitionItems(libraryPartition(tenant), ['']);
const withoutCounters = (items: Record<string, unknown>[]) => items.filter((i) => !String(i.SK).startsWith('CTR#'));
const count = (items: Record<string, unknown>[], prefix: string) => items.filter((i) => String(i.SK).startsWith(prefix)).length;

describe('item writes land whole or not at all', () => {
  let tenant: Tenant;
  let parts: Item[];
  let existingDoc: Item;
  /** An assembly whose CPN (category prefix 400, like every pcba) later inputs try to take. */
  let taken: Item;
  let fileId: string;
  let pendingFileId: string;

  beforeAll(async () => {
    tenant = await newTenant();
    fileId = (await uploadFile(tenant, Buffer.from('one file reused by every document'))).id;
    pendingFileId = (await uploadFile(tenant, Buffer.from('never completed'), { complete: false })).id;
    parts = await createParts(
      tenant,
      Array.from({ length: 20 }, (_, i) => `Atomic part ${i}`),
    );
    const created = await createItems(tenant, [
      { name: 'Shared spec', categoryId: 'specification' },
      { name: 'CPN owner', categoryId: 'pcba' },
    ]);
    existingDoc = created[0]!;
    taken = created[1]!;
  });

  describe('one transaction (the call fits 100 items)', () => {
    let assemblies: Item[];

    beforeAll(async () => {
      assemblies = await createItems(
        tenant,
        Array.from({ length: 10 }, (_, i) => ({ name: `Small ${i}`, categoryId: 'pcba', children: [{ childId: parts[i]!.id, quantity: i + 1 }] })),
      );
    });

    /** 10 inputs, each with a field change, a new BOM, one new document and a linked document: 100 transaction items. */
    const call = (assemblyIds: string[], tag: string) =>
      assemblyIds.map((id, i) => ({
        id,
        name: `Small ${i} ${tag}`,
        children: [
          { childId: parts[(i + 1) % 20]!.id, quantity: 2, refDes: `R${i}` },
          { childId: parts[(i + 2) % 20]!.id, quantity: 0.5 },
        ],
        documents: [{ fileId, name: `Small ${i} ${tag} drawing` }],
        documentComponentIds: [existingDoc.id],
      }));

    const failures: [string, string, (inputs: Record<string, unknown>[], ids: string[]) => void][] = [
      ['a child that does not exist', 'CHILD_NOT_FOUND', (inputs) => (inputs[9]!.children as unknown[]).push({ childId: randomUUID() })],
      [
        'a child that would make a cycle',
        'BOM_CYCLE',
        (inputs, ids) => {
          (inputs[0]!.children as unknown[]).push({ childId: ids[9] });
          (inputs[9]!.children as unknown[]).push({ childId: ids[0] });
        },
      ],
      ['a child pinned to a version that does not exist', 'INVALID_BOM_LINE', (inputs) => (inputs[9]!.children as unknown[]).push({ childId: parts[0]!.id, childHistoryId: `${parts[0]!.id}:7` })],
      ['a document from a file not completed', 'FILE_NOT_READY', (inputs) => (inputs[9]!.documents as unknown[]).push({ fileId: pendingFileId, name: 'late' })],
      ['a document from a file that does not exist', 'FILE_NOT_FOUND', (inputs) => (inputs[9]!.documents as unknown[]).push({ fileId: randomUUID(), name: 'missing' })],
      ['a stale expectedVersion', 'VERSION_CONFLICT', (inputs) => (inputs[9]!.expectedVersion = 99)],
    ];

    it.each(failures)('%s in the 10th component rolls back the other nine', async (_name, code, spoil) => {
      const ids = assemblies.map((a) => a.id);
      const before = await parentState(tenant, ids);
      const writes = await itemWrites(tenant);
      const documents = await totalCount(tenant, { categoryType: 'DOCUMENT' });
      const inputs = call(ids, 'failed');
      spoil(inputs, ids);
      const response = await expectCode(tenant, itemUpdateMutation, { inputs }, code);
      if (code !== 'BOM_CYCLE') expect(response.body.errors![0]!.message + JSON.stringify(response.body.errors![0]!.extensions)).toMatch(/inputs\[9\]|"inputIndex":9/);
      expect(await parentState(tenant, ids)).toEqual(before);
      expect(await itemWrites(tenant)).toEqual(writes);
      expect(await totalCount(tenant, { categoryType: 'DOCUMENT' })).toBe(documents);
    });

    it('the same call without the failure lands whole: one new version and one history record per component, one per created document', async () => {
      const ids = assemblies.map((a) => a.id);
      const before = await parentState(tenant, ids);
      const itemsBefore = await allItems(tenant);
      const response = await graphql<{ item: { update: Item[] } }>(itemUpdateMutation, { inputs: call(ids, 'landed') }, tenantHeaders(tenant));
      expect(response.body.errors).toBeUndefined();
      const updated = response.body.data!.item.update;
      expect(updated.map((u) => u.id)).toEqual(ids);
      const after = await parentState(tenant, ids);
      after.forEach((state, i) => {
        expect(state.name).toBe(`Small ${i} landed`);
        expect(state.version).toBe(before[i]!.version + 1);
        expect(state.history).toEqual([before[i]!.version + 1, ...before[i]!.history]);
        expect(state.bomHistory).toHaveLength(before[i]!.bomHistory.length + 1);
        expect(state.children.map((l) => [l.childId, l.quantity])).toEqual([
          [parts[(i + 1) % 20]!.id, 2],
          [parts[(i + 2) % 20]!.id, 0.5],
        ]);
        expect(state.documents).toHaveLength(before[i]!.documents.length + 2);
      });
      // One history record per component and one per created document: 10 + 10, however many relation fields.
      const itemsAfter = await allItems(tenant);
      expect(count(itemsAfter, 'H#') - count(itemsBefore, 'H#')).toBe(20);
      expect(count(itemsAfter, 'C#') - count(itemsBefore, 'C#')).toBe(10);
      for (const u of updated) {
        const created = u.documents.find((d) => d.documentId !== existingDoc.id && d.document!.name.endsWith('landed drawing'))!;
        expect((await historyOf(tenant, created.documentId)).map((h) => h.action)).toEqual(['CREATE']);
      }
      // 100 items of components, BOMs and documents plus one where-used entry per new child line: past one
      // transaction, so the call commits through exactly one commit record.
      expect(count(itemsAfter, 'WRITE#')).toBe(count(itemsBefore, 'WRITE#') + 1);
    });

    it('a CPN already taken, detected only by the transaction, fails item.create of 10 assemblies whole', async () => {
      const before = withoutCounters(await allItems(tenant));
      const total = await totalCount(tenant);
      // 10 new assemblies with BOMs: 60 transaction items, one transaction.
      const inputs = Array.from({ length: 10 }, (_, i) => ({
        name: `Create fail ${i}`,
        categoryId: 'pcba',
        children: [{ childId: parts[i]!.id, quantity: 3 }, { childId: parts[i + 1]!.id }],
        ...(i === 9 ? { cpn: taken.cpn } : {}),
      }));
      await expectCode(tenant, itemCreateMutation, { inputs }, 'CPN_TAKEN');
      // CPN counters may have advanced (gaps are allowed); nothing else was written.
      expect(withoutCounters(await allItems(tenant))).toEqual(before);
      expect(await totalCount(tenant)).toBe(total);
    });
  });

  describe('the maximal call: 10 components, 200 children, 200 new documents (two-phase commit)', () => {
    let assemblies: Item[];

    beforeAll(async () => {
      assemblies = await createItems(
        tenant,
        Array.from({ length: 10 }, (_, i) => ({
          name: `Max ${i}`,
          categoryId: 'top-level-assembly',
          children: [{ childId: parts[19 - i]!.id, quantity: 1 }],
          documentComponentIds: [existingDoc.id],
        })),
      );
    });

    const maximal = (ids: string[], tag: string) =>
      ids.map((id, i) => ({
        id,
        description: `maximal ${tag}`,
        children: parts.map((p, j) => ({ childId: p.id, quantity: j + 0.5, refDes: `U${i}.${j}`, itemNumber: String(j + 1) })),
        documents: Array.from({ length: 20 }, (_, j) => ({ fileId, name: `Max ${i} ${tag} doc ${j}` })),
      }));

    it('with a crash injected after the first pending write, nothing is visible; cleanupAbandonedWrites removes what was left', { timeout: 120_000 }, async () => {
      const ids = assemblies.map((a) => a.id);
      const before = await parentState(tenant, ids);
      const itemsBefore = await allItems(tenant);
      const total = await totalCount(tenant);
      const documents = await totalCount(tenant, { categoryType: 'DOCUMENT' });

      const response = await graphql(itemUpdateMutation, { inputs: maximal(ids, 'crashed') }, { ...tenantHeaders(tenant), 'x-plm-fault': 'crash-after-first-pending-write' });
      expect(response.body.errors?.length).toBeGreaterThan(0);
      expect(response.body.data ?? null).toBeNull();

      // Nothing of the call is visible.
      expect(await totalCount(tenant)).toBe(total);
      expect(await totalCount(tenant, { categoryType: 'DOCUMENT' })).toBe(documents);
      expect(await totalCount(tenant, { name: 'crashed doc' })).toBe(0);
      expect(await parentState(tenant, ids)).toEqual(before);

      // The crash left pending items under one write id, invisible to findOne.
      const left = await allItems(tenant);
      const writes = left.filter((i) => String(i.SK).startsWith('WRITE#') && !itemsBefore.some((b) => b.SK === i.SK));
      expect(writes).toHaveLength(1);
      const writeId = writes[0]!.writeId as string;
      expect(writes[0]).toMatchObject({ status: 'PENDING', settledAt: null });
      const pending = left.filter((i) => i.writeId === writeId && !String(i.SK).startsWith('WRITE#'));
      const pendingComponents = pending.filter((i) => String(i.SK).startsWith('C#'));
      expect(pendingComponents.length).toBeGreaterThan(0);
      expect(pendingComponents.length).toBeLessThan(200);
      for (const component of pendingComponents.slice(0, 5)) expect(await readItem(tenant, component.id as string)).toBeNull();
      const pendingFound = await graphql<{ component: { findAll: { totalCount: number } } }>(
        'query($filter: ComponentFilterInput) { component { findAll(filter: $filter) { totalCount } } }',
        { filter: { ids: pendingComponents.map((c) => c.id) } },
        tenantHeaders(tenant),
      );
      expect(pendingFound.body.data?.component.findAll.totalCount).toBe(0);
      // Writers ignore them too: an uncommitted document cannot be linked.
      const linkPending = await graphql(itemUpdateMutation, { inputs: [{ id: ids[0], documentComponentIds: [pendingComponents[0]!.id] }] }, tenantHeaders(tenant));
      expect(linkPending.body.errors?.[0]?.extensions?.code).toMatch(/NOT_FOUND$/);
      expect(await parentState(tenant, ids)).toEqual(before);

      // Cleanup (threshold 0: abandoned now) removes every item of the write.
      expect(await cleanupAbandonedWrites(testStore(), tenant.organization.id, tenant.library.id, 0)).toEqual({ aborted: 1, settled: 0 });
      const cleaned = await allItems(tenant);
      expect(cleaned.filter((i) => i.writeId === writeId && !String(i.SK).startsWith('WRITE#'))).toEqual([]);
      for (const prefix of ['C#', 'H#', 'CPN#', 'SD#', 'BOM#', 'BOMH#', 'DOCS#']) expect([prefix, count(cleaned, prefix)]).toEqual([prefix, count(itemsBefore, prefix)]);
      expect(cleaned.find((i) => i.SK === writes[0]!.SK)).toMatchObject({ status: 'ABORTED', settledAt: expect.any(String) });
      expect(await cleanupAbandonedWrites(testStore(), tenant.organization.id, tenant.library.id, 0)).toEqual({ aborted: 0, settled: 0 });
      expect(await parentState(tenant, ids)).toEqual(before);
      expect(await totalCount(tenant)).toBe(total);
    });

    it('without a fault it lands whole', { timeout: 120_000 }, async () => {
      const ids = assemblies.map((a) => a.id);
      const before = await parentState(tenant, ids);
      const itemsBefore = await allItems(tenant);
      const total = await totalCount(tenant);
      const documents = await totalCount(tenant, { categoryType: 'DOCUMENT' });

      const response = await graphql<{ item: { update: Item[] } }>(itemUpdateMutation, { inputs: maximal(ids, 'landed') }, tenantHeaders(tenant));
      expect(response.body.errors).toBeUndefined();
      const updated = response.body.data!.item.update;
      expect(updated).toHaveLength(10);
      expect(capacityOf(response).writeCapacityUnits).toBeGreaterThan(0);

      expect(await totalCount(tenant)).toBe(total + 200);
      expect(await totalCount(tenant, { categoryType: 'DOCUMENT' })).toBe(documents + 200);
      expect(await totalCount(tenant, { name: 'landed doc' })).toBe(200);
      const after = await parentState(tenant, ids);
      after.forEach((state, i) => {
        expect(state.version).toBe(before[i]!.version + 1);
        expect(state.history).toEqual([before[i]!.version + 1, ...before[i]!.history]);
        expect(state.bomHistory).toEqual([before[i]!.bomHistory[0]! + 1, ...before[i]!.bomHistory]);
        expect(state.children).toHaveLength(20);
        expect(state.children.map((l) => [l.childId, l.quantity, l.refDes, l.itemNumber])).toEqual(parts.map((p, j) => [p.id, j + 0.5, `U${i}.${j}`, String(j + 1)]));
        expect(state.documents).toHaveLength(21);
      });
      for (const [i, u] of updated.entries()) {
        const names = u.documents
          .filter((d) => d.documentId !== existingDoc.id)
          .map((d) => d.document!.name)
          .sort();
        expect(names).toEqual(Array.from({ length: 20 }, (_, j) => `Max ${i} landed doc ${j}`).sort());
        for (const d of u.documents) expect(d.document).not.toBeNull();
      }

      // One history record per component and per created document; the write settled (no item keeps its write id).
      const itemsAfter = await allItems(tenant);
      expect(count(itemsAfter, 'H#') - count(itemsBefore, 'H#')).toBe(210);
      expect(count(itemsAfter, 'C#') - count(itemsBefore, 'C#')).toBe(200);
      const newWrites = itemsAfter.filter((i) => String(i.SK).startsWith('WRITE#') && !itemsBefore.some((b) => b.SK === i.SK));
      expect(newWrites).toHaveLength(1);
      expect(newWrites[0]).toMatchObject({ status: 'COMMITTED', settledAt: expect.any(String) });
      expect(itemsAfter.filter((i) => i.writeId && !String(i.SK).startsWith('WRITE#'))).toEqual([]);
      const createdIds = updated.flatMap((u) => u.documents.filter((d) => d.documentId !== existingDoc.id).map((d) => d.documentId));
      const historyPerDocument = new Map(createdIds.map((id) => [id, 0]));
      for (const item of itemsAfter) {
        const match = /^H#([0-9a-f-]{36})#/.exec(String(item.SK));
        if (match && historyPerDocument.has(match[1]!)) historyPerDocument.set(match[1]!, historyPerDocument.get(match[1]!)! + 1);
      }
      expect([...historyPerDocument.values()].every((n) => n === 1)).toBe(true);
      expect(historyPerDocument.size).toBe(200);
      expect(await cleanupAbandonedWrites(testStore(), tenant.organization.id, tenant.library.id, 0)).toEqual({ aborted: 0, settled: 0 });
    });

    it('a concurrent update of one parent while the call is pending: the call lands whole or is VERSION_CONFLICT with nothing visible', { timeout: 120_000 }, async () => {
      const ids = assemblies.map((a) => a.id);
      const before = await parentState(tenant, ids);
      const itemsBefore = await allItems(tenant);
      const total = await totalCount(tenant);
      const inputs = maximal(ids, 'raced').map((input, i) => ({ ...input, expectedVersion: before[i]!.version }));
      const big = graphql(itemUpdateMutation, { inputs }, tenantHeaders(tenant));
      await new Promise((r) => setTimeout(r, 400));
      const small = await graphql(
        'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { version } } }',
        { inputs: [{ id: ids[9], name: 'Max 9 raced' }] },
        tenantHeaders(tenant),
      );
      const response = await big;
      const after = await parentState(tenant, ids);
      const itemsAfter = await allItems(tenant);
      expect(itemsAfter.filter((i) => i.writeId && !String(i.SK).startsWith('WRITE#'))).toEqual([]);
      if (response.body.errors) {
        // The small update won: the call left nothing (its pending documents were removed).
        expect(response.body.errors.map((e) => e.extensions?.code)).toEqual(['VERSION_CONFLICT']);
        expect(small.body.errors).toBeUndefined();
        expect(await totalCount(tenant)).toBe(total);
        expect(await totalCount(tenant, { name: 'raced doc' })).toBe(0);
        expect(count(itemsAfter, 'C#')).toBe(count(itemsBefore, 'C#'));
        expect(after.slice(0, 9)).toEqual(before.slice(0, 9));
        expect(after[9]).toEqual({ ...before[9], name: 'Max 9 raced', version: before[9]!.version + 1, history: [before[9]!.version + 1, ...before[9]!.history] });
        for (const write of itemsAfter.filter((i) => String(i.SK).startsWith('WRITE#') && !itemsBefore.some((b) => b.SK === i.SK))) {
          expect(write).toMatchObject({ status: 'ABORTED', settledAt: expect.any(String) });
        }
      } else {
        // The call won: all of it landed; the small update came after it or lost.
        expect(await totalCount(tenant)).toBe(total + 200);
        after.slice(0, 9).forEach((state, i) => expect(state.version).toBe(before[i]!.version + 1));
        expect(after[9]!.description).toBe('maximal raced');
      }
    });

    it('a CPN already taken is refused before anything is written: no pending documents, no commit record', { timeout: 120_000 }, async () => {
      const total = await totalCount(tenant);
      const before = withoutCounters(await allItems(tenant));
      const inputs = Array.from({ length: 10 }, (_, i) => ({
        name: `Commit fail ${i}`,
        categoryId: 'pcba',
        children: parts.map((p) => ({ childId: p.id, quantity: 1 })),
        documents: Array.from({ length: 20 }, (_, j) => ({ fileId, name: `Commit fail ${i} doc ${j}` })),
        ...(i === 9 ? { cpn: taken.cpn } : {}),
      }));
      await expectCode(tenant, itemCreateMutation, { inputs }, 'CPN_TAKEN');
      expect(await totalCount(tenant)).toBe(total);
      const after = withoutCounters(await allItems(tenant));
      // Hand-chosen CPNs are checked before the first write (and before any counter is used): nothing is new.
      expect(after).toEqual(before);
    });
  });
});
