import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, newTenant, tenantHeaders, type GraphQLResponse, type Tenant } from '../support/api.js';
import { capacityOf, createItems, createParts, type Item } from './itemHelpers.js';

/**
 * Issue 25, item 2: indentedBom and indentedWhereUsed in pages. A 3-level BOM whose indented form has 1,055
 * lines (over the unpaged limit of 1,000): the top uses 5 sub-assemblies, each with the same 10 boards, each
 * board with the same 20 parts. Its smaller copy uses only the first sub-assembly (211 lines), so the big
 * one's indented form is the copy's unpaged form 5 times over, the sub-assembly's id swapped: computed here
 * from the server's unpaged answer, and compared with the big one read in pages.
 */
let tenant: Tenant;
let parts: Item[];
let boards: Item[];
let subs: Item[];
let top: Item;
let copy: Item;

/** Quantities that are not binary fractions, so a product in another order would differ in the last bits. */
const partQuantity = (n: number) => [0.1, 0.3, 3, 1.7, 0.7][n % 5]!;
const boardQuantity = (n: number) => [2, 0.1, 7, 0.3][n % 4]!;
const SUB_QUANTITY = 3;

interface Line {
  level: number;
  path: string[];
  rolledUpQuantity: number;
  hasChildren: boolean;
  cursor: string;
  link: { assemblyId: string; childId: string; quantity: number | null; refDes: string | null };
}

const lineFields = 'level path rolledUpQuantity hasChildren cursor link { assemblyId childId quantity refDes }';
const bomQuery = `query($id: ID!, $depth: Int, $first: Int, $after: String, $asOf: DateTime) { component { findOne(id: $id) {
  indentedBom(depth: $depth, first: $first, after: $after, asOf: $asOf) { ${lineFields} } } } }`;
const whereUsedQuery = `query($id: ID!, $depth: Int, $first: Int, $after: String) { component { findOne(id: $id) {
  indentedWhereUsed(depth: $depth, first: $first, after: $after) { ${lineFields} } } } }`;

type Field = 'indentedBom' | 'indentedWhereUsed';
type Answer = GraphQLResponse<{ component: { findOne: Record<Field, Line[]> } }>;

async function read(field: Field, variables: Record<string, unknown>): Promise<Answer> {
  return graphql(field === 'indentedBom' ? bomQuery : whereUsedQuery, variables, tenantHeaders(tenant, { asUuids: true }));
}

async function lines(field: Field, variables: Record<string, unknown>): Promise<Line[]> {
  const response = await read(field, variables);
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return response.body.data!.component.findOne[field];
}

/** Every page of `first` lines, each with what it cost. */
async function pages(field: Field, variables: Record<string, unknown>, first: number): Promise<{ lines: Line[]; requests: number; readCapacityUnits: number }[]> {
  const read_: { lines: Line[]; requests: number; readCapacityUnits: number }[] = [];
  let after: string | null = null;
  for (;;) {
    const response = await read(field, { ...variables, first, after });
    expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    const page = response.body.data!.component.findOne[field];
    const { requests, readCapacityUnits } = capacityOf(response);
    read_.push({ lines: page, requests, readCapacityUnits });
    expect(page.length).toBeLessThanOrEqual(first);
    if (page.length < first) return read_;
    after = page.at(-1)!.cursor;
    expect(read_.length).toBeLessThan(2_000);
  }
}

/** A line without its cursor (cursors name the walk they belong to) or line ids. */
const row = ({ cursor: _cursor, ...line }: Line) => line;

