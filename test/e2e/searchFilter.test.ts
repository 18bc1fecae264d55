import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchPartition } from '../../lib/search/entries.js';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { expectError } from '../support/errors.js';
import { compactSearchIndex, createAt, markReleased, putUser, seedComponents, updateAt } from './searchHelpers.js';

const filterQuery = `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id name } } } } }`;

/** The names component.filter returns (every page), leaving out the filler components. */
async function names(tenant: Tenant, filter: { and?: object[]; or?: object[] }): Promise<string[]> {
  const input = { and: [...(filter.and ?? []), { labels: { name: { neq: 'filler' } } }], ...(filter.or ? { or: filter.or } : {}), pagination: { first: 1000 } };
  const data = await gqlOk<{ component: { filter: { totalCount: number; edges: { node: { name: string } }[] } } }>(tenant, filterQuery, { input });
  expect(data.component.filter.edges).toHaveLength(data.component.filter.totalCount);
  return data.component.filter.edges.map((e) => e.node.name).sort();
}

const R10 = 'Resistor 10k 1%';
const R47 = 'resistor_4k7';
const C100 = 'Capacitor 100nF';
const C50 = 'Capacitor 50% derated';
const PCBA = 'PCB Assembly main';
const DWG = 'Drawing of bracket';
const ARCH = 'Archived bracket';
const REL = 'Released housing';
const active = [R10, R47, C100, C50, PCBA, DWG, REL];
const except = (...out: string[]) => active.filter((n) => !out.includes(n));

