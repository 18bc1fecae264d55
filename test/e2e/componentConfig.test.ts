import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { historyOf } from '../support/history.js';
import { expectError } from '../support/errors.js';
import { componentWrites, createComponent, createMutation, findOne, libraryPartition, partitionItems, totalCount, updateComponent, updateMutation } from './componentHelpers.js';

const setConfig = 'mutation($input: SetLibraryConfigInput!) { config { setLibraryConfig(input: $input) { id type version document updatedAt updatedBy { id } } } }';
const configsQuery = 'query($filter: ConfigFilterInput) { configs(filter: $filter) { id type version document updatedAt } }';
const syncStatus = 'query($type: ConfigType!) { configSyncStatus(type: $type) { type status configVersion syncedVersion componentsUpdated error updatedAt } }';
const statusesQuery = 'query($filter: CustomStatusFilterInput) { customStatuses(filter: $filter) { id name color mapsTo isDefault archived } }';
const categoriesQuery =
  'query($filter: CategoryFilterInput) { categories { findAll(filter: $filter) { id name type prefix archived attributes { id name valueType unit required options min max pattern archived } } } }';

interface ConfigRecord {
  id: string;
  type: string;
  version: number;
  document: Record<string, unknown>;
  updatedAt: string;
}
interface SyncStatus {
  type: string;
  status: string;
  configVersion: number;
  syncedVersion: number;
  componentsUpdated: number;
  error: string | null;
  updatedAt: string;
}
interface Status {
  id: string;
  name: string;
  color: string;
  mapsTo: string;
  isDefault: boolean;
  archived: boolean;
}

const defaultStatuses = [
  { id: 'design', name: 'Design', color: '#9E9E9E', mapsTo: 'DESIGN', isDefault: true, archived: false },
  { id: 'prototype', name: 'Prototype', color: '#2196F3', mapsTo: 'DEVELOPMENT', isDefault: false, archived: false },
  { id: 'production', name: 'Production', color: '#4CAF50', mapsTo: 'PRODUCTION', isDefault: false, archived: false },
  { id: 'maintenance', name: 'Maintenance', color: '#FF9800', mapsTo: 'MAINTENANCE', isDefault: false, archived: false },
  { id: 'obsolete', name: 'Obsolete', color: '#F44336', mapsTo: 'OBSOLETE', isDefault: false, archived: false },
];
const defaultCategoryIds = [
  'resistor',
  'capacitor',
  'integrated-circuit',
  'connector',
  'mechanical',
  'fastener',
  'pcb',
  'pcba',
  'cable-assembly',
  'top-level-assembly',
  'drawing',
  'specification',
  'datasheet',
];
const defaultCpnScheme = {
  delimiter: '-',
  elements: [
    { type: 'CATEGORY_PREFIX', name: 'category' },
    { type: 'COUNTER', name: 'counter', base: 10, digits: 5, min: 1, max: 99999, scope: 'PREFIX' },
  ],
  settings: { allow_override: true, allow_freeform: false, case_sensitive: false },
};
const defaultRevisionScheme = { delimiter: '.', segments: [{ type: 'LETTERS', excludedLetters: [] }], rules: [] };

async function configs(tenant: Tenant, types?: string[]): Promise<ConfigRecord[]> {
  const data = await gqlOk<{ configs: ConfigRecord[] }>(tenant, configsQuery, types ? { filter: { types } } : {});
  return [...data.configs].sort((a, b) => a.type.localeCompare(b.type));
}

async function config(tenant: Tenant, type: string): Promise<ConfigRecord> {
  return (await configs(tenant, [type]))[0]!;
}

async function sync(tenant: Tenant, type: string): Promise<SyncStatus> {
  return (await gqlOk<{ configSyncStatus: SyncStatus }>(tenant, syncStatus, { type })).configSyncStatus;
}

async function statuses(tenant: Tenant, filter?: Record<string, unknown>): Promise<Status[]> {
  return (await gqlOk<{ customStatuses: Status[] }>(tenant, statusesQuery, filter ? { filter } : {})).customStatuses;
}

async function setDocument(tenant: Tenant, type: string, document: unknown, expectedVersion?: number) {
  const input = { type, document, ...(expectedVersion === undefined ? {} : { expectedVersion }) };
  return (await gqlOk<{ config: { setLibraryConfig: ConfigRecord & { updatedBy: { id: string } | null } } }>(tenant, setConfig, { input })).config.setLibraryConfig;
}