beforeAll(async () => {
  tenant = await newTenant();
  parts = await createParts(
    tenant,
    Array.from({ length: 20 }, (_, i) => `Paged part ${i}`),
  );
  boards = await createItems(
    tenant,
    Array.from({ length: 10 }, (_, b) => ({
      name: `Paged board ${b}`,
      categoryId: 'pcba',
      children: parts.map((p, n) => ({ childId: p.id, quantity: partQuantity(n + b), refDes: `R${n + 1}` })),
    })),
  );
  subs = await createItems(
    tenant,
    Array.from({ length: 5 }, (_, s) => ({ name: `Paged sub ${s}`, categoryId: 'pcba', children: boards.map((b, n) => ({ childId: b.id, quantity: boardQuantity(n) })) })),
  );
  [top, copy] = (await createItems(tenant, [
    { name: 'Paged top', categoryId: 'top-level-assembly', children: subs.map((s) => ({ childId: s.id, quantity: SUB_QUANTITY, refDes: 'SUB' })) },
    { name: 'Paged copy', categoryId: 'top-level-assembly', children: [{ childId: subs[0]!.id, quantity: SUB_QUANTITY, refDes: 'SUB' }] },
  ])) as [Item, Item];
}, 120_000);

describe('indentedBom in pages', () => {
  it('a 1,055-line BOM read in pages is the unpaged form of its smaller copy, 5 times over; unpaged it stays BOM_TOO_LARGE', async () => {
    const small = await lines('indentedBom', { id: copy.id });
    expect(small).toHaveLength(1 + 10 * 21);
    const swap = (id: string, s: number) => (id === copy.id ? top.id : id === subs[0]!.id ? subs[s]!.id : id);
    const expected = subs.flatMap((_, s) =>
      small.map((line) => ({ ...row(line), path: line.path.map((id) => swap(id, s)), link: { ...line.link, assemblyId: swap(line.link.assemblyId, s), childId: swap(line.link.childId, s) } })),
    );
    expect(expected).toHaveLength(1_055);
    // The rolled-up quantity of a part: sub x board x part, multiplied from the top.
    expect(expected[2]).toMatchObject({ level: 3, rolledUpQuantity: SUB_QUANTITY * boardQuantity(0) * partQuantity(0) });

    const refused = await read('indentedBom', { id: top.id });
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'BOM_TOO_LARGE', limit: 1000 });

    for (const first of [97, 1_000]) {
      const read_ = await pages('indentedBom', { id: top.id }, first);
      expect(read_).toHaveLength(Math.ceil(1_055 / first) + (1_055 % first === 0 ? 1 : 0));
      expect(read_.flatMap((page) => page.lines).map(row)).toEqual(expected);
      // Each page reads the page and the levels its cursor crosses, not the walk before it: the last page
      // costs no more than the first (a walk from the top would read every BOM before it again).
      const [firstPage, ...later] = read_;
      for (const page of later.slice(0, -1)) {
        expect(page.requests).toBeLessThanOrEqual(firstPage!.requests + 1);
        expect(page.readCapacityUnits).toBeLessThanOrEqual(firstPage!.readCapacityUnits + 2);
      }
    }
  });

  it('the smaller copy paged is its unpaged form; depth and asOf page too', async () => {
    const small = await lines('indentedBom', { id: copy.id });
    expect((await pages('indentedBom', { id: copy.id }, 13)).flatMap((page) => page.lines).map(row)).toEqual(small.map(row));

    const shallow = await lines('indentedBom', { id: top.id, depth: 2 });
    expect(shallow).toHaveLength(5 + 5 * 10);
    expect((await pages('indentedBom', { id: top.id, depth: 2 }, 8)).flatMap((page) => page.lines).map(row)).toEqual(shallow.map(row));

    const asOf = new Date().toISOString();
    const then = await lines('indentedBom', { id: copy.id, asOf });
    expect(then.map(row)).toEqual(small.map(row));
    expect((await pages('indentedBom', { id: copy.id, asOf }, 40)).flatMap((page) => page.lines).map(row)).toEqual(then.map(row));
  });

  it('refuses a cursor of another walk, component, depth or asOf, and a first out of range, with BAD_USER_INPUT', async () => {
    const [line] = await lines('indentedBom', { id: copy.id, first: 5 }).then((page) => page.slice(2));
    const [used] = await lines('indentedWhereUsed', { id: parts[0]!.id, first: 1 });
    const asOfCursor = (await lines('indentedBom', { id: copy.id, first: 1, asOf: new Date().toISOString() }))[0]!.cursor;
    const refusals: Record<string, unknown>[] = [
      { id: copy.id, first: 5, after: 'not-a-cursor' },
      { id: copy.id, first: 5, after: Buffer.from('["indented","{}"]').toString('base64url') },
      { id: top.id, first: 5, after: line!.cursor },
      { id: copy.id, first: 5, after: line!.cursor, depth: 3 },
      { id: copy.id, first: 5, after: line!.cursor, asOf: new Date().toISOString() },
      { id: copy.id, first: 5, after: asOfCursor },
      { id: copy.id, first: 5, after: used!.cursor },
      { id: copy.id, first: 0 },
      { id: copy.id, first: 1_001 },
    ];
    for (const variables of refusals) {
      const response = await read('indentedBom', variables);
      expect(response.body.errors?.[0]?.extensions?.code, JSON.stringify(variables)).toBe('BAD_USER_INPUT');
    }
    // The right cursor goes on where the line stood.
    const next = await lines('indentedBom', { id: copy.id, first: 2, after: line!.cursor });
    const all = await lines('indentedBom', { id: copy.id });
    expect(next.map(row)).toEqual(all.slice(3, 5).map(row));
  });
});

