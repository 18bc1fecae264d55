import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { uploadFile } from '../support/files.js';
import { historyOf } from '../support/history.js';
import { expectError } from '../support/errors.js';
import {
  allComponentFields,
  attributeMap,
  componentWrites,
  createComponent,
  createComponents,
  createMutation,
  findOne,
  libraryPartition,
  partitionItems,
  totalCount,
  updateComponent,
  updateMutation,
  type Component,
} from './componentHelpers.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('components', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
  });

  describe('create, findOne, findAll, delete', () => {
    it('creates a component and resolves every field, the same through findOne', async () => {
      const [fileId, imageFileId] = (
        await Promise.all([
          uploadFile(tenant, Buffer.from('%PDF-1.4 resistor'), { name: 'datasheet.pdf' }),
          uploadFile(tenant, Buffer.from('png bytes'), { name: 'photo.png', contentType: 'image/png' }),
        ])
      ).map((file) => file.id);
      const { component } = await gqlOk<{ component: { create: Record<string, unknown>[] } }>(
        tenant,
        `mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { ${allComponentFields} attributeValue(attributeId: "resistance") } } }`,
        {
          inputs: [
            {
              name: '10k resistor',
              description: 'Thick film',
              categoryId: 'resistor',
              eid: 'ERP-10K',
              attributeValues: [
                { attributeId: 'resistance', value: 10000 },
                { attributeId: 'tolerance', value: 1 },
                { attributeId: 'package', value: '0603' },
              ],
              documentFormats: ['PDF', 'STEP'],
              labels: ['smd', 'passive'],
              fileId,
              imageFileId,
            },
          ],
        },
      );
      const created = component.create[0]!;
      expect(component.create).toHaveLength(1);
      expect(created).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: '10k resistor',
        description: 'Thick film',
        revisionValue: 'A',
        revision: { value: 'A' },
        version: 1,
        state: 'MODIFIED',
        status: { id: 'design', name: 'Design', color: '#9E9E9E', mapsTo: 'DESIGN' },
        category: { id: 'resistor', name: 'Resistor', type: 'PART' },
        cpn: expect.stringMatching(/^100-\d{5}$/),
        eid: 'ERP-10K',
        labels: [{ name: 'smd' }, { name: 'passive' }],
        createdAt: expect.stringMatching(iso),
        createdBy: { id: tenant.user.id },
        updatedBy: { id: tenant.user.id },
        isPinned: false,
        isBookmarked: false,
        isArchived: false,
        notRevisionManaged: false,
        lastReleasedNotRevisionManaged: null,
        documentFormats: ['PDF', 'STEP'],
        fileId,
        imageFileId,
        file: { id: fileId, name: 'datasheet.pdf', contentType: 'application/pdf', size: 17, status: 'READY' },
        imageFile: { id: imageFileId, name: 'photo.png', contentType: 'image/png', size: 9, status: 'READY' },
        viewerAccess: { canRead: true, canUpdate: true, canDelete: true, canCreateRevision: true },
        integrationLock: { locked: false, integrationId: null },
        actingIntegrationId: null,
        originIntegrationId: 'native',
        originIntegration: { id: 'native', name: 'PLM service (native)' },
        attributeValue: 10000,
      });
      expect(created.updatedAt).toBe(created.createdAt);
      expect(created.attributeValues).toHaveLength(3);
      expect(created.attributeValues).toEqual(
        expect.arrayContaining([
          { attributeId: 'resistance', name: 'Resistance', unit: 'Ω', value: 10000 },
          { attributeId: 'tolerance', name: 'Tolerance', unit: '%', value: 1 },
          { attributeId: 'package', name: 'Package', unit: null, value: '0603' },
        ]),
      );
      expect(created.effectiveAttributeAccess).toEqual([
        { attributeId: 'resistance', canRead: true, canWrite: true },
        { attributeId: 'tolerance', canRead: true, canWrite: true },
        { attributeId: 'power', canRead: true, canWrite: true },
        { attributeId: 'package', canRead: true, canWrite: true },
      ]);
      const history = created.history as {
        version: number;
        action: string;
        createdAt: string;
        user: { id: string };
        actingIntegrationId: null;
        changes: { field: string; from: unknown; to: unknown }[];
      }[];
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({ version: 1, action: 'CREATE', createdAt: created.createdAt, user: { id: tenant.user.id }, actingIntegrationId: null });
      expect(history[0]!.changes).toEqual(
        expect.arrayContaining([
          { field: 'name', from: null, to: '10k resistor' },
          { field: 'categoryId', from: null, to: 'resistor' },
          { field: 'attributeValues.resistance', from: null, to: 10000 },
        ]),
      );

      const found = await gqlOk<{ component: { findOne: Record<string, unknown> } }>(
        tenant,
        `query($id: ID!) { component { findOne(id: $id) { ${allComponentFields} attributeValue(attributeId: "resistance") } } }`,
        { id: created.id },
      );
      const sortAttributes = (c: Record<string, unknown>) => ({
        ...c,
        attributeValues: [...(c.attributeValues as { attributeId: string }[])].sort((a, b) => a.attributeId.localeCompare(b.attributeId)),
      });
      expect(sortAttributes(found.component.findOne)).toEqual(sortAttributes(created));
    });

    it('puts a component without categoryId in the first active PART category, at the default status and revision', async () => {
      const part = await createComponent(tenant, { name: 'no category given', attributeValues: [{ attributeId: 'resistance', value: 47 }] });
      expect(part).toMatchObject({ category: { id: 'resistor', name: 'Resistor', type: 'PART' }, status: { id: 'design' }, revisionValue: 'A', cpn: expect.stringMatching(/^100-/) });
    });

    it('findOne returns null for an unknown id and for a component of another organization', async () => {
      expect(await findOne(tenant, randomUUID())).toBeNull();
      const mine = await createComponent(tenant, { name: 'private bracket', categoryId: 'mechanical' });
      const stranger = await newTenant();
      expect(await findOne(stranger, mine.id)).toBeNull();
      const listed = await gqlOk<{ component: { findAll: { totalCount: number } } }>(stranger, 'query($ids: [ID!]) { component { findAll(filter: { ids: $ids }) { totalCount } } }', {
        ids: [mine.id],
      });
      expect(listed.component.findAll.totalCount).toBe(0);
    });

    it('findAll filters by every ComponentFilterInput field', async () => {
      const tag = randomUUID().slice(0, 6);
      const a = await createComponent(tenant, { name: `Filter ${tag} alpha`, categoryId: 'mechanical', eid: `eid-${tag}` });
      const b = await createComponent(tenant, { name: `Filter ${tag} bravo`, categoryId: 'fastener', statusId: 'prototype' });
      const c = await createComponent(tenant, { name: `Filter ${tag} charlie`, categoryId: 'pcba' });
      const ids = async (filter: Record<string, unknown>) =>
        (
          await gqlOk<{ component: { findAll: { totalCount: number; edges: { node: { id: string } }[] } } }>(
            tenant,
            'query($filter: ComponentFilterInput) { component { findAll(filter: $filter) { totalCount edges { node { id } } } } }',
            { filter },
          )
        ).component.findAll.edges.map((e) => e.node.id);

      // Default order: CREATED_AT descending.
      expect(await ids({ name: `filter ${tag}` })).toEqual([c.id, b.id, a.id]);
      expect(await ids({ names: [`${tag} ALPHA`, `${tag} charlie`] })).toEqual([c.id, a.id]);
      expect(await ids({ exactNames: [`Filter ${tag} bravo`] })).toEqual([b.id]);
      expect(await ids({ exactNames: [`filter ${tag} bravo`] })).toEqual([]);
      expect(await ids({ cpns: [a.cpn, c.cpn] })).toEqual([c.id, a.id]);
      expect(await ids({ name: tag, statusId: 'prototype' })).toEqual([b.id]);
      expect(await ids({ name: tag, categoryId: 'fastener' })).toEqual([b.id]);
      expect(await ids({ name: tag, categoryType: 'ASSEMBLY' })).toEqual([c.id]);
      expect(await ids({ eid: `eid-${tag}` })).toEqual([a.id]);
      expect(await ids({ ids: [a.id, b.id, randomUUID()] })).toEqual([b.id, a.id]);
      expect(await totalCount(tenant, { name: tag })).toBe(3);
    });

    it('findAll pages with cursors, pageInfo and totalCount, in the order asked', async () => {
      const tag = randomUUID().slice(0, 6);
      const a = await createComponent(tenant, { name: `Pager ${tag} alpha`, categoryId: 'mechanical' });
      const b = await createComponent(tenant, { name: `Pager ${tag} bravo`, categoryId: 'fastener' });
      const c = await createComponent(tenant, { name: `Pager ${tag} charlie`, categoryId: 'pcba' });
      type Page = { totalCount: number; pageInfo?: { hasNextPage: boolean; endCursor: string | null }; edges: { cursor: string; node: { id: string } }[] };
      const page = (filter: Record<string, unknown>, pagination?: Record<string, unknown>, withPageInfo = false) =>
        gqlOk<{ component: { findAll: Page } }>(
          tenant,
          `query($filter: ComponentFilterInput, $pagination: PaginationInput) { component { findAll(filter: $filter, pagination: $pagination) { totalCount ${withPageInfo ? 'pageInfo { hasNextPage endCursor }' : ''} edges { cursor node { id } } } } }`,
          { filter, pagination },
        ).then((d) => d.component.findAll);
      const byName = { orderBy: { field: 'NAME', direction: 'ASC' } };

      const first = await page({ name: tag }, { first: 2, ...byName });
      expect(first.totalCount).toBe(3);
      expect(first.edges.map((e) => e.node.id)).toEqual([a.id, b.id]);
      const second = await page({ name: tag }, { first: 2, after: first.edges[1]!.cursor, ...byName });
      expect(second.totalCount).toBe(3);
      expect(second.edges.map((e) => e.node.id)).toEqual([c.id]);
      const byCpnDesc = await page({ name: tag }, { orderBy: { field: 'CPN', direction: 'DESC' } });
      expect(byCpnDesc.edges.map((e) => e.node.id)).toEqual([c.id, b.id, a.id]); // 400-, 210-, 200-
      const byCreatedAsc = await page({ name: tag }, { first: 1, orderBy: { field: 'CREATED_AT', direction: 'ASC' } });
      expect(byCreatedAsc.edges.map((e) => e.node.id)).toEqual([a.id]);

      // pageInfo: hasNextPage and endCursor (the last edge's cursor; null on an empty page).
      const withInfo = await page({ name: tag }, { first: 2, ...byName }, true);
      expect(withInfo.pageInfo).toEqual({ hasNextPage: true, endCursor: withInfo.edges[1]!.cursor });
      const last = await page({ name: tag }, { first: 2, after: withInfo.pageInfo!.endCursor, ...byName }, true);
      expect(last.edges.map((e) => e.node.id)).toEqual([c.id]);
      expect(last.pageInfo).toEqual({ hasNextPage: false, endCursor: last.edges[0]!.cursor });
      const none = await page({ name: `${tag}-nothing` }, undefined, true);
      expect(none).toEqual({ totalCount: 0, pageInfo: { hasNextPage: false, endCursor: null }, edges: [] });

      const badCursor = await graphql('{ component { findAll(pagination: { after: "nope" }) { totalCount } } }', undefined, tenantHeaders(tenant));
      expect(badCursor.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      const tooMany = await graphql('{ component { findAll(pagination: { first: 1001 }) { totalCount } } }', undefined, tenantHeaders(tenant));
      expect(tooMany.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('deletes permanently: the component and its history go, its CPN stays claimed', async () => {
      const doomed = await createComponent(tenant, { name: 'doomed', categoryId: 'mechanical' });
      await updateComponent(tenant, { id: doomed.id, description: 'about to go' });
      const partition = libraryPartition(tenant);
      expect(await partitionItems(partition, [`H#${doomed.id}#`])).toHaveLength(2);
      const unknown = randomUUID();
      const { component } = await gqlOk<{ component: { delete: { deletedIds: string[]; notFoundIds: string[] } } }>(
        tenant,
        'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds notFoundIds } } }',
        { ids: [doomed.id, unknown] },
      );
      expect(component.delete).toEqual({ deletedIds: [doomed.id], notFoundIds: [unknown] });
      expect(await findOne(tenant, doomed.id)).toBeNull();
      expect(await totalCount(tenant, { ids: [doomed.id] })).toBe(0);
      expect(await partitionItems(partition, [`C#${doomed.id}`, `H#${doomed.id}#`])).toEqual([]);
      const claims = await partitionItems(partition, [`CPN#${doomed.cpn}`]);
      expect(claims).toHaveLength(1);
      expect(claims[0]).toMatchObject({ cpn: doomed.cpn, componentId: doomed.id, deleted: true });

      const again = await gqlOk<{ component: { delete: { deletedIds: string[]; notFoundIds: string[] } } }>(
        tenant,
        'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds notFoundIds } } }',
        { ids: [doomed.id] },
      );
      expect(again.component.delete).toEqual({ deletedIds: [], notFoundIds: [doomed.id] });
    });
  });

  describe('update input rules', () => {
    it('merges attributeValues: absent unchanged, a value sets, explicit null deletes, a missing value key is a no-op', async () => {
      const ic = await createComponent(tenant, {
        name: 'op-amp',
        categoryId: 'integrated-circuit',
        attributeValues: [
          { attributeId: 'function', value: 'Op-amp' },
          { attributeId: 'pin-count', value: 8 },
        ],
      });
      expect(attributeMap(ic)).toEqual({ function: 'Op-amp', 'pin-count': 8 });

      const set = await updateComponent(tenant, { id: ic.id, attributeValues: [{ attributeId: 'pin-count', value: 14 }] });
      expect(attributeMap(set)).toEqual({ function: 'Op-amp', 'pin-count': 14 });
      expect(set.version).toBe(2);

      const deleted = await updateComponent(tenant, { id: ic.id, attributeValues: [{ attributeId: 'function', value: null }] });
      expect(attributeMap(deleted)).toEqual({ 'pin-count': 14 });
      expect(deleted.version).toBe(3);
      const one = await gqlOk<{ component: { findOne: { function: unknown; pins: unknown } } }>(
        tenant,
        'query($id: ID!) { component { findOne(id: $id) { function: attributeValue(attributeId: "function") pins: attributeValue(attributeId: "pin-count") } } }',
        { id: ic.id },
      );
      expect(one.component.findOne).toEqual({ function: null, pins: 14 });
      const stored = await partitionItems(libraryPartition(tenant), [`C#${ic.id}`]);
      expect(Object.keys(stored[0]!.attributeValues as object)).toEqual(['pin-count']);

      // The same delete written inline, and a value key that is absent: the latter changes nothing.
      const noop = await updateComponent(tenant, { id: ic.id, attributeValues: [{ attributeId: 'pin-count' }] });
      expect(attributeMap(noop)).toEqual({ 'pin-count': 14 });
      expect(noop.version).toBe(3);
      const inline = await gqlOk<{ component: { update: Component[] } }>(
        tenant,
        `mutation($id: ID!) { component { update(inputs: [{ id: $id, attributeValues: [{ attributeId: "pin-count", value: null }, { attributeId: "function" }] }]) { version attributeValues { attributeId value } } } }`,
        { id: ic.id },
      );
      expect(inline.component.update[0]).toEqual({ version: 4, attributeValues: [] });

      const history = await historyOf(tenant, ic.id);
      expect(history.map((h) => h.version)).toEqual([4, 3, 2, 1]);
      expect(history[0]!.changes).toEqual([{ field: 'attributeValues.pin-count', from: 14, to: null }]);
      expect(history[1]!.changes).toEqual([{ field: 'attributeValues.function', from: 'Op-amp', to: null }]);
      expect(history[2]!.changes).toEqual([{ field: 'attributeValues.pin-count', from: 8, to: 14 }]);
    });

    it('documentFormats: omitted leaves the list, a list replaces it, null clears it', async () => {
      const doc = await createComponent(tenant, { name: 'assembly drawing', categoryId: 'drawing', documentFormats: ['PDF', 'DXF'] });
      expect(doc.documentFormats).toEqual(['PDF', 'DXF']);
      const untouched = await updateComponent(tenant, { id: doc.id, name: 'assembly drawing v2' });
      expect(untouched.documentFormats).toEqual(['PDF', 'DXF']);
      const replaced = await updateComponent(tenant, { id: doc.id, documentFormats: ['STEP'] });
      expect(replaced.documentFormats).toEqual(['STEP']);
      const cleared = await updateComponent(tenant, { id: doc.id, documentFormats: null });
      expect(cleared.documentFormats).toBeNull();
      expect((await findOne(tenant, doc.id))!.documentFormats).toBeNull();
      const history = await historyOf(tenant, doc.id);
      expect(history[0]!.changes).toEqual([{ field: 'documentFormats', from: ['STEP'], to: null }]);
      expect(history[1]!.changes).toEqual([{ field: 'documentFormats', from: ['PDF', 'DXF'], to: ['STEP'] }]);
      const none = await createComponent(tenant, { name: 'no formats', categoryId: 'drawing' });
      expect(none.documentFormats).toBeNull();
    });

    it('revisionValue: a value of the scheme is set, any other is refused with INVALID_REVISION and nothing changes', async () => {
      const part = await createComponent(tenant, { name: 'rev part', categoryId: 'mechanical' });
      expect(part.revisionValue).toBe('A');
      const b = await updateComponent(tenant, { id: part.id, revisionValue: 'B' });
      expect(b).toMatchObject({ revisionValue: 'B', version: 2 });
      const before = await componentWrites(tenant);
      for (const bad of ['b', 'B1', 'B.C', '']) {
        await expectError(tenant, updateMutation, { inputs: [{ id: part.id, revisionValue: bad, name: 'renamed' }] }, 'INVALID_REVISION');
      }
      await expectError(tenant, createMutation, { inputs: [{ name: 'bad rev', categoryId: 'mechanical', revisionValue: '1' }] }, 'INVALID_REVISION');
      expect(await componentWrites(tenant)).toEqual(before);
      expect(await findOne(tenant, part.id)).toMatchObject({ name: 'rev part', revisionValue: 'B', version: 2 });
      const created = await createComponent(tenant, { name: 'given rev', categoryId: 'mechanical', revisionValue: 'AC' });
      expect(created.revisionValue).toBe('AC');
    });

    it('categoryId changes the category, validating the attributes against the new one', async () => {
      const part = await createComponent(tenant, { name: 'bracket', categoryId: 'mechanical', attributeValues: [{ attributeId: 'material', value: 'Steel' }] });
      const before = await componentWrites(tenant);
      const refused = await expectError(tenant, updateMutation, { inputs: [{ id: part.id, categoryId: 'fastener' }] }, 'ATTRIBUTE_VALIDATION_FAILED');
      expect(refused.body.errors![0]!.extensions!.errors).toEqual([{ attributeId: 'material', message: expect.stringContaining('material') }]);
      await expectError(tenant, updateMutation, { inputs: [{ id: part.id, categoryId: 'no-such-category' }] }, 'CATEGORY_NOT_FOUND');
      expect(await componentWrites(tenant)).toEqual(before);

      const moved = await updateComponent(tenant, {
        id: part.id,
        categoryId: 'fastener',
        attributeValues: [
          { attributeId: 'material', value: null },
          { attributeId: 'thread', value: 'M3' },
        ],
      });
      expect(moved).toMatchObject({ category: { id: 'fastener', name: 'Fastener', type: 'PART' }, version: 2, cpn: part.cpn });
      expect(attributeMap(moved)).toEqual({ thread: 'M3' });
      expect((await historyOf(tenant, part.id))[0]!.changes).toEqual([
        { field: 'categoryId', from: 'mechanical', to: 'fastener' },
        { field: 'attributeValues.material', from: 'Steel', to: null },
        { field: 'attributeValues.thread', from: null, to: 'M3' },
      ]);
      expect(await totalCount(tenant, { categoryId: 'fastener', ids: [part.id] })).toBe(1);
    });

    it('isArchived archives and unarchives; findAll leaves archived components out unless asked', async () => {
      const part = await createComponent(tenant, { name: 'to archive', categoryId: 'mechanical' });
      const archived = await updateComponent(tenant, { id: part.id, isArchived: true });
      expect(archived).toMatchObject({ isArchived: true, version: 2 });
      expect(await totalCount(tenant, { ids: [part.id] })).toBe(0);
      expect(await totalCount(tenant, { ids: [part.id], isArchived: true })).toBe(1);
      expect(await totalCount(tenant, { ids: [part.id], isArchived: false })).toBe(0);
      expect(await findOne(tenant, part.id)).toMatchObject({ isArchived: true });
      const restored = await updateComponent(tenant, { id: part.id, isArchived: false });
      expect(restored).toMatchObject({ isArchived: false, version: 3 });
      expect(await totalCount(tenant, { ids: [part.id] })).toBe(1);
      expect((await historyOf(tenant, part.id))[0]!.changes).toEqual([{ field: 'isArchived', from: true, to: false }]);
    });

    it('statusId sets the status; an unknown status is STATUS_NOT_FOUND', async () => {
      const part = await createComponent(tenant, { name: 'status part', categoryId: 'mechanical', statusId: 'prototype' });
      expect(part.status).toEqual({ id: 'prototype', name: 'Prototype', color: '#2196F3', mapsTo: 'DEVELOPMENT' });
      const production = await updateComponent(tenant, { id: part.id, statusId: 'production' });
      expect(production.status).toEqual({ id: 'production', name: 'Production', color: '#4CAF50', mapsTo: 'PRODUCTION' });
      const before = await componentWrites(tenant);
      await expectError(tenant, updateMutation, { inputs: [{ id: part.id, statusId: 'no-such-status' }] }, 'STATUS_NOT_FOUND');
      expect(await componentWrites(tenant)).toEqual(before);
      expect(await totalCount(tenant, { ids: [part.id], statusId: 'production' })).toBe(1);
    });

    it('labels: set on create, replaced on update, unchanged when omitted', async () => {
      const part = await createComponent(tenant, { name: 'labelled', categoryId: 'mechanical', labels: ['rohs', 'long-lead'] });
      expect(part.labels).toEqual([{ name: 'rohs' }, { name: 'long-lead' }]);
      const untouched = await updateComponent(tenant, { id: part.id, description: 'x' });
      expect(untouched.labels).toEqual([{ name: 'rohs' }, { name: 'long-lead' }]);
      const replaced = await updateComponent(tenant, { id: part.id, labels: ['eol'] });
      expect(replaced.labels).toEqual([{ name: 'eol' }]);
      const emptied = await updateComponent(tenant, { id: part.id, labels: [] });
      expect(emptied.labels).toEqual([]);
      expect((await historyOf(tenant, part.id))[0]!.changes).toEqual([{ field: 'labels', from: ['eol'], to: [] }]);
      await expectError(tenant, updateMutation, { inputs: [{ id: part.id, labels: ['x'.repeat(51)] }] }, 'BAD_USER_INPUT');
    });

    it('an update that changes nothing writes no version and no history', async () => {
      const part = await createComponent(tenant, { name: 'steady', categoryId: 'mechanical', description: 'same' });
      const same = await updateComponent(tenant, { id: part.id, name: 'steady', description: 'same', statusId: 'design' });
      expect(same.version).toBe(1);
      expect(await historyOf(tenant, part.id)).toHaveLength(1);
    });

    it('an update of an unknown component is NOT_FOUND', async () => {
      await expectError(tenant, updateMutation, { inputs: [{ id: randomUUID(), name: 'ghost' }] }, 'NOT_FOUND');
    });

    it('an empty or malformed id, alone or repeated, is BAD_USER_INPUT naming the input', async () => {
      for (const inputs of [[{ id: '' }, { id: '' }], [{ id: '' }], [{ id: 'C#1' }]]) {
        const response = await expectError(tenant, updateMutation, { inputs }, 'BAD_USER_INPUT');
        expect(response.body.errors![0]!.extensions).toMatchObject({ field: 'id', inputIndex: 0 });
      }
    });
  });

  describe('optimistic concurrency and history', () => {
    it('a stale expectedVersion is VERSION_CONFLICT and nothing changes', async () => {
      const part = await createComponent(tenant, { name: 'versioned', categoryId: 'mechanical' });
      const v2 = await updateComponent(tenant, { id: part.id, name: 'versioned 2', expectedVersion: 1 });
      expect(v2.version).toBe(2);
      const before = await componentWrites(tenant);
      const conflict = await expectError(tenant, updateMutation, { inputs: [{ id: part.id, name: 'stale write', expectedVersion: 1 }] }, 'VERSION_CONFLICT');
      expect(conflict.body.errors![0]!.extensions).toMatchObject({ id: part.id, expectedVersion: 1, currentVersion: 2 });
      await expectError(tenant, updateMutation, { inputs: [{ id: part.id, name: 'future write', expectedVersion: 3 }] }, 'VERSION_CONFLICT');
      expect(await componentWrites(tenant)).toEqual(before);
      expect(await findOne(tenant, part.id)).toMatchObject({ name: 'versioned 2', version: 2 });
      expect(await historyOf(tenant, part.id)).toHaveLength(2);
    });

    it('two clients with the same expectedVersion: exactly one wins and history holds only its record', async () => {
      const part = await createComponent(tenant, { name: 'contended', categoryId: 'mechanical' });
      for (let round = 1; round <= 5; round += 1) {
        const version = round; // one successful write per round
        const names = [`left ${round}`, `right ${round}`];
        const responses = await Promise.all(
          names.map((name) => graphql<{ component: { update: Component[] } }>(updateMutation, { inputs: [{ id: part.id, name, expectedVersion: version }] }, tenantHeaders(tenant))),
        );
        const winners = responses.flatMap((r, i) => (r.body.errors === undefined ? [i] : []));
        const losers = responses.filter((r) => r.body.errors !== undefined);
        expect(winners, JSON.stringify(responses.map((r) => r.body))).toHaveLength(1);
        expect(losers).toHaveLength(1);
        expect(losers[0]!.body.errors!.map((e) => e.extensions?.code)).toEqual(['VERSION_CONFLICT']);
        const winner = names[winners[0]!]!;
        expect(responses[winners[0]!]!.body.data!.component.update[0]).toMatchObject({ name: winner, version: version + 1 });
        expect(await findOne(tenant, part.id)).toMatchObject({ name: winner, version: version + 1 });
        const history = await historyOf(tenant, part.id);
        expect(history.map((h) => h.version)).toEqual(Array.from({ length: version + 1 }, (_, i) => version + 1 - i));
        expect(history[0]!.changes).toEqual([{ field: 'name', from: round === 1 ? 'contended' : expect.stringMatching(/^(left|right) /), to: winner }]);
      }
      expect(await partitionItems(libraryPartition(tenant), [`H#${part.id}#`])).toHaveLength(6);
    });

    it('two clients without expectedVersion: neither write is lost', async () => {
      const part = await createComponent(tenant, { name: 'unpinned', categoryId: 'mechanical' });
      const [left, right] = await Promise.all([
        graphql(updateMutation, { inputs: [{ id: part.id, name: 'unpinned, renamed' }] }, tenantHeaders(tenant)),
        graphql(updateMutation, { inputs: [{ id: part.id, description: 'described' }] }, tenantHeaders(tenant)),
      ]);
      expect([left!.body.errors, right!.body.errors]).toEqual([undefined, undefined]);
      expect(await findOne(tenant, part.id)).toMatchObject({ name: 'unpinned, renamed', description: 'described', version: 3 });
      const history = await historyOf(tenant, part.id);
      expect(history.map((h) => h.version)).toEqual([3, 2, 1]);
      expect(
        history
          .slice(0, 2)
          .flatMap((h) => h.changes.map((c) => c.field))
          .sort(),
      ).toEqual(['description', 'name']);
    });

    it('history holds one record per write, newest first, with version, action, user and changes', async () => {
      const part = await createComponent(tenant, { name: 'historic', categoryId: 'mechanical', statusId: 'prototype' });
      await updateComponent(tenant, { id: part.id, name: 'historic 2' });
      await updateComponent(tenant, { id: part.id, statusId: 'production', revisionValue: 'B' });
      await updateComponent(tenant, { id: part.id, attributeValues: [{ attributeId: 'mass', value: 12.5 }], eid: 'E-1' });
      const history = await historyOf(tenant, part.id);
      expect(history.map((h) => [h.version, h.action, h.user?.id])).toEqual([
        [4, 'UPDATE', tenant.user.id],
        [3, 'UPDATE', tenant.user.id],
        [2, 'UPDATE', tenant.user.id],
        [1, 'CREATE', tenant.user.id],
      ]);
      expect(history[0]!.changes).toEqual([
        { field: 'eid', from: null, to: 'E-1' },
        { field: 'attributeValues.mass', from: null, to: 12.5 },
      ]);
      expect(history[1]!.changes).toEqual([
        { field: 'statusId', from: 'prototype', to: 'production' },
        { field: 'revisionValue', from: 'A', to: 'B' },
      ]);
      expect(history[2]!.changes).toEqual([{ field: 'name', from: 'historic', to: 'historic 2' }]);
      expect(history[3]!.changes).toEqual(
        expect.arrayContaining([
          { field: 'name', from: null, to: 'historic' },
          { field: 'statusId', from: null, to: 'prototype' },
          { field: 'revisionValue', from: null, to: 'A' },
          { field: 'cpn', from: null, to: part.cpn },
        ]),
      );
      expect(history.map((h) => h.createdAt).every((t, i, all) => i === 0 || t <= all[i - 1]!)).toBe(true);
      expect((await historyOf(tenant, part.id, 2)).map((h) => h.version)).toEqual([4, 3]);
      expect(await partitionItems(libraryPartition(tenant), [`H#${part.id}#`])).toHaveLength(4);
    });
  });

  describe('bad input is refused with a code and writes nothing', () => {
    it('refuses each kind of bad create input, all or nothing', async () => {
      const before = await componentWrites(tenant);
      const count = await totalCount(tenant);
      const good = { name: 'would be fine', categoryId: 'mechanical' };
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 'unknown category', categoryId: 'no-such-category' }, 'CATEGORY_NOT_FOUND'],
        [{ name: 'wrong type', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 'ten kilo-ohm' }] }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ name: 'below min', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: -1 }] }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ name: 'missing required', categoryId: 'resistor' }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ name: 'unknown attribute', categoryId: 'mechanical', attributeValues: [{ attributeId: 'colour', value: 'red' }] }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ name: 'x'.repeat(256), categoryId: 'mechanical' }, 'BAD_USER_INPUT'],
        [{ name: '   ', categoryId: 'mechanical' }, 'BAD_USER_INPUT'],
        [{ name: 'long description', categoryId: 'mechanical', description: 'd'.repeat(10_001) }, 'BAD_USER_INPUT'],
        [{ name: 'unknown status', categoryId: 'mechanical', statusId: 'no-such-status' }, 'STATUS_NOT_FOUND'],
        [{ name: 'bad revision', categoryId: 'mechanical', revisionValue: 'a' }, 'INVALID_REVISION'],
      ];
      for (const [input, code] of cases) {
        const response = await expectError(tenant, createMutation, { inputs: [good, input] }, code);
        expect(response.body.data ?? null).toBeNull();
        expect(response.body.errors![0]!.message).toMatch(/^inputs\[1\]: /);
        expect(response.body.errors![0]!.extensions!.inputIndex).toBe(1);
      }
      await expectError(tenant, createMutation, { inputs: [good, { name: 'unknown file', categoryId: 'mechanical', fileId: randomUUID() }] }, 'FILE_NOT_FOUND');
      await expectError(tenant, createMutation, { inputs: [good, { name: 'unknown image', categoryId: 'mechanical', imageFileId: randomUUID() }] }, 'FILE_NOT_FOUND');
      const wrongType = await expectError(tenant, createMutation, { inputs: [cases[1]![0]] }, 'ATTRIBUTE_VALIDATION_FAILED');
      expect(wrongType.body.errors![0]!.extensions!.errors).toEqual([{ attributeId: 'resistance', message: expect.stringMatching(/^Resistance must be a number/) }]);
      await expectError(tenant, createMutation, { inputs: Array.from({ length: 26 }, (_, i) => ({ name: `bulk ${i}`, categoryId: 'mechanical' })) }, 'BATCH_TOO_LARGE');
      expect(await totalCount(tenant)).toBe(count);
      expect(await componentWrites(tenant)).toEqual(before);
    });

    it('an unknown file is FILE_NOT_FOUND naming the input it belongs to', async () => {
      const before = await componentWrites(tenant);
      const fileId = randomUUID();
      const response = await expectError(
        tenant,
        createMutation,
        {
          inputs: [
            { name: 'fine', categoryId: 'mechanical' },
            { name: 'with a file', categoryId: 'mechanical', fileId },
          ],
        },
        'FILE_NOT_FOUND',
      );
      expect(await componentWrites(tenant)).toEqual(before);
      expect(response.body.errors![0]!.extensions).toMatchObject({ fileId, inputIndex: 1 });
    });

    it('refuses each kind of bad update input, all or nothing', async () => {
      const [first, second] = await createComponents(tenant, [
        { name: 'update victim 1', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 100 }] },
        { name: 'update victim 2', categoryId: 'mechanical' },
      ]);
      const before = await componentWrites(tenant);
      const good = { id: second!.id, name: 'would be renamed' };
      const cases: [Record<string, unknown>, string][] = [
        [{ id: first!.id, categoryId: 'no-such-category' }, 'CATEGORY_NOT_FOUND'],
        [{ id: first!.id, attributeValues: [{ attributeId: 'resistance', value: true }] }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ id: first!.id, attributeValues: [{ attributeId: 'resistance', value: null }] }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ id: first!.id, attributeValues: [{ attributeId: 'tolerance', value: 101 }] }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ id: first!.id, attributeValues: [{ attributeId: 'package', value: '9999' }] }, 'ATTRIBUTE_VALIDATION_FAILED'],
        [{ id: first!.id, name: 'x'.repeat(256) }, 'BAD_USER_INPUT'],
        [{ id: first!.id, name: '' }, 'BAD_USER_INPUT'],
        [{ id: first!.id, statusId: 'no-such-status' }, 'STATUS_NOT_FOUND'],
        [{ id: first!.id, revisionValue: '7' }, 'INVALID_REVISION'],
        [{ id: first!.id, expectedVersion: 9 }, 'VERSION_CONFLICT'],
        [{ id: randomUUID(), name: 'ghost' }, 'NOT_FOUND'],
      ];
      for (const [input, code] of cases) {
        const response = await expectError(tenant, updateMutation, { inputs: [good, input] }, code);
        expect(response.body.errors![0]!.extensions!.inputIndex).toBe(1);
      }
      await expectError(tenant, updateMutation, { inputs: [good, { id: second!.id, description: 'twice' }] }, 'BAD_USER_INPUT');
      await expectError(tenant, updateMutation, { inputs: [good, { id: first!.id, fileId: randomUUID() }] }, 'FILE_NOT_FOUND');
      expect(await componentWrites(tenant)).toEqual(before);
      expect(await findOne(tenant, second!.id)).toMatchObject({ name: 'update victim 2', version: 1 });
      expect(attributeMap((await findOne(tenant, first!.id))!)).toEqual({ resistance: 100 });
    });
  });

  describe('attribute validation', () => {
    const validate =
      'query($categoryId: ID!, $values: [AttributeValueInput!]!) { component { validateAttributes(categoryId: $categoryId, attributeValues: $values) { success message errors { attributeId message } } } }';
    const batch =
      'query($requests: [AttributeValidationRequestInput!]!) { component { validateAttributesBatch(requests: $requests) { success results { key success message errors { attributeId message } } } } }';
    type Result = { success: boolean; message: string | null; errors: { attributeId: string; message: string }[] };

    async function check(categoryId: string, values: unknown[]): Promise<Result> {
      return (await gqlOk<{ component: { validateAttributes: Result } }>(tenant, validate, { categoryId, values })).component.validateAttributes;
    }

    it('validateAttributes: passes valid values, lists every problem, and says when it could not run', async () => {
      const before = await componentWrites(tenant);
      expect(
        await check('resistor', [
          { attributeId: 'resistance', value: 4700 },
          { attributeId: 'package', value: '0402' },
        ]),
      ).toEqual({ success: true, message: null, errors: [] });
      const bad = await check('resistor', [
        { attributeId: 'tolerance', value: 'five' },
        { attributeId: 'package', value: '0000' },
        { attributeId: 'colour', value: 'blue' },
      ]);
      expect(bad.success).toBe(false);
      expect(bad.message).toEqual(expect.any(String));
      expect(bad.errors.map((e) => e.attributeId)).toEqual(['resistance', 'tolerance', 'package', 'colour']);
      expect(bad.errors[0]!.message).toMatch(/required/);
      expect(await check('integrated-circuit', [{ attributeId: 'pin-count', value: 2.5 }])).toMatchObject({ success: false, errors: [{ attributeId: 'pin-count' }] });
      const unknown = await check('no-such-category', [{ attributeId: 'x', value: 1 }]);
      expect(unknown.success).toBe(false);
      expect(unknown.errors).toEqual([]);
      expect(unknown.message).toMatch(/^Validation could not be completed/);
      expect(await componentWrites(tenant)).toEqual(before);
    });

    it('validateAttributesBatch: each request independent, results in submission order', async () => {
      const { component } = await gqlOk<{ component: { validateAttributesBatch: { success: boolean; results: (Result & { key: string })[] } } }>(tenant, batch, {
        requests: [
          { key: 'ok-1', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 1 }] },
          { key: 'bad-type', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: '1k' }] },
          { key: 'unknown-category', categoryId: 'no-such-category', attributeValues: [] },
          { key: 'ok-2', categoryId: 'pcb', attributeValues: [{ attributeId: 'layers', value: 4 }] },
          { key: 'bad-max', categoryId: 'pcb', attributeValues: [{ attributeId: 'layers', value: 65 }] },
        ],
      });
      const result = component.validateAttributesBatch;
      expect(result.success).toBe(false);
      expect(result.results.map((r) => [r.key, r.success])).toEqual([
        ['ok-1', true],
        ['bad-type', false],
        ['unknown-category', false],
        ['ok-2', true],
        ['bad-max', false],
      ]);
      expect(result.results[0]).toEqual({ key: 'ok-1', success: true, message: null, errors: [] });
      expect(result.results[1]!.errors).toEqual([{ attributeId: 'resistance', message: expect.stringMatching(/^Resistance must be a number/) }]);
      expect(result.results[2]!.errors).toEqual([]);
      expect(result.results[2]!.message).toMatch(/^Validation could not be completed/);
      expect(result.results[4]!.errors).toEqual([{ attributeId: 'layers', message: expect.stringContaining('64') }]);

      const allGood = await gqlOk<{ component: { validateAttributesBatch: { success: boolean; results: { key: string }[] } } }>(tenant, batch, {
        requests: [{ key: 'a', categoryId: 'pcb', attributeValues: [] }],
      });
      expect(allGood.component.validateAttributesBatch).toMatchObject({ success: true, results: [{ key: 'a' }] });
      const empty = await gqlOk<{ component: { validateAttributesBatch: { success: boolean; results: unknown[] } } }>(tenant, batch, { requests: [] });
      expect(empty.component.validateAttributesBatch).toEqual({ success: true, results: [] });
    });

    it('validateAttributesBatch accepts 10,000 requests and refuses 10,001 with HTTP 400 BATCH_TOO_LARGE', async () => {
      const requests = (n: number) => Array.from({ length: n }, (_, i) => ({ key: String(i), categoryId: 'pcb', attributeValues: i === n - 1 ? [{ attributeId: 'layers', value: 0 }] : [] }));
      const small = 'query($requests: [AttributeValidationRequestInput!]!) { component { validateAttributesBatch(requests: $requests) { success results { key success } } } }';
      const accepted = await graphql<{ component: { validateAttributesBatch: { success: boolean; results: { key: string; success: boolean }[] } } }>(
        small,
        { requests: requests(10_000) },
        tenantHeaders(tenant),
      );
      expect(accepted.status).toBe(200);
      expect(accepted.body.errors).toBeUndefined();
      const results = accepted.body.data!.component.validateAttributesBatch;
      expect(results.success).toBe(false);
      expect(results.results).toHaveLength(10_000);
      expect(results.results.every((r, i) => r.key === String(i) && r.success === (i !== 9_999))).toBe(true);

      const refused = await graphql(small, { requests: requests(10_001) }, tenantHeaders(tenant));
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.map((e) => e.extensions?.code)).toEqual(['BATCH_TOO_LARGE']);
      expect(refused.body.data ?? null).toBeNull();
    });
  });

  describe('Not Revision Managed', () => {
    let team: Tenant;
    let free: Tenant;

    beforeAll(async () => {
      [team, free] = await Promise.all([newTenant({ plan: 'team' }), newTenant({ plan: 'free' })]);
    });

    it('marks a part or a document NRM, holding it at a PRODUCTION status, with lastReleasedNotRevisionManaged null', async () => {
      const part = await createComponent(team, { name: 'nrm screw', categoryId: 'fastener', notRevisionManaged: true });
      expect(part).toMatchObject({
        notRevisionManaged: true,
        lastReleasedNotRevisionManaged: null,
        status: { id: 'production', mapsTo: 'PRODUCTION' },
        revisionValue: 'A',
        category: { type: 'PART' },
      });
      const doc = await createComponent(team, { name: 'nrm spec', categoryId: 'specification', notRevisionManaged: true, statusId: 'production' });
      expect(doc).toMatchObject({ notRevisionManaged: true, status: { id: 'production' }, category: { type: 'DOCUMENT' } });
      const plain = await createComponent(team, { name: 'plain', categoryId: 'mechanical' });
      expect(plain).toMatchObject({ notRevisionManaged: false, lastReleasedNotRevisionManaged: null, status: { id: 'design' } });
      const marked = await updateComponent(team, { id: plain.id, notRevisionManaged: true });
      expect(marked).toMatchObject({ notRevisionManaged: true, lastReleasedNotRevisionManaged: null, status: { id: 'production', mapsTo: 'PRODUCTION' }, version: 2 });
      expect((await historyOf(team, plain.id))[0]!.changes).toEqual([
        { field: 'statusId', from: 'design', to: 'production' },
        { field: 'notRevisionManaged', from: false, to: true },
      ]);
    });

    it('keeps the revision and the PRODUCTION status of an NRM component', async () => {
      const part = await createComponent(team, { name: 'fixed', categoryId: 'fastener', notRevisionManaged: true });
      const before = await componentWrites(team);
      await expectError(team, updateMutation, { inputs: [{ id: part.id, revisionValue: 'B' }] }, 'NRM_REVISION_FIXED');
      await expectError(team, updateMutation, { inputs: [{ id: part.id, statusId: 'design' }] }, 'NRM_REQUIRES_PRODUCTION_STATUS');
      await expectError(team, updateMutation, { inputs: [{ id: part.id, categoryId: 'pcba' }] }, 'NRM_NOT_ALLOWED');
      expect(await componentWrites(team)).toEqual(before);
      expect(await findOne(team, part.id)).toMatchObject({ revisionValue: 'A', status: { id: 'production' }, notRevisionManaged: true, version: 1 });
      const renamed = await updateComponent(team, { id: part.id, name: 'fixed, renamed', revisionValue: 'A' });
      expect(renamed).toMatchObject({ revisionValue: 'A', version: 2 });
      const unmarked = await updateComponent(team, { id: part.id, notRevisionManaged: false, revisionValue: 'B' });
      expect(unmarked).toMatchObject({ notRevisionManaged: false, revisionValue: 'B', version: 3 });
    });

    it('refuses NRM on assemblies, on OBSOLETE components and at a non-production status, writing nothing', async () => {
      const assembly = await createComponent(team, { name: 'board', categoryId: 'pcba' });
      const obsolete = await createComponent(team, { name: 'old part', categoryId: 'mechanical', statusId: 'obsolete' });
      const before = await componentWrites(team);
      await expectError(team, createMutation, { inputs: [{ name: 'nrm board', categoryId: 'pcba', notRevisionManaged: true }] }, 'NRM_NOT_ALLOWED');
      await expectError(team, createMutation, { inputs: [{ name: 'nrm obsolete', categoryId: 'mechanical', statusId: 'obsolete', notRevisionManaged: true }] }, 'NRM_NOT_ALLOWED_ON_OBSOLETE');
      await expectError(team, createMutation, { inputs: [{ name: 'nrm design', categoryId: 'mechanical', statusId: 'design', notRevisionManaged: true }] }, 'NRM_REQUIRES_PRODUCTION_STATUS');
      await expectError(team, updateMutation, { inputs: [{ id: assembly.id, notRevisionManaged: true }] }, 'NRM_NOT_ALLOWED');
      await expectError(team, updateMutation, { inputs: [{ id: obsolete.id, notRevisionManaged: true }] }, 'NRM_NOT_ALLOWED_ON_OBSOLETE');
      expect(await componentWrites(team)).toEqual(before);
      expect(await findOne(team, obsolete.id)).toMatchObject({ notRevisionManaged: false, status: { id: 'obsolete' }, version: 1 });
    });

    it('refuses NRM on a plan without the entitlement with FEATURE_NOT_IN_PLAN', async () => {
      const part = await createComponent(free, { name: 'free part', categoryId: 'mechanical' });
      const before = await componentWrites(free);
      await expectError(free, createMutation, { inputs: [{ name: 'nrm on free', categoryId: 'mechanical', notRevisionManaged: true }] }, 'FEATURE_NOT_IN_PLAN');
      await expectError(free, updateMutation, { inputs: [{ id: part.id, notRevisionManaged: true }] }, 'FEATURE_NOT_IN_PLAN');
      expect(await componentWrites(free)).toEqual(before);
      const unchanged = await updateComponent(free, { id: part.id, notRevisionManaged: false, name: 'still free' });
      expect(unchanged).toMatchObject({ notRevisionManaged: false, name: 'still free' });
    });
  });

  describe('pins and bookmarks', () => {
    const pin = 'mutation($ids: [ID!]!) { component { pin(input: { ids: $ids }) { id isPinned } } }';
    const unpin = 'mutation($ids: [ID!]!) { component { unpin(input: { ids: $ids }) } }';
    const bookmark = 'mutation($ids: [ID!]!) { component { bookmark(input: { ids: $ids }) { id isBookmarked } } }';
    const unbookmark = 'mutation($ids: [ID!]!) { component { unbookmark(input: { ids: $ids }) } }';
    const pinned = '{ component { getAllPinnedComponents { id name isPinned } } }';
    const pinnedIds = async (who: Tenant) => (await gqlOk<{ component: { getAllPinnedComponents: { id: string; isPinned: boolean }[] } }>(who, pinned)).component.getAllPinnedComponents;

    it('pins and bookmarks per user, lists pins most recent first, and unpins', async () => {
      const [one, two, three] = await createComponents(tenant, [
        { name: 'pin one', categoryId: 'mechanical' },
        { name: 'pin two', categoryId: 'mechanical' },
        { name: 'pin three', categoryId: 'mechanical' },
      ]);
      const pinnedOne = await gqlOk<{ component: { pin: { id: string; isPinned: boolean }[] } }>(tenant, pin, { ids: [one!.id] });
      expect(pinnedOne.component.pin).toEqual([{ id: one!.id, isPinned: true }]);
      await new Promise((r) => setTimeout(r, 5));
      await gqlOk(tenant, pin, { ids: [two!.id] });
      await gqlOk(tenant, pin, { ids: [two!.id] }); // idempotent
      const bookmarked = await gqlOk<{ component: { bookmark: { id: string; isBookmarked: boolean }[] } }>(tenant, bookmark, { ids: [three!.id, one!.id] });
      expect(bookmarked.component.bookmark).toEqual([
        { id: three!.id, isBookmarked: true },
        { id: one!.id, isBookmarked: true },
      ]);

      const list = await pinnedIds(tenant);
      expect(list.map((c) => c.id)).toEqual([two!.id, one!.id]);
      expect(list.every((c) => c.isPinned)).toBe(true);
      expect(await findOne(tenant, one!.id)).toMatchObject({ isPinned: true, isBookmarked: true });
      expect(await findOne(tenant, two!.id)).toMatchObject({ isPinned: true, isBookmarked: false });
      expect(await findOne(tenant, three!.id)).toMatchObject({ isPinned: false, isBookmarked: true });
      const partition = libraryPartition(tenant);
      expect((await partitionItems(partition, [`PIN#${tenant.user.id}#`])).map((i) => i.componentId).sort()).toEqual([one!.id, two!.id].sort());

      const unpinned = await gqlOk<{ component: { unpin: string[] } }>(tenant, unpin, { ids: [one!.id] });
      expect(unpinned.component.unpin).toEqual([one!.id]);
      expect((await pinnedIds(tenant)).map((c) => c.id)).toEqual([two!.id]);
      expect(await findOne(tenant, one!.id)).toMatchObject({ isPinned: false, isBookmarked: true });
      const unbookmarked = await gqlOk<{ component: { unbookmark: string[] } }>(tenant, unbookmark, { ids: [one!.id, three!.id] });
      expect(unbookmarked.component.unbookmark).toEqual([one!.id, three!.id]);
      expect(await findOne(tenant, three!.id)).toMatchObject({ isPinned: false, isBookmarked: false });
      // Pins are not writes of the component.
      expect(await findOne(tenant, one!.id)).toMatchObject({ version: 1 });
      await gqlOk(tenant, unpin, { ids: [two!.id] });
      expect(await pinnedIds(tenant)).toEqual([]);
    });

    it('keeps pins per user: another user’s pin is not the caller’s, and another organization sees none', async () => {
      const part = await createComponent(tenant, { name: 'shared pin', categoryId: 'mechanical' });
      const otherUser = randomUUID();
      const store = testStore();
      await store.ddb.send(
        new PutCommand({
          TableName: store.tableName,
          Item: { PK: libraryPartition(tenant), SK: `PIN#${otherUser}#${part.id}`, entity: 'Pin', componentId: part.id, at: new Date().toISOString() },
        }),
      );
      await store.ddb.send(
        new PutCommand({
          TableName: store.tableName,
          Item: { PK: libraryPartition(tenant), SK: `BOOKMARK#${otherUser}#${part.id}`, entity: 'Bookmark', componentId: part.id, at: new Date().toISOString() },
        }),
      );
      expect(await findOne(tenant, part.id)).toMatchObject({ isPinned: false, isBookmarked: false });
      expect((await pinnedIds(tenant)).map((c) => c.id)).not.toContain(part.id);

      await gqlOk(tenant, pin, { ids: [part.id] });
      expect((await pinnedIds(tenant)).map((c) => c.id)).toContain(part.id);
      await gqlOk(tenant, unpin, { ids: [part.id] });
      expect((await pinnedIds(tenant)).map((c) => c.id)).not.toContain(part.id);
      expect(await partitionItems(libraryPartition(tenant), [`PIN#${otherUser}#`])).toHaveLength(1);

      const stranger = await newTenant();
      await gqlOk(tenant, pin, { ids: [part.id] });
      expect(await pinnedIds(stranger)).toEqual([]);
      await expectError(stranger, pin, { ids: [part.id] }, 'NOT_FOUND');
      await expectError(stranger, bookmark, { ids: [part.id] }, 'NOT_FOUND');
      expect((await pinnedIds(tenant)).map((c) => c.id)).toContain(part.id);
      await gqlOk(tenant, unpin, { ids: [part.id] });
    });

    it('refuses to pin an unknown component and drops pins of deleted components from the list', async () => {
      const part = await createComponent(tenant, { name: 'pinned then deleted', categoryId: 'mechanical' });
      const before = await partitionItems(libraryPartition(tenant), ['PIN#', 'BOOKMARK#']);
      await expectError(tenant, pin, { ids: [part.id, randomUUID()] }, 'NOT_FOUND');
      expect(await partitionItems(libraryPartition(tenant), ['PIN#', 'BOOKMARK#'])).toEqual(before);
      await gqlOk(tenant, pin, { ids: [part.id] });
      await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [part.id] });
      expect((await pinnedIds(tenant)).map((c) => c.id)).not.toContain(part.id);
    });
  });
});