/** The stored configuration documents of the library, straight from the table. */
function storedConfigs(tenant: Tenant) {
  return partitionItems(libraryPartition(tenant), ['CONFIG#']);
}

/** A refused document: CONFIG_INVALID listing problems, and neither the API nor the table shows a change. */
async function expectInvalid(tenant: Tenant, type: string, document: unknown): Promise<{ path: string; message: string }[]> {
  const [beforeApi, beforeTable] = await Promise.all([configs(tenant), storedConfigs(tenant)]);
  const response = await expectError(tenant, setConfig, { input: { type, document } }, 'CONFIG_INVALID');
  const error = response.body.errors![0]!;
  expect(error.extensions!.configType).toBe(type);
  const problems = error.extensions!.problems as { path: string; message: string }[];
  expect(problems.length).toBeGreaterThan(0);
  for (const problem of problems) expect(error.message).toContain(problem.message);
  expect(await configs(tenant)).toEqual(beforeApi);
  expect(await storedConfigs(tenant)).toEqual(beforeTable);
  return problems;
}

const paths = (problems: { path: string }[]) => problems.map((p) => p.path).sort();

describe('library configuration', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
  });

  describe('seeded defaults and queries', () => {
    it('seeds the four documents, version 1 and synced, when the library is created', async () => {
      const all = await configs(tenant);
      expect(all.map((c) => [c.id, c.type, c.version])).toEqual([
        ['CATEGORIES', 'CATEGORIES', 1],
        ['CPN_SCHEME', 'CPN_SCHEME', 1],
        ['REVISION_SCHEME', 'REVISION_SCHEME', 1],
        ['STATUSES', 'STATUSES', 1],
      ]);
      const byType = Object.fromEntries(all.map((c) => [c.type, c.document]));
      expect(byType.STATUSES).toEqual({ statuses: defaultStatuses });
      expect(byType.CPN_SCHEME).toEqual(defaultCpnScheme);
      expect(byType.REVISION_SCHEME).toEqual(defaultRevisionScheme);
      expect((byType.CATEGORIES as { categories: { id: string }[] }).categories.map((c) => c.id)).toEqual(defaultCategoryIds);
      expect((await configs(tenant, ['STATUSES', 'CPN_SCHEME'])).map((c) => c.type)).toEqual(['CPN_SCHEME', 'STATUSES']);
      expect(await storedConfigs(tenant)).toHaveLength(4);
      for (const type of ['STATUSES', 'CATEGORIES', 'CPN_SCHEME', 'REVISION_SCHEME']) {
        expect(await sync(tenant, type)).toMatchObject({ type, status: 'SYNCED', configVersion: 1, syncedVersion: 1, componentsUpdated: 0, error: null });
      }
    });

    it('seeds a library created through library.create as well', async () => {
      const { library } = await gqlOk<{ library: { create: { id: string } } }>(tenant, 'mutation { library { create(input: { name: "Second", slug: "second" }) { id } } }');
      const stored = await partitionItems(`ORG#${tenant.organization.id}#LIB#${library.create.id}`, ['CONFIG#']);
      expect(stored.map((item) => [item.SK, item.version, item.syncStatus])).toEqual([
        ['CONFIG#CATEGORIES', 1, 'SYNCED'],
        ['CONFIG#CPN_SCHEME', 1, 'SYNCED'],
        ['CONFIG#REVISION_SCHEME', 1, 'SYNCED'],
        ['CONFIG#STATUSES', 1, 'SYNCED'],
      ]);
      expect(stored.find((item) => item.SK === 'CONFIG#STATUSES')!.document).toEqual({ statuses: defaultStatuses });
    });

    it('categories.findAll filters by type and ids and resolves every field', async () => {
      const all = await gqlOk<{ categories: { findAll: { id: string }[] } }>(tenant, categoriesQuery);
      expect(all.categories.findAll.map((c) => c.id)).toEqual(defaultCategoryIds);
      const assemblies = await gqlOk<{ categories: { findAll: { id: string }[] } }>(tenant, categoriesQuery, { filter: { type: 'ASSEMBLY' } });
      expect(assemblies.categories.findAll.map((c) => c.id)).toEqual(['pcba', 'cable-assembly', 'top-level-assembly']);
      const documents = await gqlOk<{ categories: { findAll: { id: string }[] } }>(tenant, categoriesQuery, { filter: { type: 'DOCUMENT' } });
      expect(documents.categories.findAll.map((c) => c.id)).toEqual(['drawing', 'specification', 'datasheet']);
      const one = await gqlOk<{ categories: { findAll: unknown[] } }>(tenant, categoriesQuery, { filter: { ids: ['resistor', 'no-such-category'] } });
      const none = { unit: null, required: false, options: null, min: null, max: null, pattern: null, archived: false };
      expect(one.categories.findAll).toEqual([
        {
          id: 'resistor',
          name: 'Resistor',
          type: 'PART',
          prefix: '100',
          archived: false,
          attributes: [
            { ...none, id: 'resistance', name: 'Resistance', valueType: 'NUMBER', unit: 'Ω', required: true, min: 0 },
            { ...none, id: 'tolerance', name: 'Tolerance', valueType: 'NUMBER', unit: '%', min: 0, max: 100 },
            { ...none, id: 'power', name: 'Power rating', valueType: 'NUMBER', unit: 'W', min: 0 },
            { ...none, id: 'package', name: 'Package', valueType: 'ENUM', options: ['0201', '0402', '0603', '0805', '1206', '1210', '2512', 'THT', 'Other'] },
          ],
        },
      ]);
    });

    it('customStatuses lists the statuses, filtered by classification', async () => {
      expect(await statuses(tenant)).toEqual(defaultStatuses);
      expect((await statuses(tenant, { mapsTo: ['PRODUCTION', 'OBSOLETE'] })).map((s) => s.id)).toEqual(['production', 'obsolete']);
      expect(await statuses(tenant, { mapsTo: ['DESIGN'], includeArchived: true })).toEqual([defaultStatuses[0]]);
    });
  });

  describe('validation: refused documents list every problem and change nothing', () => {
    it('refuses a statuses document with schema problems', async () => {
      const problems = await expectInvalid(tenant, 'STATUSES', {
        statuses: [
          { ...defaultStatuses[0], color: 'grey' },
          { ...defaultStatuses[1], name: '   ', isDefault: true },
          ...defaultStatuses.slice(2),
          { id: 'Bad Id', name: 'Bad', color: '#000000', mapsTo: 'DESIGN' },
          { ...defaultStatuses[4], name: 'Obsolete again' },
        ],
      });
      expect(paths(problems)).toEqual(['statuses', 'statuses.0.color', 'statuses.1.name', 'statuses.5.id', 'statuses.6.id']);
      expect(problems.find((p) => p.path === 'statuses')!.message).toContain('exactly one status must have isDefault true');
    });

    it('refuses a categories, a CPN scheme and a revision scheme document with schema problems', async () => {
      const existing = ((await config(tenant, 'CATEGORIES')).document as { categories: unknown[] }).categories;
      const categories = await expectInvalid(tenant, 'CATEGORIES', {
        categories: [
          ...existing,
          { id: 'widget', name: 'Widget', type: 'PART', prefix: '1000', attributes: [{ id: 'size', name: 'Size', valueType: 'ENUM' }] },
          { id: 'widget', name: 'Widget 2', type: 'PART', prefix: '10' },
        ],
      });
      const at = existing.length;
      expect(paths(categories)).toEqual([`categories.${at}.attributes.0.options`, `categories.${at}.prefix`, `categories.${at + 1}.id`, `categories.${at + 1}.prefix`].sort());

      const cpn = await expectInvalid(tenant, 'CPN_SCHEME', {
        delimiter: '-',
        elements: [
          { type: 'CONSTANT', name: 'head', value: 'A-B' },
          { type: 'COUNTER', name: 'head', digits: 3, max: 5000 },
        ],
      });
      expect(paths(cpn)).toEqual(['elements.0.value', 'elements.1.max', 'elements.1.name']);

      const revision = await expectInvalid(tenant, 'REVISION_SCHEME', {
        delimiter: '.',
        segments: [{ type: 'LETTERS', excludedLetters: ['a'] }],
        rules: [{ mapsTo: ['DESIGN'], initialValue: '1' }],
      });
      expect(paths(revision)).toEqual(['rules.0.initialValue', 'segments.0.excludedLetters.0']);
      expect(paths(await expectInvalid(tenant, 'REVISION_SCHEME', { segments: [] }))).toEqual(['segments']);
      await expectInvalid(tenant, 'STATUSES', 'not a document');
      await expectInvalid(tenant, 'STATUSES', { statuses: defaultStatuses, extra: true });
    });

    it('refuses removing a status id (CONFIG_INVALID) and nothing changes', async () => {
      const part = await createComponent(tenant, { name: 'in prototype', categoryId: 'mechanical', statusId: 'prototype' });
      const withoutPrototype = defaultStatuses.filter((s) => s.id !== 'prototype');
      const problems = await expectInvalid(tenant, 'STATUSES', { statuses: withoutPrototype });
      expect(problems).toEqual([{ path: 'statuses', message: expect.stringContaining('"prototype"') }]);
      const two = await expectInvalid(tenant, 'STATUSES', { statuses: withoutPrototype.filter((s) => s.id !== 'obsolete') });
      expect(two.map((p) => p.message)).toEqual([expect.stringContaining('"prototype"'), expect.stringContaining('"obsolete"')]);
      expect(await statuses(tenant)).toEqual(defaultStatuses);
      expect(await findOne(tenant, part.id)).toMatchObject({ status: { id: 'prototype', name: 'Prototype' }, version: 1 });
    });

    it('refuses removing a category or an attribute and changing a category type, listing each', async () => {
      const current = (await config(tenant, 'CATEGORIES')).document as { categories: { id: string; type: string; attributes: { id: string }[] }[] };
      const next = current.categories
        .filter((c) => c.id !== 'datasheet')
        .map((c) => (c.id === 'resistor' ? { ...c, attributes: c.attributes.filter((a) => a.id !== 'power') } : c.id === 'pcb' ? { ...c, type: 'ASSEMBLY' } : c));
      const problems = await expectInvalid(tenant, 'CATEGORIES', { categories: next });
      expect(problems.map((p) => p.path).sort()).toEqual(['categories', 'categories.pcb.type', 'categories.resistor.attributes']);
    });

    it('lists the document-wide problems even when an entry has a value of the wrong kind', async () => {
      const statusProblems = await expectInvalid(tenant, 'STATUSES', {
        statuses: [...defaultStatuses.map((s) => (s.id === 'prototype' ? { ...s, isDefault: true } : s)), { id: 'retired', name: 'Retired', color: '#000000', mapsTo: 'RETIRED' }],
      });
      expect(paths(statusProblems)).toEqual(['statuses', 'statuses.5.mapsTo']);
      const existing = ((await config(tenant, 'CATEGORIES')).document as { categories: unknown[] }).categories;
      const categoryProblems = await expectInvalid(tenant, 'CATEGORIES', {
        categories: [...existing, { id: 'widget', name: 'Widget', type: 'GADGET', prefix: '150' }, { id: 'widget', name: 'Widget 2', type: 'PART', prefix: '151' }],
      });
      expect(paths(categoryProblems)).toEqual([`categories.${existing.length}.type`, `categories.${existing.length + 1}.id`]);
    });

    it('lists the permanence problems together with the schema problems of the same document', async () => {
      const problems = await expectInvalid(tenant, 'STATUSES', {
        statuses: defaultStatuses.filter((s) => s.id !== 'obsolete').map((s) => (s.id === 'design' ? { ...s, color: 'grey' } : s)),
      });
      expect(paths(problems)).toEqual(['statuses', 'statuses.0.color']);
      expect(problems.find((p) => p.path === 'statuses')!.message).toContain('"obsolete"');
    });
  });

  describe('versions and sync', () => {
    it('setLibraryConfig checks expectedVersion and stores a new version', async () => {
      const before = await config(tenant, 'CPN_SCHEME');
      const stored = await storedConfigs(tenant);
      const conflict = await expectError(tenant, setConfig, { input: { type: 'CPN_SCHEME', document: defaultCpnScheme, expectedVersion: before.version + 1 } }, 'VERSION_CONFLICT');
      expect(conflict.body.errors![0]!.extensions).toMatchObject({ configType: 'CPN_SCHEME', expectedVersion: before.version + 1, currentVersion: before.version });
      await expectError(tenant, setConfig, { input: { type: 'CPN_SCHEME', document: defaultCpnScheme, expectedVersion: 0 } }, 'VERSION_CONFLICT');
      expect(await storedConfigs(tenant)).toEqual(stored);

      const next = await setDocument(tenant, 'CPN_SCHEME', { ...defaultCpnScheme, settings: { ...defaultCpnScheme.settings, allow_freeform: true } }, before.version);
      expect(next).toMatchObject({ id: 'CPN_SCHEME', type: 'CPN_SCHEME', version: before.version + 1, updatedBy: { id: tenant.user.id } });
      expect(next.updatedAt >= before.updatedAt).toBe(true);
      expect((await config(tenant, 'CPN_SCHEME')).document).toEqual({ ...defaultCpnScheme, settings: { ...defaultCpnScheme.settings, allow_freeform: true } });
      const unpinned = await setDocument(tenant, 'CPN_SCHEME', defaultCpnScheme);
      expect(unpinned.version).toBe(before.version + 2);
      await expectError(tenant, setConfig, { input: { type: 'CPN_SCHEME', document: defaultCpnScheme, expectedVersion: before.version + 1 } }, 'VERSION_CONFLICT');
      expect(await sync(tenant, 'CPN_SCHEME')).toMatchObject({ status: 'SYNCED', configVersion: before.version + 2, syncedVersion: before.version + 2 });
    });

    it('concurrent writes of one document: with the same expectedVersion one wins; without one, both are stored', async () => {
      for (let round = 0; round < 3; round += 1) {
        const { version } = await config(tenant, 'CPN_SCHEME');
        const pinned = await Promise.all(
          [true, false].map((allow_freeform) =>
            graphql(
              setConfig,
              { input: { type: 'CPN_SCHEME', document: { ...defaultCpnScheme, settings: { ...defaultCpnScheme.settings, allow_freeform } }, expectedVersion: version } },
              tenantHeaders(tenant),
            ),
          ),
        );
        expect(pinned.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'OK').sort()).toEqual(['OK', 'VERSION_CONFLICT']);
        expect((await config(tenant, 'CPN_SCHEME')).version).toBe(version + 1);

        const free = await Promise.all(
          [true, false].map((allow_freeform) =>
            graphql(setConfig, { input: { type: 'CPN_SCHEME', document: { ...defaultCpnScheme, settings: { ...defaultCpnScheme.settings, allow_freeform } } } }, tenantHeaders(tenant)),
          ),
        );
        expect(
          free.map((r) => r.body.errors),
          JSON.stringify(free.map((r) => r.body)),
        ).toEqual([undefined, undefined]);
        expect((await config(tenant, 'CPN_SCHEME')).version).toBe(version + 3);
      }
    });

    it('syncs a status rename onto existing components', async () => {
      const [a, b, other] = [
        await createComponent(tenant, { name: 'rename a', categoryId: 'mechanical' }),
        await createComponent(tenant, { name: 'rename b', categoryId: 'pcba' }),
        await createComponent(tenant, { name: 'rename other', categoryId: 'mechanical', statusId: 'production' }),
      ];
      const inDesign = await totalCount(tenant, { statusId: 'design' });
      const archivedInDesign = await totalCount(tenant, { statusId: 'design', isArchived: true });
      const current = await config(tenant, 'STATUSES');
      const renamed = await setDocument(tenant, 'STATUSES', { statuses: defaultStatuses.map((s) => (s.id === 'design' ? { ...s, name: 'Concept', color: '#123456' } : s)) }, current.version);
      expect(renamed.version).toBe(current.version + 1);
      const status = await sync(tenant, 'STATUSES');
      expect(status).toMatchObject({
        type: 'STATUSES',
        status: 'SYNCED',
        configVersion: renamed.version,
        syncedVersion: renamed.version,
        componentsUpdated: inDesign + archivedInDesign,
        error: null,
      });
      expect(await findOne(tenant, a.id)).toMatchObject({ status: { id: 'design', name: 'Concept', color: '#123456', mapsTo: 'DESIGN' }, version: 1 });
      expect(await findOne(tenant, b.id)).toMatchObject({ status: { id: 'design', name: 'Concept', color: '#123456' } });
      expect(await findOne(tenant, other.id)).toMatchObject({ status: { id: 'production', name: 'Production', color: '#4CAF50' } });
      expect(await historyOf(tenant, a.id)).toHaveLength(1);
      expect((await statuses(tenant))[0]).toEqual({ ...defaultStatuses[0], name: 'Concept', color: '#123456' });
      expect((await createComponent(tenant, { name: 'after rename', categoryId: 'mechanical' })).status).toEqual({ id: 'design', name: 'Concept', color: '#123456', mapsTo: 'DESIGN' });
      const edited = await updateComponent(tenant, { id: a.id, description: 'edited after the rename' });
      expect(edited).toMatchObject({ status: { name: 'Concept' }, version: 2 });
    });

    it('an archived status stays on its components but cannot be set, and the default cannot be archived', async () => {
      const part = await createComponent(tenant, { name: 'in maintenance', categoryId: 'mechanical', statusId: 'maintenance' });
      const target = await createComponent(tenant, { name: 'target', categoryId: 'mechanical' });
      const current = (await config(tenant, 'STATUSES')).document as { statuses: Status[] };
      await setDocument(tenant, 'STATUSES', { statuses: current.statuses.map((s) => (s.id === 'maintenance' ? { ...s, archived: true } : s)) });
      expect((await statuses(tenant)).map((s) => s.id)).toEqual(['design', 'prototype', 'production', 'obsolete']);
      expect((await statuses(tenant, { includeArchived: true })).find((s) => s.id === 'maintenance')).toMatchObject({ archived: true });
      expect(await findOne(tenant, part.id)).toMatchObject({ status: { id: 'maintenance', name: 'Maintenance' } });
      const before = await componentWrites(tenant);
      await expectError(tenant, createMutation, { inputs: [{ name: 'archived status', categoryId: 'mechanical', statusId: 'maintenance' }] }, 'STATUS_NOT_FOUND');
      await expectError(tenant, updateMutation, { inputs: [{ id: target.id, statusId: 'maintenance' }] }, 'STATUS_NOT_FOUND');
      expect(await componentWrites(tenant)).toEqual(before);
      // The component already there keeps it through other edits.
      expect(await updateComponent(tenant, { id: part.id, name: 'still in maintenance' })).toMatchObject({ status: { id: 'maintenance' }, version: 2 });
      const problems = await expectInvalid(tenant, 'STATUSES', { statuses: current.statuses.map((s) => (s.id === 'design' ? { ...s, archived: true } : s)) });
      expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('default status cannot be archived')]);
    });

    it('syncs a category rename, archives a category, adds one, and re-runs the sync on demand', async () => {
      const bracket = await createComponent(tenant, { name: 'bracket', categoryId: 'mechanical' });
      const screw = await createComponent(tenant, { name: 'screw', categoryId: 'fastener' });
      const mechanical = (await totalCount(tenant, { categoryId: 'mechanical' })) + (await totalCount(tenant, { categoryId: 'mechanical', isArchived: true }));
      const current = await config(tenant, 'CATEGORIES');
      const document = current.document as { categories: Record<string, unknown>[] };
      const next = {
        categories: [
          ...document.categories.map((c) => (c.id === 'mechanical' ? { ...c, name: 'Mechanics' } : c.id === 'fastener' ? { ...c, archived: true } : c)),
          { id: 'sensor', name: 'Sensor', type: 'PART', prefix: '140', attributes: [{ id: 'range', name: 'Range', valueType: 'NUMBER', unit: 'm', required: true, min: 0 }] },
        ],
      };
      const saved = await setDocument(tenant, 'CATEGORIES', next, current.version);
      expect(saved.version).toBe(current.version + 1);
      expect(await sync(tenant, 'CATEGORIES')).toMatchObject({ status: 'SYNCED', configVersion: saved.version, syncedVersion: saved.version, componentsUpdated: mechanical, error: null });
      expect(await findOne(tenant, bracket.id)).toMatchObject({ category: { id: 'mechanical', name: 'Mechanics', type: 'PART' }, version: 1 });
      expect(await findOne(tenant, screw.id)).toMatchObject({ category: { id: 'fastener', name: 'Fastener' } });

      const listed = await gqlOk<{ categories: { findAll: { id: string; archived: boolean }[] } }>(tenant, categoriesQuery);
      expect(listed.categories.findAll.map((c) => c.id)).toEqual([...defaultCategoryIds.filter((id) => id !== 'fastener'), 'sensor']);
      const withArchived = await gqlOk<{ categories: { findAll: { id: string; archived: boolean }[] } }>(tenant, categoriesQuery, { filter: { includeArchived: true, ids: ['fastener'] } });
      expect(withArchived.categories.findAll).toMatchObject([{ id: 'fastener', archived: true }]);

      const before = await componentWrites(tenant);
      await expectError(tenant, createMutation, { inputs: [{ name: 'archived category', categoryId: 'fastener' }] }, 'CATEGORY_NOT_FOUND');
      await expectError(tenant, createMutation, { inputs: [{ name: 'sensor without range', categoryId: 'sensor' }] }, 'ATTRIBUTE_VALIDATION_FAILED');
      expect(await componentWrites(tenant)).toEqual(before);
      const sensor = await createComponent(tenant, { name: 'lidar', categoryId: 'sensor', attributeValues: [{ attributeId: 'range', value: 40 }] });
      expect(sensor).toMatchObject({ category: { id: 'sensor', name: 'Sensor', type: 'PART' }, cpn: '140-00001' });

      const rerun = await gqlOk<{ config: { manuallyProcessCategoriesConfig: SyncStatus } }>(
        tenant,
        'mutation { config { manuallyProcessCategoriesConfig { type status configVersion syncedVersion componentsUpdated error updatedAt } } }',
      );
      expect(rerun.config.manuallyProcessCategoriesConfig).toMatchObject({
        type: 'CATEGORIES',
        status: 'SYNCED',
        configVersion: saved.version,
        syncedVersion: saved.version,
        componentsUpdated: 0,
        error: null,
      });
      expect(await sync(tenant, 'CATEGORIES')).toMatchObject({ status: 'SYNCED', configVersion: saved.version, syncedVersion: saved.version });
    });
  });
});

