import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { uploadFile } from '../support/files.js';
import { historyOf } from '../support/history.js';
import { expectCode } from '../support/errors.js';
import { totalCount } from './componentHelpers.js';
import {
  bomHistoryOf,
  capacityOf,
  createAssembly,
  createItems,
  createParts,
  itemCreateMutation,
  itemUpdateMutation,
  itemWrites,
  lineSummary,
  readItem,
  updateBomMutation,
  updateItems,
  type Item,
} from './itemHelpers.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const line = (childId: string, fields: Record<string, unknown> = {}) => ({
  childId,
  quantity: null,
  refDes: null,
  itemNumber: null,
  notes: null,
  childHistoryId: null,
  ...fields,
});

describe('items: BOMs, documents and relation fields', () => {
  let tenant: Tenant;
  let other: Tenant;
  let fileId: string;
  let imageId: string;
  let parts: Item[];

  beforeAll(async () => {
    [tenant, other] = await Promise.all([newTenant(), newTenant()]);
    fileId = (await uploadFile(tenant, Buffer.from('%PDF-1.4 a drawing'))).id;
    imageId = (await uploadFile(tenant, Buffer.from('\x89PNG an image'), { name: 'board.png', contentType: 'image/png' })).id;
    parts = await createParts(tenant, ['Bracket', 'Screw', 'Washer', 'Spacer', 'Nut', 'Standoff']);
  });

  describe('component.create and component.update refuse the relation fields', () => {
    const createWith = (field: string, value: string) => `mutation { component { create(inputs: [{ name: "x", ${field}: ${value} }]) { id } } }`;
    const updateWith = (id: string, field: string, value: string) => `mutation { component { update(inputs: [{ id: "${id}", ${field}: ${value} }]) { id } } }`;
    const relationFields: [string, (ids: { part: string; file: string }) => string][] = [
      ['children', ({ part }) => `[{ childId: "${part}" }]`],
      ['documents', ({ file }) => `[{ fileId: "${file}", name: "doc" }]`],
      ['documentComponentIds', ({ part }) => `["${part}"]`],
      ['removeDocumentLinkIds', () => `["${randomUUID()}"]`],
    ];

    it.each(relationFields)('component.create with %s is a GraphQL validation error naming the field; nothing is written', async (field, value) => {
      const before = await itemWrites(tenant);
      const response = await graphql(createWith(field, value({ part: parts[0]!.id, file: fileId })), undefined, tenantHeaders(tenant));
      expect(response.body.data ?? null).toBeNull();
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors![0]!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(response.body.errors![0]!.message).toContain(`"${field}"`);
      expect(response.body.errors![0]!.message).toContain('CreateComponentInput');
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it.each(relationFields)('component.update with %s is a GraphQL validation error naming the field; nothing is written', async (field, value) => {
      const before = await itemWrites(tenant);
      const response = await graphql(updateWith(parts[0]!.id, field, value({ part: parts[1]!.id, file: fileId })), undefined, tenantHeaders(tenant));
      expect(response.body.data ?? null).toBeNull();
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors![0]!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(response.body.errors![0]!.message).toContain(`"${field}"`);
      expect(response.body.errors![0]!.message).toContain('UpdateComponentInput');
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('refuses the relation fields passed in variables too, naming the field', async () => {
      const response = await graphql(
        'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }',
        { inputs: [{ name: 'x', categoryId: 'pcba', children: [{ childId: parts[0]!.id }] }] },
        tenantHeaders(tenant),
      );
      expect(response.body.data ?? null).toBeNull();
      expect(response.body.errors?.[0]?.message).toContain('"children"');
    });

    it('item.create has no removeDocumentLinkIds (update only)', async () => {
      const response = await graphql(`mutation { item { create(inputs: [{ name: "x", categoryId: "pcba", removeDocumentLinkIds: ["${randomUUID()}"] }]) { id } } }`, undefined, tenantHeaders(tenant));
      expect(response.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(response.body.errors?.[0]?.message).toContain('"removeDocumentLinkIds"');
    });
  });

  describe('item inputs are the component inputs plus the relation fields', () => {
    it('CreateItemInput and UpdateItemInput have every field of CreateComponentInput and UpdateComponentInput, with the same types', async () => {
      const typeRef = `type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`;
      const data = await gqlOk<Record<string, { inputFields: { name: string; type: unknown }[] }>>(
        tenant,
        `{ cc: __type(name: "CreateComponentInput") { inputFields { name ${typeRef} } } ci: __type(name: "CreateItemInput") { inputFields { name ${typeRef} } }
           uc: __type(name: "UpdateComponentInput") { inputFields { name ${typeRef} } } ui: __type(name: "UpdateItemInput") { inputFields { name ${typeRef} } } }`,
      );
      const fields = (key: string) => Object.fromEntries(data[key]!.inputFields.map((f) => [f.name, f.type]));
      expect(fields('ci')).toEqual(expect.objectContaining(fields('cc')));
      expect(fields('ui')).toEqual(expect.objectContaining(fields('uc')));
      expect(
        Object.keys(fields('ci'))
          .filter((f) => !(f in fields('cc')))
          .sort(),
      ).toEqual(['children', 'documentComponentIds', 'documents']);
      expect(
        Object.keys(fields('ui'))
          .filter((f) => !(f in fields('uc')))
          .sort(),
      ).toEqual(['children', 'documentComponentIds', 'documents', 'removeDocumentLinkIds']);
    });

    it('component fields work through item.create and item.update as through component.*: attributes are validated, merged and deleted', async () => {
      const before = await itemWrites(tenant);
      await expectCode(tenant, itemCreateMutation, { inputs: [{ name: '10k', categoryId: 'resistor', children: [] }] }, 'ATTRIBUTE_VALIDATION_FAILED');
      expect(await itemWrites(tenant)).toEqual(before);
      const query = `mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id version eid labels { name } documentFormats description attributeValues { attributeId value } } } }`;
      const { item } = await gqlOk<{ item: { create: { id: string; version: number; attributeValues: { attributeId: string; value: unknown }[] }[] } }>(tenant, query, {
        inputs: [
          {
            name: '10k',
            description: 'thick film',
            categoryId: 'resistor',
            eid: 'ERP-1',
            labels: ['smd'],
            documentFormats: ['PDF'],
            attributeValues: [
              { attributeId: 'resistance', value: 10000 },
              { attributeId: 'tolerance', value: 1 },
            ],
          },
        ],
      });
      expect(item.create[0]).toMatchObject({ version: 1, eid: 'ERP-1', labels: [{ name: 'smd' }], documentFormats: ['PDF'], description: 'thick film' });
      const id = item.create[0]!.id;
      const { item: updated } = await gqlOk<{ item: { update: { version: number; attributeValues: { attributeId: string; value: unknown }[] }[] } }>(
        tenant,
        'mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { version attributeValues { attributeId value } } } }',
        {
          inputs: [
            {
              id,
              expectedVersion: 1,
              attributeValues: [
                { attributeId: 'tolerance', value: null },
                { attributeId: 'power', value: 0.1 },
              ],
            },
          ],
        },
      );
      expect(updated.update[0]!.version).toBe(2);
      expect(Object.fromEntries(updated.update[0]!.attributeValues.map((a) => [a.attributeId, a.value]))).toEqual({ resistance: 10000, power: 0.1 });
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id, expectedVersion: 1, name: 'stale' }] }, 'VERSION_CONFLICT');
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: randomUUID(), name: 'ghost' }] }, 'NOT_FOUND');
    });

    it('an empty or malformed id, alone or repeated, is BAD_USER_INPUT naming the input; nothing is written', async () => {
      const before = await itemWrites(tenant);
      const cases: [{ id: string }[], number][] = [
        [[{ id: '' }, { id: '' }], 0],
        [[{ id: '' }], 0],
        [[{ id: parts[0]!.id }, { id: 'not-a-uuid' }], 1],
        [[{ id: ' ' }, { id: ' ' }], 0],
        [[{ id: parts[0]!.id }, { id: parts[0]!.id }], 1],
      ];
      for (const [inputs, inputIndex] of cases) {
        const response = await expectCode(tenant, itemUpdateMutation, { inputs }, 'BAD_USER_INPUT');
        expect(response.body.errors![0]!.extensions).toMatchObject({ field: 'id', inputIndex });
      }
      expect(await itemWrites(tenant)).toEqual(before);
    });
  });

  describe('item.create and item.update with every relation field', () => {
    let spec: Item;
    let board: Item;

    beforeAll(async () => {
      spec = (await createItems(tenant, [{ name: 'Board spec', categoryId: 'specification' }]))[0]!;
    });

    it('item.create: fileId, imageFileId, children, documents and documentComponentIds land together with one history record per component', async () => {
      const documentsBefore = await totalCount(tenant, { categoryType: 'DOCUMENT' });
      const created = await createItems(tenant, [
        {
          name: 'Main board',
          description: 'Controller',
          categoryId: 'pcba',
          fileId,
          imageFileId: imageId,
          children: [{ childId: parts[0]!.id, quantity: 2.5, refDes: 'MH1, MH2', itemNumber: '10', notes: 'torque 0.4 Nm' }, { childId: parts[1]!.id }],
          documents: [
            { fileId, name: 'Main board drawing' },
            { fileId, name: 'Main board datasheet', categoryId: 'datasheet' },
          ],
          documentComponentIds: [spec.id],
        },
        { name: 'Loose part', categoryId: 'mechanical' },
      ]);
      expect(created).toHaveLength(2);
      board = created[0]!;
      expect(board).toMatchObject({ name: 'Main board', version: 1, fileId, imageFileId: imageId, category: { id: 'pcba', type: 'ASSEMBLY' } });
      expect(lineSummary(board.children)).toEqual([line(parts[0]!.id, { quantity: 2.5, refDes: 'MH1, MH2', itemNumber: '10', notes: 'torque 0.4 Nm' }), line(parts[1]!.id)]);
      for (const link of board.children) {
        expect(link.assemblyId).toBe(board.id);
        expect(link.isPinned).toBe(false);
        expect(link.createdByIntegrationId).toBeNull();
        expect(link.createdAt).toMatch(iso);
      }
      expect(board.children.map((l) => l.child?.name)).toEqual(['Bracket', 'Screw']);
      expect(created[1]).toMatchObject({ name: 'Loose part', version: 1, children: [], documents: [] });

      const documents = [...board.documents].sort((a, b) => a.document!.name.localeCompare(b.document!.name));
      expect(documents.map((d) => [d.document!.name, d.document!.category])).toEqual([
        ['Board spec', { id: 'specification', type: 'DOCUMENT' }],
        ['Main board datasheet', { id: 'datasheet', type: 'DOCUMENT' }],
        ['Main board drawing', { id: 'drawing', type: 'DOCUMENT' }],
      ]);
      for (const d of documents) {
        expect(d.documentId).toBe(d.document!.id);
        expect(d.createdAt).toMatch(iso);
      }
      expect(documents.filter((d) => d.documentId !== spec.id).map((d) => d.document!.fileId)).toEqual([fileId, fileId]);
      expect(await totalCount(tenant, { categoryType: 'DOCUMENT' })).toBe(documentsBefore + 2);

      // Exactly one history record per component and per created document.
      const history = await historyOf(tenant, board.id);
      expect(history.map((h) => [h.version, h.action])).toEqual([[1, 'CREATE']]);
      expect(history[0]!.changes.map((c) => c.field)).toEqual(expect.arrayContaining(['children', 'documentLinks']));
      for (const d of documents.filter((d) => d.documentId !== spec.id)) {
        expect((await historyOf(tenant, d.documentId)).map((h) => [h.version, h.action])).toEqual([[1, 'CREATE']]);
      }
      // Linking an existing document does not write it.
      expect((await historyOf(tenant, spec.id)).map((h) => h.version)).toEqual([1]);
      expect((await bomHistoryOf(tenant, board.id)).map((s) => s.bomVersion)).toEqual([1]);
      // Read back the same.
      expect(await readItem(tenant, board.id)).toEqual({ ...board, documents: expect.arrayContaining(board.documents) });
    });

    it('item.update: fields, fileId, children, documents, documentComponentIds and removeDocumentLinkIds in one version and one history record', async () => {
      const otherFile = (await uploadFile(tenant, Buffer.from('another file'), { name: 'b.step', contentType: 'model/step' })).id;
      const [datasheet] = await createItems(tenant, [{ name: 'Vendor datasheet', categoryId: 'datasheet' }]);
      const specLink = board.documents.find((d) => d.documentId === spec.id)!;
      const keptLinks = board.documents.filter((d) => d.documentId !== spec.id);
      const [updated] = await updateItems(tenant, [
        {
          id: board.id,
          expectedVersion: 1,
          name: 'Main board rev 2',
          fileId: otherFile,
          children: [
            { childId: parts[2]!.id, quantity: 4, refDes: 'W1-W4' },
            { childId: parts[0]!.id, quantity: 1 },
          ],
          documents: [{ fileId: otherFile, name: 'Rev 2 drawing' }],
          documentComponentIds: [datasheet!.id],
          removeDocumentLinkIds: [specLink.id],
        },
      ]);
      expect(updated).toMatchObject({ id: board.id, name: 'Main board rev 2', version: 2, fileId: otherFile, imageFileId: imageId });
      expect(lineSummary(updated!.children)).toEqual([line(parts[2]!.id, { quantity: 4, refDes: 'W1-W4' }), line(parts[0]!.id, { quantity: 1 })]);
      const names = updated!.documents.map((d) => d.document!.name).sort();
      expect(names).toEqual(['Main board datasheet', 'Main board drawing', 'Rev 2 drawing', 'Vendor datasheet']);
      // Kept links keep their ids.
      for (const kept of keptLinks) expect(updated!.documents.find((d) => d.documentId === kept.documentId)?.id).toBe(kept.id);
      // The unlinked document still exists, unchanged.
      expect((await readItem(tenant, spec.id))?.version).toBe(1);

      const history = await historyOf(tenant, board.id);
      expect(history.map((h) => [h.version, h.action])).toEqual([
        [2, 'UPDATE'],
        [1, 'CREATE'],
      ]);
      expect(history[0]!.changes.map((c) => c.field)).toEqual(expect.arrayContaining(['name', 'fileId', 'children', 'documentLinks']));
      const created = updated!.documents.find((d) => d.document!.name === 'Rev 2 drawing')!;
      expect(created.document).toMatchObject({ version: 1, fileId: otherFile, category: { id: 'drawing', type: 'DOCUMENT' } });
      expect((await historyOf(tenant, created.documentId)).map((h) => h.action)).toEqual(['CREATE']);
      expect((await historyOf(tenant, datasheet!.id)).map((h) => h.version)).toEqual([1]);
      expect((await bomHistoryOf(tenant, board.id)).map((s) => s.bomVersion)).toEqual([2, 1]);
    });

    it('removing an unknown document link is refused and nothing is written', async () => {
      const before = await itemWrites(tenant);
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: board.id, name: 'renamed', removeDocumentLinkIds: [randomUUID()] }] }, 'DOCUMENT_LINK_NOT_FOUND');
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('documentComponentIds must name DOCUMENT components of the library; documents need a DOCUMENT category', async () => {
      const before = await itemWrites(tenant);
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: board.id, documentComponentIds: [parts[0]!.id] }] }, 'NOT_A_DOCUMENT');
      const [foreignDoc] = await createItems(other, [{ name: 'Foreign doc', categoryId: 'drawing' }]);
      for (const documentId of [randomUUID(), foreignDoc!.id]) {
        const missing = await graphql(itemUpdateMutation, { inputs: [{ id: board.id, documentComponentIds: [documentId] }] }, tenantHeaders(tenant));
        expect(missing.body.errors?.[0]?.extensions?.code).toMatch(/NOT_FOUND$/);
      }
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: board.id, documents: [{ fileId, name: 'x', categoryId: 'mechanical' }] }] }, 'NOT_A_DOCUMENT');
      expect(await itemWrites(tenant)).toEqual(before);
    });
  });

  describe('children: a desired-state list', () => {
    it('omitted leaves the BOM unchanged, a list makes the BOM exactly that list, [] unlinks all', async () => {
      const assembly = await createAssembly(tenant, 'Desired state', [
        { childId: parts[0]!.id, quantity: 1 },
        { childId: parts[1]!.id, quantity: 2 },
      ]);
      expect(assembly.children.map((l) => l.childId)).toEqual([parts[0]!.id, parts[1]!.id]);

      // Omitted: a plain field change; BOM and BOM history unchanged.
      const [renamed] = await updateItems(tenant, [{ id: assembly.id, description: 'only the description' }]);
      expect(renamed!.version).toBe(2);
      expect(lineSummary(renamed!.children)).toEqual(lineSummary(assembly.children));
      expect(renamed!.children.map((l) => l.id)).toEqual(assembly.children.map((l) => l.id));
      expect((await bomHistoryOf(tenant, assembly.id)).map((s) => s.bomVersion)).toEqual([1]);
      expect((await historyOf(tenant, assembly.id))[0]!.changes.map((c) => c.field)).toEqual(['description']);

      // A list: exactly that list (one kept with a new quantity, one removed, two added), in order.
      const [replaced] = await updateItems(tenant, [
        {
          id: assembly.id,
          children: [
            { childId: parts[2]!.id, quantity: 0.25, itemNumber: '1' },
            { childId: parts[1]!.id, quantity: 7 },
            { childId: parts[3]!.id, refDes: 'J1', notes: 'do not fit' },
          ],
        },
      ]);
      expect(replaced!.version).toBe(3);
      expect(lineSummary(replaced!.children)).toEqual([
        line(parts[2]!.id, { quantity: 0.25, itemNumber: '1' }),
        line(parts[1]!.id, { quantity: 7 }),
        line(parts[3]!.id, { refDes: 'J1', notes: 'do not fit' }),
      ]);
      expect(lineSummary((await readItem(tenant, assembly.id))!.children)).toEqual(lineSummary(replaced!.children));

      // []: unlinks all.
      const [emptied] = await updateItems(tenant, [{ id: assembly.id, children: [] }]);
      expect(emptied!.version).toBe(4);
      expect(emptied!.children).toEqual([]);
      expect((await readItem(tenant, assembly.id))!.children).toEqual([]);
      const snapshots = await bomHistoryOf(tenant, assembly.id);
      expect(snapshots.map((s) => [s.bomVersion, s.lines.length])).toEqual([
        [3, 0],
        [2, 3],
        [1, 2],
      ]);
    });

    it('fractional quantities; refDes, itemNumber and notes are kept per line', async () => {
      const assembly = await createAssembly(tenant, 'Fractions', [
        { childId: parts[0]!.id, quantity: 0.001, refDes: 'A', itemNumber: '0010', notes: 'glue, ml' },
        { childId: parts[1]!.id, quantity: 12.75 },
        { childId: parts[2]!.id },
      ]);
      const read = (await readItem(tenant, assembly.id))!;
      expect(lineSummary(read.children)).toEqual([
        line(parts[0]!.id, { quantity: 0.001, refDes: 'A', itemNumber: '0010', notes: 'glue, ml' }),
        line(parts[1]!.id, { quantity: 12.75 }),
        line(parts[2]!.id),
      ]);
    });

    it.each([0, -1])('quantity %d is refused and nothing is written', async (quantity) => {
      const assembly = await createAssembly(tenant, `Bad quantity ${quantity}`);
      const before = await itemWrites(tenant);
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: assembly.id, children: [{ childId: parts[0]!.id, quantity }] }] }, 'INVALID_BOM_LINE');
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('only assemblies have children (NOT_AN_ASSEMBLY), on create and on update; nothing is written', async () => {
      const before = await itemWrites(tenant);
      await expectCode(tenant, itemCreateMutation, { inputs: [{ name: 'Part with BOM', categoryId: 'mechanical', children: [{ childId: parts[0]!.id }] }] }, 'NOT_AN_ASSEMBLY');
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: parts[4]!.id, children: [{ childId: parts[0]!.id }] }] }, 'NOT_AN_ASSEMBLY');
      const [document] = await createItems(tenant, [{ name: 'A drawing', categoryId: 'drawing' }]);
      const afterDocument = await itemWrites(tenant);
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: document!.id, children: [{ childId: parts[0]!.id }] }] }, 'NOT_AN_ASSEMBLY');
      expect(await itemWrites(tenant)).toEqual(afterDocument);
      expect(afterDocument.length).toBeGreaterThan(before.length);
    });

    it('an assembly with lines cannot silently become a part: the category change needs children: []', async () => {
      const assembly = await createAssembly(tenant, 'Becomes a part', [{ childId: parts[0]!.id }]);
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: assembly.id, categoryId: 'mechanical' }] }, 'NOT_AN_ASSEMBLY');
      const [part] = await updateItems(tenant, [{ id: assembly.id, categoryId: 'mechanical', children: [] }]);
      expect(part).toMatchObject({ category: { id: 'mechanical', type: 'PART' }, children: [] });
    });

    it('component.update cannot turn an assembly with lines into a part either (only assemblies have children)', async () => {
      const assembly = await createAssembly(tenant, 'Becomes a part via component.update', [{ childId: parts[0]!.id }]);
      const response = await graphql(
        'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id } } }',
        { inputs: [{ id: assembly.id, categoryId: 'mechanical' }] },
        tenantHeaders(tenant),
      );
      const read = (await readItem(tenant, assembly.id))!;
      // Either refused like item.update, or the part is left without children: never a PART with a BOM.
      if (read.category.type !== 'ASSEMBLY') expect(read.children, JSON.stringify(response.body)).toEqual([]);
      else expect(response.body.errors?.[0]?.extensions?.code).toBe('NOT_AN_ASSEMBLY');
    });

    it('a child that does not exist, or exists in another library, is CHILD_NOT_FOUND and nothing is written', async () => {
      const [foreign] = await createParts(other, ['Foreign part']);
      const assembly = await createAssembly(tenant, 'Child lookups', [{ childId: parts[0]!.id }]);
      const before = await itemWrites(tenant);
      for (const childId of [randomUUID(), foreign!.id]) {
        const response = await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: assembly.id, children: [{ childId: parts[1]!.id }, { childId }] }] }, 'CHILD_NOT_FOUND');
        expect(response.body.errors![0]!.message).toContain(childId);
        await expectCode(tenant, itemCreateMutation, { inputs: [{ name: 'New assembly', categoryId: 'pcba', children: [{ childId }] }] }, 'CHILD_NOT_FOUND');
      }
      expect(await itemWrites(tenant)).toEqual(before);
      expect(lineSummary((await readItem(tenant, assembly.id))!.children)).toEqual([line(parts[0]!.id)]);
    });

    it('a deleted child is CHILD_NOT_FOUND', async () => {
      const [gone] = await createParts(tenant, ['To be deleted']);
      await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [gone!.id] });
      await expectCode(tenant, itemCreateMutation, { inputs: [{ name: 'Uses deleted', categoryId: 'pcba', children: [{ childId: gone!.id }] }] }, 'CHILD_NOT_FOUND');
    });
  });

  describe('childHistoryId pins a line to a child version', () => {
    it('ComponentHistoryEntry.id is <componentId>:<version>; a pinned line shows that version after the child changes, an unpinned one the latest', async () => {
      const [child] = await createParts(tenant, ['Pinned bracket'], { description: 'steel' });
      const history = await historyOf(tenant, child!.id);
      expect(history.map((h) => h.id)).toEqual([`${child!.id}:1`]);

      const assembly = await createAssembly(tenant, 'Pinning', [
        { childId: child!.id, quantity: 1, childHistoryId: history[0]!.id },
        { childId: child!.id, quantity: 2 },
      ]);
      expect(assembly.children.map((l) => [l.isPinned, l.childHistoryId])).toEqual([
        [true, `${child!.id}:1`],
        [false, null],
      ]);

      await updateItems(tenant, [{ id: child!.id, name: 'Pinned bracket v2', description: 'aluminium' }]);
      expect((await historyOf(tenant, child!.id)).map((h) => h.id)).toEqual([`${child!.id}:2`, `${child!.id}:1`]);

      const read = (await readItem(tenant, assembly.id))!;
      expect(read.children[0]!.child).toEqual({ id: child!.id, name: 'Pinned bracket', description: 'steel', version: 1 });
      expect(read.children[1]!.child).toEqual({ id: child!.id, name: 'Pinned bracket v2', description: 'aluminium', version: 2 });

      // Re-pin to version 2.
      const [repinned] = await updateItems(tenant, [{ id: assembly.id, children: [{ childId: child!.id, childHistoryId: `${child!.id}:2` }] }]);
      expect(repinned!.children[0]).toMatchObject({ isPinned: true, childHistoryId: `${child!.id}:2`, child: { version: 2, description: 'aluminium' } });
      await updateItems(tenant, [{ id: child!.id, description: 'titanium' }]);
      expect((await readItem(tenant, assembly.id))!.children[0]!.child).toMatchObject({ version: 2, description: 'aluminium' });
    });

    it('a pinned line shows the attribute values of its version', async () => {
      const [resistor] = await createItems(tenant, [
        {
          name: 'Pinned 1k',
          categoryId: 'resistor',
          attributeValues: [
            { attributeId: 'resistance', value: 1000 },
            { attributeId: 'tolerance', value: 5 },
          ],
        },
      ]);
      const assembly = await createAssembly(tenant, 'Pinned attributes', [{ childId: resistor!.id, childHistoryId: `${resistor!.id}:1` }, { childId: resistor!.id }]);
      await updateItems(tenant, [
        {
          id: resistor!.id,
          attributeValues: [
            { attributeId: 'resistance', value: 2200 },
            { attributeId: 'tolerance', value: null },
            { attributeId: 'power', value: 0.25 },
          ],
        },
      ]);
      const data = await gqlOk<{ component: { findOne: { children: { child: { version: number; attributeValues: { attributeId: string; value: unknown }[] } }[] } } }>(
        tenant,
        'query($id: ID!) { component { findOne(id: $id) { children { child { version attributeValues { attributeId value } } } } } }',
        { id: assembly.id },
      );
      const values = data.component.findOne.children.map((l) => [l.child.version, Object.fromEntries(l.child.attributeValues.map((a) => [a.attributeId, a.value]))]);
      expect(values).toEqual([
        [1, { resistance: 1000, tolerance: 5 }],
        [2, { resistance: 2200, power: 0.25 }],
      ]);
    });

    it('a childHistoryId that is not a version of the child (an empty one included) is refused and nothing is written', async () => {
      const assembly = await createAssembly(tenant, 'Bad pins');
      const before = await itemWrites(tenant);
      for (const childHistoryId of [`${parts[0]!.id}:99`, `${parts[1]!.id}:1`, 'nonsense', `${parts[0]!.id}:0`, '']) {
        await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: assembly.id, children: [{ childId: parts[0]!.id, childHistoryId }] }] }, 'INVALID_BOM_LINE');
      }
      expect(await itemWrites(tenant)).toEqual(before);
    });
  });

  describe('cycles are refused with BOM_CYCLE and nothing is written', () => {
    it('a two-level cycle: A contains B, then B would contain A', async () => {
      const b = await createAssembly(tenant, 'Cycle B', [{ childId: parts[0]!.id }]);
      const a = await createAssembly(tenant, 'Cycle A', [{ childId: b.id, quantity: 2 }]);
      const before = await itemWrites(tenant);
      const response = await expectCode(
        tenant,
        itemUpdateMutation,
        { inputs: [{ id: b.id, expectedVersion: 1, name: 'renamed', children: [{ childId: parts[0]!.id }, { childId: a.id }] }] },
        'BOM_CYCLE',
      );
      expect(response.body.errors![0]!.message).toMatch(/Cycle B.*Cycle A.*Cycle B/);
      expect(await itemWrites(tenant)).toEqual(before);
      const readB = (await readItem(tenant, b.id))!;
      expect(readB).toMatchObject({ name: 'Cycle B', version: 1 });
      expect(lineSummary(readB.children)).toEqual([line(parts[0]!.id)]);
      expect((await bomHistoryOf(tenant, b.id)).map((s) => s.bomVersion)).toEqual([1]);
      expect((await historyOf(tenant, b.id)).map((h) => h.version)).toEqual([1]);
      // Also through assemblies.updateBOM.
      await expectCode(tenant, updateBomMutation, { input: { assemblyId: b.id, children: [{ childId: a.id }] } }, 'BOM_CYCLE');
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('a self-reference', async () => {
      const a = await createAssembly(tenant, 'Self');
      const before = await itemWrites(tenant);
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: a.id, children: [{ childId: a.id }] }] }, 'BOM_CYCLE');
      await expectCode(tenant, updateBomMutation, { input: { assemblyId: a.id, children: [{ childId: a.id }] } }, 'BOM_CYCLE');
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('a three-level cycle: A > B > C, then C would contain A', async () => {
      const c = await createAssembly(tenant, 'Deep C');
      const b = await createAssembly(tenant, 'Deep B', [{ childId: c.id }]);
      const a = await createAssembly(tenant, 'Deep A', [{ childId: b.id }]);
      const before = await itemWrites(tenant);
      await expectCode(tenant, itemUpdateMutation, { inputs: [{ id: c.id, children: [{ childId: parts[0]!.id }, { childId: a.id }] }] }, 'BOM_CYCLE');
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('a cycle made by two inputs of one call (neither BOM stored yet), refusing the whole call', async () => {
      const a = await createAssembly(tenant, 'Same call A');
      const b = await createAssembly(tenant, 'Same call B');
      const before = await itemWrites(tenant);
      await expectCode(
        tenant,
        itemUpdateMutation,
        {
          inputs: [
            { id: a.id, children: [{ childId: b.id }] },
            { id: b.id, children: [{ childId: a.id }] },
          ],
        },
        'BOM_CYCLE',
      );
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('two concurrent calls that each add one half of a cycle: at most one lands, no cycle is stored', async () => {
      for (let round = 0; round < 3; round += 1) {
        const a = await createAssembly(tenant, `Race cycle A${round}`);
        const b = await createAssembly(tenant, `Race cycle B${round}`);
        const responses = await Promise.all([
          graphql(updateBomMutation, { input: { assemblyId: a.id, children: [{ childId: b.id }] } }, tenantHeaders(tenant)),
          graphql(updateBomMutation, { input: { assemblyId: b.id, children: [{ childId: a.id }] } }, tenantHeaders(tenant)),
        ]);
        const codes = responses.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'OK');
        const [readA, readB] = [(await readItem(tenant, a.id))!, (await readItem(tenant, b.id))!];
        const stored = readA.children.length + readB.children.length;
        expect({ round, codes, stored }).toEqual({ round, codes: expect.arrayContaining(['OK']), stored: 1 });
      }
    });

    it('a shared sub-assembly (a diamond) is not a cycle', async () => {
      const d = await createAssembly(tenant, 'Diamond D', [{ childId: parts[0]!.id }]);
      const b = await createAssembly(tenant, 'Diamond B', [{ childId: d.id }]);
      const c = await createAssembly(tenant, 'Diamond C', [{ childId: d.id }]);
      const a = await createAssembly(tenant, 'Diamond A', [{ childId: b.id }, { childId: c.id }, { childId: d.id }]);
      expect(a.children).toHaveLength(3);
    });
  });

  describe('assemblies.updateBOM', () => {
    it('takes the same desired-state list, checks expectedVersion, and [] unlinks all', async () => {
      const assembly = await createAssembly(tenant, 'Via updateBOM', [{ childId: parts[0]!.id }]);
      const { assemblies } = await gqlOk<{ assemblies: { updateBOM: Item } }>(tenant, updateBomMutation, {
        input: { assemblyId: assembly.id, expectedVersion: 1, children: [{ childId: parts[1]!.id, quantity: 1.5, refDes: 'X1', itemNumber: '20', notes: 'n' }, { childId: parts[2]!.id }] },
      });
      expect(assemblies.updateBOM.version).toBe(2);
      expect(lineSummary(assemblies.updateBOM.children)).toEqual([line(parts[1]!.id, { quantity: 1.5, refDes: 'X1', itemNumber: '20', notes: 'n' }), line(parts[2]!.id)]);
      expect((await historyOf(tenant, assembly.id)).map((h) => h.version)).toEqual([2, 1]);

      const before = await itemWrites(tenant);
      await expectCode(tenant, updateBomMutation, { input: { assemblyId: assembly.id, expectedVersion: 1, children: [] } }, 'VERSION_CONFLICT');
      await expectCode(tenant, updateBomMutation, { input: { assemblyId: assembly.id, children: [{ childId: randomUUID() }] } }, 'CHILD_NOT_FOUND');
      await expectCode(tenant, updateBomMutation, { input: { assemblyId: parts[0]!.id, children: [{ childId: parts[1]!.id }] } }, 'NOT_AN_ASSEMBLY');
      expect(await itemWrites(tenant)).toEqual(before);

      const emptied = await gqlOk<{ assemblies: { updateBOM: Item } }>(tenant, updateBomMutation, { input: { assemblyId: assembly.id, expectedVersion: 2, children: [] } });
      expect(emptied.assemblies.updateBOM).toMatchObject({ version: 3, children: [] });
      expect((await bomHistoryOf(tenant, assembly.id)).map((s) => s.bomVersion)).toEqual([3, 2, 1]);
    });

    it('refuses an unknown assembly', async () => {
      const response = await graphql(updateBomMutation, { input: { assemblyId: randomUUID(), children: [] } }, tenantHeaders(tenant));
      expect(response.body.errors?.[0]?.extensions?.code).toMatch(/NOT_FOUND$/);
    });
  });

  describe('read side', () => {
    it('bomHistory: one snapshot per BOM version, newest first, with the lines, createdBy and actingIntegrationId null', async () => {
      const assembly = await createAssembly(tenant, 'History', [{ childId: parts[0]!.id, quantity: 1 }]);
      await updateItems(tenant, [{ id: assembly.id, children: [{ childId: parts[0]!.id, quantity: 2 }, { childId: parts[1]!.id }] }]);
      await updateItems(tenant, [{ id: assembly.id, name: 'History renamed' }]); // no BOM change: no snapshot
      await updateItems(tenant, [{ id: assembly.id, children: [{ childId: parts[1]!.id, refDes: 'R' }] }]);
      const snapshots = await bomHistoryOf(tenant, assembly.id);
      expect(snapshots.map((s) => s.bomVersion)).toEqual([3, 2, 1]);
      expect(snapshots.map((s) => lineSummary(s.lines))).toEqual([
        [line(parts[1]!.id, { refDes: 'R' })],
        [line(parts[0]!.id, { quantity: 2 }), line(parts[1]!.id)],
        [line(parts[0]!.id, { quantity: 1 })],
      ]);
      for (const snapshot of snapshots) {
        expect(snapshot.actingIntegrationId).toBeNull();
        expect(snapshot.createdBy).toEqual({ id: tenant.user.id });
        expect(snapshot.createdAt).toMatch(iso);
        for (const l of snapshot.lines) expect(l).toMatchObject({ assemblyId: assembly.id, createdByIntegrationId: null });
      }
      expect((await bomHistoryOf(tenant, assembly.id, 1)).map((s) => s.bomVersion)).toEqual([3]);
      expect(await bomHistoryOf(tenant, parts[5]!.id)).toEqual([]);
    });

    it('whereUsed lists the lines of the assemblies that use a component, and follows BOM changes', async () => {
      const [widget] = await createParts(tenant, ['Where-used widget']);
      const a = await createAssembly(tenant, 'Uses widget A', [{ childId: widget!.id, quantity: 3, refDes: 'W' }]);
      const b = await createAssembly(tenant, 'Uses widget B', [{ childId: parts[0]!.id }, { childId: widget!.id, quantity: 0.5 }]);
      const whereUsed = async (id: string) =>
        (
          await gqlOk<{ component: { findOne: { whereUsed: { id: string; assemblyId: string; childId: string; quantity: number | null; refDes: string | null }[] } } }>(
            tenant,
            'query($id: ID!) { component { findOne(id: $id) { whereUsed { id assemblyId childId quantity refDes } } } }',
            { id },
          )
        ).component.findOne.whereUsed;
      const used = await whereUsed(widget!.id);
      expect(used.map((u) => [u.assemblyId, u.childId, u.quantity, u.refDes]).sort()).toEqual(
        [
          [a.id, widget!.id, 3, 'W'],
          [b.id, widget!.id, 0.5, null],
        ].sort(),
      );
      expect(used.find((u) => u.assemblyId === a.id)!.id).toBe(a.children[0]!.id);

      await updateItems(tenant, [{ id: b.id, children: [{ childId: parts[0]!.id }] }]);
      expect((await whereUsed(widget!.id)).map((u) => u.assemblyId)).toEqual([a.id]);
      expect(await whereUsed(a.id)).toEqual([]);
      await updateItems(tenant, [{ id: a.id, children: [] }]);
      expect(await whereUsed(widget!.id)).toEqual([]);
    });

    it('a deleted assembly has no current BOM: it is no longer a where-used of its children', async () => {
      const [widget] = await createParts(tenant, ['Where-used after delete']);
      const a = await createAssembly(tenant, 'Deleted user', [{ childId: widget!.id, quantity: 3 }]);
      const b = await createAssembly(tenant, 'Kept user', [{ childId: widget!.id }]);
      await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [a.id] });
      const data = await gqlOk<{ component: { findOne: { whereUsed: { assemblyId: string }[] } } }>(tenant, 'query($id: ID!) { component { findOne(id: $id) { whereUsed { assemblyId } } } }', {
        id: widget!.id,
      });
      expect(data.component.findOne.whereUsed.map((u) => u.assemblyId)).toEqual([b.id]);
    });

    it('indentedBom: depth first in line order with rolled-up quantities (top x3 sub, sub x4 part -> 12), and depth limiting', async () => {
      const [p1, p2, p3, p4, p5] = await createParts(tenant, ['Indented p1', 'Indented p2', 'Indented p3', 'Indented p4', 'Indented p5']);
      const cable = await createAssembly(tenant, 'Indented cable', [{ childId: p5!.id, quantity: 5 }], 'cable-assembly');
      const sub = await createAssembly(tenant, 'Indented sub', [{ childId: p1!.id, quantity: 4 }, { childId: p3!.id, quantity: 0.5 }, { childId: cable.id, quantity: 2 }, { childId: p4!.id }]);
      const top = await createAssembly(
        tenant,
        'Indented top',
        [
          { childId: sub.id, quantity: 3, refDes: 'SUB' },
          { childId: p2!.id, quantity: 2 },
        ],
        'top-level-assembly',
      );

      type Line = { level: number; path: string[]; rolledUpQuantity: number; hasChildren: boolean; link: { assemblyId: string; childId: string; quantity: number | null; child: { name: string } } };
      const indented = async (id: string, depth?: number) => {
        const response = await graphql<{ component: { findOne: { indentedBom: Line[] } } }>(
          `query($id: ID!${depth === undefined ? '' : ', $depth: Int'}) { component { findOne(id: $id) { indentedBom${depth === undefined ? '' : '(depth: $depth)'} { level path rolledUpQuantity hasChildren link { assemblyId childId quantity child { name } } } } } }`,
          { id, ...(depth === undefined ? {} : { depth }) },
          tenantHeaders(tenant),
        );
        return response;
      };
      const rows = (lines: Line[]) => lines.map((l) => [l.level, l.link.child.name, l.rolledUpQuantity, l.hasChildren, l.path, l.link.assemblyId]);

      const full = await indented(top.id);
      expect(full.body.errors).toBeUndefined();
      expect(rows(full.body.data!.component.findOne.indentedBom)).toEqual([
        [1, 'Indented sub', 3, true, [top.id, sub.id], top.id],
        [2, 'Indented p1', 12, false, [top.id, sub.id, p1!.id], sub.id],
        [2, 'Indented p3', 1.5, false, [top.id, sub.id, p3!.id], sub.id],
        [2, 'Indented cable', 6, true, [top.id, sub.id, cable.id], sub.id],
        [3, 'Indented p5', 30, false, [top.id, sub.id, cable.id, p5!.id], cable.id],
        [2, 'Indented p4', 3, false, [top.id, sub.id, p4!.id], sub.id],
        [1, 'Indented p2', 2, false, [top.id, p2!.id], top.id],
      ]);
      expect(full.body.data!.component.findOne.indentedBom[4]!.link.quantity).toBe(5);

      const depth1 = (await indented(top.id, 1)).body.data!.component.findOne.indentedBom;
      expect(rows(depth1)).toEqual([
        [1, 'Indented sub', 3, true, [top.id, sub.id], top.id],
        [1, 'Indented p2', 2, false, [top.id, p2!.id], top.id],
      ]);
      const depth2 = (await indented(top.id, 2)).body.data!.component.findOne.indentedBom;
      expect(depth2.map((l) => [l.level, l.link.child.name, l.rolledUpQuantity])).toEqual([
        [1, 'Indented sub', 3],
        [2, 'Indented p1', 12],
        [2, 'Indented p3', 1.5],
        [2, 'Indented cable', 6],
        [2, 'Indented p4', 3],
        [1, 'Indented p2', 2],
      ]);
      expect((await indented(sub.id, 25)).body.data!.component.findOne.indentedBom.map((l) => l.rolledUpQuantity)).toEqual([4, 0.5, 2, 10, 1]);
      expect((await indented(p1!.id)).body.data!.component.findOne.indentedBom).toEqual([]);
      for (const depth of [0, 26]) {
        const response = await indented(top.id, depth);
        expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      }
    });
  });

  describe('limits: ITEM_WRITE_TOO_LARGE before anything is read or written', () => {
    const children = (count: number) => Array.from({ length: count }, () => ({ childId: randomUUID(), quantity: 1 }));
    const documents = (count: number) => Array.from({ length: count }, (_, i) => ({ fileId: randomUUID(), name: `doc ${i}` }));
    const cases: [string, string, Record<string, unknown>][] = [
      ['11 components (update)', itemUpdateMutation, { inputs: Array.from({ length: 11 }, () => ({ id: randomUUID(), name: 'x' })) }],
      ['11 components (create)', itemCreateMutation, { inputs: Array.from({ length: 11 }, (_, i) => ({ name: `x${i}`, categoryId: 'mechanical' })) }],
      ['21 children on one component', itemUpdateMutation, { inputs: [{ id: randomUUID(), children: children(21) }] }],
      ['21 children on one component (create)', itemCreateMutation, { inputs: [{ name: 'x', categoryId: 'pcba', children: children(21) }] }],
      ['201 children in the call', itemUpdateMutation, { inputs: [...Array.from({ length: 9 }, () => ({ id: randomUUID(), children: children(20) })), { id: randomUUID(), children: children(21) }] }],
      ['21 documents on a component', itemUpdateMutation, { inputs: [{ id: randomUUID(), documents: documents(21) }] }],
      [
        '11 documents and 10 documentComponentIds on a component',
        itemCreateMutation,
        { inputs: [{ name: 'x', documents: documents(11), documentComponentIds: Array.from({ length: 10 }, () => randomUUID()) }] },
      ],
      ['21 children through assemblies.updateBOM', updateBomMutation, { input: { assemblyId: randomUUID(), children: children(21) } }],
    ];

    it.each(cases)('%s: refused, only the request context read, nothing written', async (_name, query, variables) => {
      const before = await itemWrites(tenant);
      const response = await expectCode(tenant, query, variables, 'ITEM_WRITE_TOO_LARGE');
      expect(response.status).toBe(200);
      const capacity = capacityOf(response);
      // One batch read of the API key and the request context; nothing of the write itself.
      expect(capacity).toMatchObject({ requests: 1, writeCapacityUnits: 0 });
      expect(await itemWrites(tenant)).toEqual(before);
    });

    it('a valid small item.update reads more than the request context, and writes', async () => {
      const assembly = await createAssembly(tenant, 'Capacity');
      const response = await graphql(itemUpdateMutation, { inputs: [{ id: assembly.id, children: [{ childId: parts[0]!.id }] }] }, tenantHeaders(tenant));
      expect(response.body.errors).toBeUndefined();
      const capacity = capacityOf(response);
      expect(capacity.requests).toBeGreaterThan(2);
      expect(capacity.readCapacityUnits).toBeGreaterThan(0);
      expect(capacity.writeCapacityUnits).toBeGreaterThan(0);
    });

    it('exactly at the limits is accepted: 20 children on a component', async () => {
      const many = await createParts(
        tenant,
        Array.from({ length: 20 }, (_, i) => `Limit part ${i}`),
      );
      const assembly = await createAssembly(
        tenant,
        'Twenty',
        many.map((p) => ({ childId: p.id })),
      );
      expect(assembly.children).toHaveLength(20);
    });
  });

  describe('concurrency', () => {
    it('two item.update calls with the same expectedVersion: one lands, the other is VERSION_CONFLICT; the BOM is exactly the winner', async () => {
      for (let round = 0; round < 3; round += 1) {
        const assembly = await createAssembly(tenant, `Race ${round}`, [{ childId: parts[0]!.id }]);
        const lists = [
          [
            { childId: parts[1]!.id, quantity: 1, refDes: 'first' },
            { childId: parts[2]!.id, quantity: 2 },
          ],
          [{ childId: parts[3]!.id, quantity: 3, refDes: 'second' }, { childId: parts[4]!.id }, { childId: parts[5]!.id, quantity: 0.5 }],
        ];
        const responses = await Promise.all(lists.map((children) => graphql(itemUpdateMutation, { inputs: [{ id: assembly.id, expectedVersion: 1, children }] }, tenantHeaders(tenant))));
        const codes = responses.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'OK');
        expect(codes.sort(), JSON.stringify(responses.map((r) => r.body.errors))).toEqual(['OK', 'VERSION_CONFLICT']);
        const winner = responses.findIndex((r) => !r.body.errors);
        const expected = lists[winner]!.map((c) => line(c.childId, { quantity: c.quantity ?? null, refDes: (c as { refDes?: string }).refDes ?? null }));
        const read = (await readItem(tenant, assembly.id))!;
        expect(read.version).toBe(2);
        expect(lineSummary(read.children)).toEqual(expected);
        expect(new Set(read.children.map((l) => l.id)).size).toBe(read.children.length);
        const snapshots = await bomHistoryOf(tenant, assembly.id);
        expect(snapshots.map((s) => s.bomVersion)).toEqual([2, 1]);
        expect(lineSummary(snapshots[0]!.lines)).toEqual(expected);
        expect((await historyOf(tenant, assembly.id)).map((h) => h.version)).toEqual([2, 1]);
      }
    });

    it('without expectedVersion, concurrent BOM updates never merge: the BOM is exactly one of the lists', async () => {
      const assembly = await createAssembly(tenant, 'Race without version');
      const lists = [[{ childId: parts[0]!.id }], [{ childId: parts[1]!.id }, { childId: parts[2]!.id }], [{ childId: parts[3]!.id }]];
      const responses = await Promise.all(lists.map((children) => graphql(itemUpdateMutation, { inputs: [{ id: assembly.id, children }] }, tenantHeaders(tenant))));
      const codes = responses.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'OK');
      for (const code of codes) expect(['OK', 'VERSION_CONFLICT'], JSON.stringify(responses.map((r) => r.body.errors))).toContain(code);
      const landed = codes.filter((c) => c === 'OK').length;
      expect(landed).toBeGreaterThanOrEqual(1);
      const read = (await readItem(tenant, assembly.id))!;
      expect(read.version).toBe(1 + landed);
      expect(lists.map((l) => l.map((c) => c.childId))).toContainEqual(read.children.map((l) => l.childId));
      expect((await bomHistoryOf(tenant, assembly.id)).length).toBe(landed);
    });
  });
});
