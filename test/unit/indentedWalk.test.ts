import { describe, expect, it } from 'vitest';
import { walkIndented, type IndentedBomEntry, type WalkNode, type WalkSource } from '../../lib/items/indentedWalk.js';
import type { BomLine } from '../../lib/store/bom.js';

/**
 * The walker of indentedBom and indentedWhereUsed over an in-memory tree of distinct components (no
 * sharing, so every node a page reads is one it had to): pages concatenate to the whole walk, and a page
 * reads about its own lines and the levels its cursor crosses, wherever it stands in the walk.
 */
function line(childId: string, quantity: number | null, n: number): BomLine {
  return {
    lineId: `${childId}-line`,
    childId,
    quantity,
    refDes: null,
    itemNumber: String(n),
    notes: null,
    childHistoryId: null,
    substitutes: [],
    createdByIntegrationId: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    createdBy: 'u',
  };
}

/** A tree of `widths[level]` children per node, each a distinct component; quantities that are not binary fractions. */
function tree(widths: number[]): { boms: Map<string, BomLine[]>; lines: number } {
  const boms = new Map<string, BomLine[]>();
  let count = 0;
  const build = (id: string, level: number) => {
    if (level === widths.length) return;
    const children = Array.from({ length: widths[level]! }, (_, n) => line(`${id}.${n}`, [0.1, 3, null, 0.7, 1.3][(n + level) % 5]!, n));
    boms.set(id, children);
    count += children.length;
    for (const child of children) build(child.childId, level + 1);
  };
  build('top', 0);
  return { boms, lines: count };
}

function source(boms: Map<string, BomLine[]>) {
  const reads = { rounds: 0, nodes: 0 };
  const walk: WalkSource = {
    kind: 'bom',
    context: '',
    async load(ids) {
      reads.rounds += 1;
      reads.nodes += ids.length;
      return new Map(ids.map((id): [string, WalkNode] => [id, { lines: (boms.get(id) ?? []).map((l) => ({ link: { assemblyId: id, line: l }, toKey: l.childId, toId: l.childId })) }]));
    },
  };
  return { walk, reads };
}

const row = ({ cursor: _cursor, ...entry }: IndentedBomEntry) => entry;

describe('the indented walk in pages', () => {
  // 10 x 10 x 10 x 20: 21,110 lines over 4 levels, every component distinct.
  const { boms, lines } = tree([10, 10, 10, 20]);

  it('pages of any size concatenate to the whole walk, rolled-up quantities to the last bit', async () => {
    const whole = await walkIndented(source(boms).walk, 'top', 'top', 10, Number.POSITIVE_INFINITY, null, Number.POSITIVE_INFINITY);
    expect(whole).toHaveLength(lines);
    expect(lines).toBe(21_110);
    // The rolled-up quantity is the product from the top, in that order.
    const deepest = whole.find((entry) => entry.level === 4)!;
    const quantities = deepest.path.slice(1).map((id, k) => boms.get(deepest.path[k]!)!.find((l) => l.childId === id)!.quantity ?? 1);
    expect(deepest.rolledUpQuantity).toBe(quantities.reduce((product, q) => product * q, 1));
    for (const first of [1_000, 333]) {
      const paged: IndentedBomEntry[] = [];
      let after: string | null = null;
      for (;;) {
        const page = await walkIndented(source(boms).walk, 'top', 'top', 10, first, after, 100);
        paged.push(...page);
        if (page.length < first) break;
        after = page.at(-1)!.cursor;
      }
      expect(paged.map(row)).toEqual(whole.map(row));
    }
  });

  it('a page reads its own lines and the levels its cursor crosses, not the walk before it', async () => {
    const first = 500;
    let after: string | null = null;
    let pages = 0;
    let worst = { rounds: 0, nodes: 0 };
    for (;;) {
      const { walk, reads } = source(boms);
      const page = await walkIndented(walk, 'top', 'top', 10, first, after, 100);
      pages += 1;
      if (page.length === first) {
        // The nodes of the page's lines, the path of its cursor (4 levels + the top), and the lookahead the
        // page turned out not to need (an unread node counts as one line until read: here at most two
        // rounds' worth). Measured: 514 to 683 nodes in 7 to 9 rounds; a walk from the top would read
        // every node before the page again (thousands by the 10th page).
        expect(reads.nodes).toBeLessThanOrEqual(first + 5 + 2 * 100);
        expect(reads.rounds).toBeLessThanOrEqual(Math.ceil(first / 100) + 4 + 1);
      }
      if (reads.nodes > worst.nodes) worst = { ...reads };
      if (page.length < first) break;
      after = page.at(-1)!.cursor;
    }
    expect(pages).toBe(Math.ceil(lines / first));
    expect(worst.nodes).toBeLessThan(first * 2);
  });

  it('goes on after a line whose BOM changed between pages: by id when it moved, with the line at its place when it went', async () => {
    const small = tree([3, 3]).boms;
    const first = await walkIndented(source(small).walk, 'top', 'top', 10, 2, null, 100);
    // The second line is top.0.0, under top.0; a line is added before it, then it is removed.
    const cursor = first[1]!.cursor;
    const moved = new Map(small);
    moved.set('top.0', [line('new', 1, 9), ...small.get('top.0')!]);
    const afterMove = await walkIndented(source(moved).walk, 'top', 'top', 10, 2, cursor, 100);
    expect(afterMove.map((entry) => entry.path.at(-1))).toEqual(['top.0.1', 'top.0.2']);
    const gone = new Map(small);
    gone.set(
      'top.0',
      small.get('top.0')!.filter((l) => l.childId !== 'top.0.0'),
    );
    const afterRemoval = await walkIndented(source(gone).walk, 'top', 'top', 10, 2, cursor, 100);
    expect(afterRemoval.map((entry) => entry.path.at(-1))).toEqual(['top.0.1', 'top.0.2']);
  });
});