describe('revision scheme', () => {
  let tenant: Tenant;
  const scheme = {
    delimiter: '.',
    segments: [{ type: 'LETTERS', excludedLetters: ['I', 'O'] }, { type: 'INTEGER' }],
    rules: [
      { mapsTo: ['DESIGN'], initialValue: '', allowBlank: true },
      { mapsTo: ['PRODUCTION', 'MAINTENANCE'], initialValue: 'B.1' },
    ],
  };

  beforeAll(async () => {
    tenant = await newTenant();
  });

  it('stores the scheme with its defaults filled', async () => {
    const saved = await setDocument(tenant, 'REVISION_SCHEME', scheme, 1);
    expect(saved.version).toBe(2);
    expect(saved.document).toEqual({
      delimiter: '.',
      segments: [
        { type: 'LETTERS', excludedLetters: ['I', 'O'] },
        { type: 'INTEGER', min: 1, padWidth: 0 },
      ],
      rules: [
        { mapsTo: ['DESIGN'], initialValue: '', allowBlank: true },
        { mapsTo: ['PRODUCTION', 'MAINTENANCE'], initialValue: 'B.1', allowBlank: false },
      ],
    });
  });

  it('gives new components the initial revision of their status classification', async () => {
    expect((await createComponent(tenant, { name: 'design part', categoryId: 'mechanical' })).revisionValue).toBe('');
    expect((await createComponent(tenant, { name: 'prototype part', categoryId: 'mechanical', statusId: 'prototype' })).revisionValue).toBe('A.1');
    expect((await createComponent(tenant, { name: 'production part', categoryId: 'mechanical', statusId: 'production' })).revisionValue).toBe('B.1');
    expect((await createComponent(tenant, { name: 'given', categoryId: 'mechanical', statusId: 'production', revisionValue: 'HJ.12' })).revisionValue).toBe('HJ.12');
  });

  it('refuses revisions outside the scheme with INVALID_REVISION, writing nothing', async () => {
    const part = await createComponent(tenant, { name: 'blank design part', categoryId: 'mechanical' });
    const before = await componentWrites(tenant);
    for (const revisionValue of ['I.1', 'A', 'A.01', 'A.0', 'a.1', 'A.1.1', 'A-1']) {
      await expectError(tenant, createMutation, { inputs: [{ name: `bad ${revisionValue}`, categoryId: 'mechanical', revisionValue }] }, 'INVALID_REVISION');
      await expectError(tenant, updateMutation, { inputs: [{ id: part.id, revisionValue }] }, 'INVALID_REVISION');
    }
    await expectError(tenant, createMutation, { inputs: [{ name: 'blank in production', categoryId: 'mechanical', statusId: 'production', revisionValue: '' }] }, 'INVALID_REVISION');
    // Moving a blank-revision component into a status whose rule forbids blank needs a revision.
    await expectError(tenant, updateMutation, { inputs: [{ id: part.id, statusId: 'production' }] }, 'INVALID_REVISION');
    expect(await componentWrites(tenant)).toEqual(before);
    const released = await updateComponent(tenant, { id: part.id, statusId: 'production', revisionValue: 'A.1' });
    expect(released).toMatchObject({ status: { id: 'production' }, revisionValue: 'A.1', version: 2 });
  });
});