describe('component.filter', () => {
  let tenant: Tenant;
  const ids: Record<string, string> = {};
  let grace: string;
  let me: string;

  beforeAll(async () => {
    tenant = await newTenant();
    const store = testStore();
    me = tenant.user.id;
    grace = (await putUser(store, 'Grace', 'Hopper', tenant.organization.id)).id;
    const made = [
      [
        {
          name: R10,
          categoryId: 'resistor',
          statusId: 'design',
          revisionValue: 'A',
          labels: ['rohs', 'smd'],
          description: 'Thick film, 1% tolerance',
          cpn: '100-00001',
          attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 10000 }],
        },
        '2025-03-01T00:00:00.000Z',
        me,
      ],
      [
        {
          name: R47,
          categoryId: 'resistor',
          statusId: 'prototype',
          revisionValue: 'B',
          labels: ['rohs'],
          description: 'RES 4k7 under_score',
          cpn: '100-00002',
          attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 4700 }],
        },
        '2025-03-01T23:59:59.999Z',
        me,
      ],
      [
        {
          name: C100,
          categoryId: 'capacitor',
          statusId: 'production',
          revisionValue: 'Z',
          labels: ['reach'],
          cpn: '110-00001',
          attributeValues: [{ attributeId: 'capacitance', hasValue: true, value: 1e-7 }],
        },
        '2025-03-02T00:00:00.000Z',
        grace,
      ],
      [
        {
          name: C50,
          categoryId: 'capacitor',
          statusId: 'maintenance',
          revisionValue: 'AA',
          description: 'Derated to 50 percent',
          cpn: '110-00002',
          attributeValues: [{ attributeId: 'capacitance', hasValue: true, value: 1e-6 }],
        },
        '2025-02-28T23:59:59.999Z',
        grace,
      ],
      [{ name: PCBA, categoryId: 'pcba', statusId: 'design', revisionValue: 'AB', labels: ['rohs'], description: 'Main board', cpn: '400-00001' }, '2025-04-15T12:00:00.000Z', me],
      [{ name: DWG, categoryId: 'drawing', statusId: 'obsolete', revisionValue: 'C', description: 'Outline', cpn: '900-00001' }, '2025-05-01T08:30:00.000Z', grace],
      [{ name: ARCH, categoryId: 'mechanical', statusId: 'design', revisionValue: 'A', cpn: '200-00001' }, '2025-01-10T00:00:00.000Z', me],
      [{ name: REL, categoryId: 'mechanical', statusId: 'production', revisionValue: 'B', cpn: '200-00002' }, '2025-06-01T00:00:00.000Z', me],
    ] as const;
    for (const [input, at, user] of made)
      ids[input.name] = (
        await createAt(
          store,
          tenant,
          { ...input, labels: [...(('labels' in input && input.labels) || [])], attributeValues: 'attributeValues' in input ? [...input.attributeValues] : undefined },
          at,
          user,
        )
      ).id;
    // Enough other components that the ones above are folded into blocks; the changes below are deltas on top.
    await seedComponents(store, tenant, 70, { input: (n) => ({ name: `filler ${n}`, categoryId: 'fastener', labels: ['filler'], cpn: `210-${String(n + 1).padStart(5, '0')}` }) });
    await compactSearchIndex(store, tenant);
    const manifest = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: { PK: searchPartition(tenant.organization.id, tenant.library.id), SK: 'SM' } }));
    expect(manifest.Item?.version).toBeGreaterThan(0);

    await updateAt(store, tenant, { id: ids[R10]!, description: 'Thick film, 1% tolerance, AEC-Q200' }, '2025-03-10T10:00:00.000Z', grace);
    await updateAt(store, tenant, { id: ids[ARCH]!, isArchived: true }, '2025-01-11T00:00:00.000Z', me);
    const rel = await updateAt(store, tenant, { id: ids[REL]!, eid: 'ERP-REL' }, '2025-06-01T00:00:00.000Z', me);
    await markReleased(store, rel);
    await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { pin(input: { ids: $ids }) { id } } }', { ids: [ids[R10], ids[C100]] });
    await gqlOk(tenant, 'mutation($ids: [ID!]!) { component { bookmark(input: { ids: $ids }) { id } } }', { ids: [ids[R47]] });
  }, 120_000);

  const cases: [string, () => object, string[]][] = [
    ['status.id eq', () => ({ status: { id: { eq: 'design' } } }), [R10, PCBA]],
    ['status.id neq', () => ({ status: { id: { neq: 'design' } } }), except(R10, PCBA)],
    ['status.id in', () => ({ status: { id: { in: ['prototype', 'obsolete'] } } }), [R47, DWG]],
    ['status.id notIn', () => ({ status: { id: { notIn: ['design', 'production'] } } }), [R47, C50, DWG]],
    ['status.id contains (case-insensitive)', () => ({ status: { id: { contains: 'PRO' } } }), [R47, C100, REL]],
    ['status.id notContains', () => ({ status: { id: { notContains: 'pro' } } }), [R10, C50, PCBA, DWG]],
    ['status.id like', () => ({ status: { id: { like: 'm%' } } }), [C50]],
    ['status.id notLike', () => ({ status: { id: { notLike: '%o%' } } }), [R10, C50, PCBA]],
    ['status.name eq is exact', () => ({ status: { name: { eq: 'design' } } }), []],
    ['status.name eq', () => ({ status: { name: { eq: 'Design' } } }), [R10, PCBA]],
    ['status.name like is case-insensitive', () => ({ status: { name: { like: 'DESIGN' } } }), [R10, PCBA]],
    ['status.name neq', () => ({ status: { name: { neq: 'Design' } } }), except(R10, PCBA)],
    ['status.name in', () => ({ status: { name: { in: ['Obsolete', 'Maintenance'] } } }), [C50, DWG]],
    ['status.name notIn', () => ({ status: { name: { notIn: ['Design', 'Production'] } } }), [R47, C50, DWG]],
    ['status.name contains', () => ({ status: { name: { contains: 'TEN' } } }), [C50]],
    ['status.name notContains', () => ({ status: { name: { notContains: 'o' } } }), [R10, C50, PCBA]],
    ['status.name notLike', () => ({ status: { name: { notLike: 'p%' } } }), [R10, C50, PCBA, DWG]],
    ['status.mapsTo eq', () => ({ status: { mapsTo: { eq: 'PRODUCTION' } } }), [C100, REL]],
    ['status.mapsTo in', () => ({ status: { mapsTo: { in: ['DESIGN', 'DEVELOPMENT'] } } }), [R10, R47, PCBA]],
    ['status.mapsTo neq', () => ({ status: { mapsTo: { neq: 'DESIGN' } } }), except(R10, PCBA)],
    ['status.mapsTo notIn', () => ({ status: { mapsTo: { notIn: ['PRODUCTION', 'OBSOLETE'] } } }), [R10, R47, C50, PCBA]],
    ['status.mapsTo contains', () => ({ status: { mapsTo: { contains: 'dev' } } }), [R47]],
    ['status.mapsTo notContains', () => ({ status: { mapsTo: { notContains: 'o' } } }), [R10, C50, PCBA]],
    ['status.mapsTo like', () => ({ status: { mapsTo: { like: '%tion' } } }), [C100, REL]],
    ['status.mapsTo notLike', () => ({ status: { mapsTo: { notLike: '%e%' } } }), [C100, REL]],
    ['category.id eq', () => ({ category: { id: { eq: 'capacitor' } } }), [C100, C50]],
    ['category.id neq', () => ({ category: { id: { neq: 'capacitor' } } }), except(C100, C50)],
    ['category.id in', () => ({ category: { id: { in: ['pcba', 'drawing'] } } }), [PCBA, DWG]],
    ['category.id notIn', () => ({ category: { id: { notIn: ['resistor', 'capacitor'] } } }), [PCBA, DWG, REL]],
    ['category.id contains', () => ({ category: { id: { contains: 'CAP' } } }), [C100, C50]],
    ['category.id notContains', () => ({ category: { id: { notContains: 'r' } } }), [PCBA, REL]],
    ['category.id like', () => ({ category: { id: { like: '%or' } } }), [R10, R47, C100, C50]],
    ['category.id notLike', () => ({ category: { id: { notLike: 'p%' } } }), except(PCBA)],
    ['category.name eq', () => ({ category: { name: { eq: 'Drawing' } } }), [DWG]],
    ['category.name neq', () => ({ category: { name: { neq: 'Drawing' } } }), except(DWG)],
    ['category.name in', () => ({ category: { name: { in: ['Resistor', 'PCB Assembly'] } } }), [R10, R47, PCBA]],
    ['category.name notIn', () => ({ category: { name: { notIn: ['Resistor', 'Capacitor'] } } }), [PCBA, DWG, REL]],
    ['category.name contains', () => ({ category: { name: { contains: 'assembly' } } }), [PCBA]],
    ['category.name notContains', () => ({ category: { name: { notContains: 'r' } } }), [PCBA]],
    ['category.name like', () => ({ category: { name: { like: 'Res%' } } }), [R10, R47]],
    ['category.name notLike', () => ({ category: { name: { notLike: '%c%' } } }), [R10, R47, DWG]],
    ['category.type eq', () => ({ category: { type: { eq: 'DOCUMENT' } } }), [DWG]],
    ['category.type neq', () => ({ category: { type: { neq: 'PART' } } }), [PCBA, DWG]],
    ['category.type in', () => ({ category: { type: { in: ['ASSEMBLY', 'DOCUMENT'] } } }), [PCBA, DWG]],
    ['category.type notIn', () => ({ category: { type: { notIn: ['ASSEMBLY', 'DOCUMENT'] } } }), except(PCBA, DWG)],
    ['category.type contains', () => ({ category: { type: { contains: 'ASS' } } }), [PCBA]],
    ['category.type notContains', () => ({ category: { type: { notContains: 'a' } } }), [DWG]],
    ['category.type like', () => ({ category: { type: { like: 'doc%' } } }), [DWG]],
    ['category.type notLike', () => ({ category: { type: { notLike: 'p%' } } }), [PCBA, DWG]],
    ['state eq RELEASED', () => ({ state: { eq: 'RELEASED' } }), [REL]],
    ['state eq MODIFIED', () => ({ state: { eq: 'MODIFIED' } }), except(REL)],
    ['revision eq', () => ({ revision: { value: { eq: 'B' } } }), [R47, REL]],
    ['revision neq', () => ({ revision: { value: { neq: 'A' } } }), except(R10)],
    ['revision in', () => ({ revision: { value: { in: ['Z', 'AA'] } } }), [C100, C50]],
    ['revision notIn', () => ({ revision: { value: { notIn: ['A', 'B'] } } }), [C100, C50, PCBA, DWG]],
    ['revision lt (A..Z..AA order)', () => ({ revision: { value: { lt: 'C' } } }), [R10, R47, REL]],
    ['revision gt Z is AA and AB', () => ({ revision: { value: { gt: 'Z' } } }), [C50, PCBA]],
    ['revision gt and lt', () => ({ revision: { value: { gt: 'B', lt: 'AA' } } }), [C100, DWG]],
    ['createdBy.id eq', () => ({ createdBy: { id: { eq: grace } } }), [C100, C50, DWG]],
    ['createdBy.id neq', () => ({ createdBy: { id: { neq: grace } } }), [R10, R47, PCBA, REL]],
    ['createdBy.id in', () => ({ createdBy: { id: { in: [grace, me] } } }), active],
    ['createdBy.id notIn', () => ({ createdBy: { id: { notIn: [grace] } } }), [R10, R47, PCBA, REL]],
    ['createdBy.id contains (case-insensitive)', () => ({ createdBy: { id: { contains: grace.slice(0, 8).toUpperCase() } } }), [C100, C50, DWG]],
    ['createdBy.id notContains', () => ({ createdBy: { id: { notContains: grace.slice(0, 8) } } }), [R10, R47, PCBA, REL]],
    ['createdBy.id like', () => ({ createdBy: { id: { like: `${grace.slice(0, 30)}%` } } }), [C100, C50, DWG]],
    ['createdBy.id notLike', () => ({ createdBy: { id: { notLike: me } } }), [C100, C50, DWG]],
    ['updatedBy.id eq', () => ({ updatedBy: { id: { eq: grace } } }), [R10, C100, C50, DWG]],
    ['updatedBy.id notIn', () => ({ updatedBy: { id: { notIn: [grace] } } }), [R47, PCBA, REL]],
    ['updatedBy.id neq', () => ({ updatedBy: { id: { neq: grace } } }), [R47, PCBA, REL]],
    ['updatedBy.id in', () => ({ updatedBy: { id: { in: [me] } } }), [R47, PCBA, REL]],
    ['updatedBy.id contains', () => ({ updatedBy: { id: { contains: grace.slice(0, 8) } } }), [R10, C100, C50, DWG]],
    ['updatedBy.id notContains', () => ({ updatedBy: { id: { notContains: grace.slice(0, 8) } } }), [R47, PCBA, REL]],
    ['updatedBy.id like', () => ({ updatedBy: { id: { like: grace.toUpperCase() } } }), [R10, C100, C50, DWG]],
    ['updatedBy.id notLike', () => ({ updatedBy: { id: { notLike: grace } } }), [R47, PCBA, REL]],
    ['labels.name eq', () => ({ labels: { name: { eq: 'rohs' } } }), [R10, R47, PCBA]],
    ['labels.name neq (no label equals)', () => ({ labels: { name: { neq: 'rohs' } } }), [C100, C50, DWG, REL]],
    ['labels.name in', () => ({ labels: { name: { in: ['smd', 'reach'] } } }), [R10, C100]],
    ['labels.name notIn', () => ({ labels: { name: { notIn: ['smd', 'reach'] } } }), [R47, C50, PCBA, DWG, REL]],
    ['labels.name contains', () => ({ labels: { name: { contains: 'RO' } } }), [R10, R47, PCBA]],
    ['labels.name notContains', () => ({ labels: { name: { notContains: 'ro' } } }), [C100, C50, DWG, REL]],
    ['labels.name like', () => ({ labels: { name: { like: 's_d' } } }), [R10]],
    ['labels.name notLike', () => ({ labels: { name: { notLike: '%h%' } } }), [C50, DWG, REL]],
    ['isPinned eq true', () => ({ isPinned: { eq: true } }), [R10, C100]],
    ['isPinned eq false', () => ({ isPinned: { eq: false } }), except(R10, C100)],
    ['isBookmarked eq true', () => ({ isBookmarked: { eq: true } }), [R47]],
    ['isBookmarked eq false', () => ({ isBookmarked: { eq: false } }), except(R47)],
    ['isArchived eq true', () => ({ isArchived: { eq: true } }), [ARCH]],
    ['isArchived eq false', () => ({ isArchived: { eq: false } }), active],
    ['createdAt before a day: before it starts', () => ({ createdAt: { before: '2025-03-01' } }), [C50]],
    ['createdAt after a day: after it ends', () => ({ createdAt: { after: '2025-03-01' } }), [C100, PCBA, DWG, REL]],
    ['createdAt on a day: its first and last millisecond', () => ({ createdAt: { on: '2025-03-01' } }), [R10, R47]],
    ['createdAt rangeStart and rangeEnd days, inclusive', () => ({ createdAt: { rangeStart: '2025-03-01', rangeEnd: '2025-03-02' } }), [R10, R47, C100]],
    ['createdAt rangeStart alone', () => ({ createdAt: { rangeStart: '2025-03-02' } }), [C100, PCBA, DWG, REL]],
    ['createdAt rangeEnd alone', () => ({ createdAt: { rangeEnd: '2025-02-28' } }), [C50]],
    ['createdAt before an instant, exclusive', () => ({ createdAt: { before: '2025-03-01T23:59:59.999Z' } }), [R10, C50]],
    ['createdAt after an instant, exclusive', () => ({ createdAt: { after: '2025-03-01T00:00:00.000Z' } }), [R47, C100, PCBA, DWG, REL]],
    ['createdAt instants, inclusive range', () => ({ createdAt: { rangeStart: '2025-03-01T23:59:59.999Z', rangeEnd: '2025-03-02T00:00:00.000Z' } }), [R47, C100]],
    ['createdAt on the UTC day of an instant', () => ({ createdAt: { on: '2025-03-01T15:00:00+01:00' } }), [R10, R47]],
    ['updatedAt on', () => ({ updatedAt: { on: '2025-03-10' } }), [R10]],
    ['updatedAt after an instant', () => ({ updatedAt: { after: '2025-05-01T08:30:00.000Z' } }), [REL]],
    ['updatedAt before', () => ({ updatedAt: { before: '2025-03-10' } }), [R47, C100, C50]],
    ['updatedAt rangeStart', () => ({ updatedAt: { rangeStart: '2025-04-15' } }), [PCBA, DWG, REL]],
    ['updatedAt rangeEnd', () => ({ updatedAt: { rangeEnd: '2025-03-02' } }), [R47, C100, C50]],
    ['updatedAt rangeStart and rangeEnd', () => ({ updatedAt: { rangeStart: '2025-03-02', rangeEnd: '2025-04-15' } }), [R10, C100, PCBA]],
    ['name eq', () => ({ name: { eq: C100 } }), [C100]],
    ['name neq', () => ({ name: { neq: C100 } }), except(C100)],
    ['name in', () => ({ name: { in: [R47, DWG, 'nothing'] } }), [R47, DWG]],
    ['name notIn', () => ({ name: { notIn: [R47, DWG] } }), except(R47, DWG)],
    ['name contains a literal percent', () => ({ name: { contains: '50%' } }), [C50]],
    ['name contains a literal underscore', () => ({ name: { contains: '_' } }), [R47]],
    ['name contains, case-insensitive', () => ({ name: { contains: 'RESISTOR' } }), [R10, R47]],
    ['name notContains', () => ({ name: { notContains: 'capacitor' } }), except(C100, C50)],
    ['name like %', () => ({ name: { like: 'resistor%' } }), [R10, R47]],
    ['name like _ is one character', () => ({ name: { like: 'capacitor ___nf' } }), [C100]],
    ['name like % anywhere', () => ({ name: { like: '%_%' } }), active],
    ['name notLike', () => ({ name: { notLike: 'c%' } }), except(C100, C50)],
    ['identifier.displayValue eq', () => ({ identifier: { displayValue: { eq: '110-00002' } } }), [C50]],
    ['identifier.displayValue neq', () => ({ identifier: { displayValue: { neq: '110-00002' } } }), except(C50)],
    ['identifier.displayValue in', () => ({ identifier: { displayValue: { in: ['100-00001', '900-00001'] } } }), [R10, DWG]],
    ['identifier.displayValue notIn', () => ({ identifier: { displayValue: { notIn: ['100-00001', '900-00001'] } } }), except(R10, DWG)],
    ['identifier.displayValue contains', () => ({ identifier: { displayValue: { contains: '100-' } } }), [R10, R47]],
    ['identifier.displayValue notContains', () => ({ identifier: { displayValue: { notContains: '-0000' } } }), []],
    ['identifier.displayValue like', () => ({ identifier: { displayValue: { like: '4__-%' } } }), [PCBA]],
    ['identifier.displayValue notLike', () => ({ identifier: { displayValue: { notLike: '1%' } } }), [PCBA, DWG, REL]],
    ['description contains a literal percent', () => ({ description: { contains: '1%' } }), [R10]],
    ['description contains, case-insensitive, literal underscore', () => ({ description: { contains: 'UNDER_SCORE' } }), [R47]],
    ['description doesNotContain (no description counts)', () => ({ description: { doesNotContain: 'board' } }), except(PCBA)],
    ['description like', () => ({ description: { like: '%PERCENT' } }), [C50]],
    ['description notLike', () => ({ description: { notLike: 'thick%' } }), except(R10)],
  ];

  it.each(cases)('%s', async (_name, condition, expected) => {
    expect(await names(tenant, { and: [condition()] })).toEqual([...expected].sort());
  });

  it('needs every and condition, and one of the or conditions', async () => {
    expect(await names(tenant, { or: [{ name: { eq: R10 } }, { labels: { name: { eq: 'reach' } } }] })).toEqual([C100, R10].sort());
    expect(await names(tenant, { and: [{ category: { type: { eq: 'PART' } } }], or: [{ isPinned: { eq: true } }, { isBookmarked: { eq: true } }] })).toEqual([C100, R10, R47].sort());
    expect(await names(tenant, { and: [{ category: { id: { eq: 'resistor' } }, status: { id: { eq: 'prototype' } } }] })).toEqual([R47]);
  });

  it('refuses malformed dates and revisions that are not of the scheme, naming the field', async () => {
    const response = await expectError(tenant, filterQuery, { input: { and: [{ createdAt: { on: '2025-02-30' } }] } }, 'BAD_USER_INPUT');
    expect(response.body.errors![0]!.message).toMatch(/and\[0\]\.createdAt\.on/);
    await expectError(tenant, filterQuery, { input: { and: [{ revision: { value: { gt: 'a1' } } }] } }, 'BAD_USER_INPUT');
    await expectError(tenant, filterQuery, { input: { pagination: { first: 1001 } } }, 'BAD_USER_INPUT');
    await expectError(tenant, filterQuery, { input: { pagination: { after: 'not-a-cursor' } } }, 'BAD_USER_INPUT');
  });

  it('needs components.read and the library headers', async () => {
    const response = await graphql(filterQuery, {}, { ...tenantHeaders(tenant), 'x-library': undefined });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('MISSING_CONTEXT_HEADERS');
  });
});