describe('indentedWhereUsed in pages', () => {
  it('reads up the where-used entries depth first, the same lines paged as unpaged, with rolled-up quantities', async () => {
    const part = parts[0]!;
    const unpaged = await lines('indentedWhereUsed', { id: part.id });
    // The part is on every board; every board on every sub; sub 0 in the top and its copy, the others in the top.
    const byId = (a: Item, b: Item) => (a.id < b.id ? -1 : 1);
    const expected: Omit<Line, 'cursor' | 'hasChildren'>[] = [];
    for (const board of [...boards].sort(byId)) {
      const b = boards.indexOf(board);
      const perBoard = partQuantity(b);
      expected.push({ level: 1, path: [part.id, board.id], rolledUpQuantity: perBoard, link: { assemblyId: board.id, childId: part.id, quantity: perBoard, refDes: 'R1' } });
      for (const sub of [...subs].sort(byId)) {
        const perSub = perBoard * boardQuantity(b);
        expected.push({ level: 2, path: [part.id, board.id, sub.id], rolledUpQuantity: perSub, link: { assemblyId: sub.id, childId: board.id, quantity: boardQuantity(b), refDes: null } });
        for (const assembly of (sub === subs[0] ? [top, copy] : [top]).sort(byId)) {
          expected.push({
            level: 3,
            path: [part.id, board.id, sub.id, assembly.id],
            rolledUpQuantity: perSub * SUB_QUANTITY,
            link: { assemblyId: assembly.id, childId: sub.id, quantity: SUB_QUANTITY, refDes: 'SUB' },
          });
        }
      }
    }
    expect(unpaged.map(({ cursor: _c, hasChildren: _h, ...line }) => line)).toEqual(expected);
    expect(unpaged.map((line) => line.hasChildren)).toEqual(unpaged.map((line) => line.level < 3));
    expect(expected).toHaveLength(10 * (1 + 5 + 6));

    for (const first of [7, 50]) {
      expect((await pages('indentedWhereUsed', { id: part.id }, first)).flatMap((page) => page.lines).map(row)).toEqual(unpaged.map(row));
    }
    const twoLevels = await lines('indentedWhereUsed', { id: part.id, depth: 2 });
    expect(twoLevels.map(row)).toEqual(unpaged.filter((line) => line.level <= 2).map(row));
    expect((await pages('indentedWhereUsed', { id: part.id, depth: 2 }, 9)).flatMap((page) => page.lines).map(row)).toEqual(twoLevels.map(row));
    expect(await lines('indentedWhereUsed', { id: top.id })).toEqual([]);
  });
});