describe('component.filter with a multi-segment revision scheme', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await newTenant();
    await gqlOk(tenant, 'mutation($input: SetLibraryConfigInput!) { config { setLibraryConfig(input: $input) { version } } }', {
      input: {
        type: 'REVISION_SCHEME',
        document: {
          delimiter: '.',
          segments: [
            { type: 'INTEGER', min: 1, padWidth: 0 },
            { type: 'LETTERS', excludedLetters: [] },
          ],
          rules: [],
        },
      },
    });
    const inputs = ['1.A', '1.Z', '1.AA', '2.A', '9.C', '10.B'].map((revisionValue) => ({ name: `rev ${revisionValue}`, categoryId: 'mechanical', revisionValue }));
    await gqlOk(tenant, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', { inputs });
  });

  const revisions = async (value: object) => (await names(tenant, { and: [{ revision: { value } }] })).map((n) => n.slice(4));

  it.each([
    [{ eq: '1.Z' }, ['1.Z']],
    [{ neq: '1.Z' }, ['1.A', '1.AA', '10.B', '2.A', '9.C']],
    [{ in: ['2.A', '10.B'] }, ['10.B', '2.A']],
    [{ notIn: ['2.A', '10.B'] }, ['1.A', '1.AA', '1.Z', '9.C']],
    [{ lt: '2.A' }, ['1.A', '1.AA', '1.Z']],
    [{ gt: '1.Z' }, ['1.AA', '10.B', '2.A', '9.C']],
    [{ gt: '9.C' }, ['10.B']],
    [{ gt: '1.A', lt: '9.C' }, ['1.AA', '1.Z', '2.A']],
  ])('revision %j', async (value, expected) => {
    expect(await revisions(value)).toEqual(expected);
  });

  it('refuses a comparison with a value outside the scheme', async () => {
    await expectError(tenant, filterQuery, { input: { and: [{ revision: { value: { lt: 'B' } } }] } }, 'BAD_USER_INPUT');
  });
});
