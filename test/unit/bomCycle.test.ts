import { describe, expect, it } from 'vitest';
import { findBomCycle } from '../../lib/items/bomRules.js';

/** The BOM cycle check on plain data: the stored BOMs are a map, the loader counts what it is asked for. */
function loaderOf(stored: Record<string, string[]>) {
  const asked: string[][] = [];
  const load = async (ids: string[]) => {
    asked.push([...ids]);
    return new Map(ids.filter((id) => stored[id]).map((id) => [id, stored[id]!]));
  };
  return { load, asked };
}

describe('findBomCycle', () => {
  it('finds no cycle in a tree and reads each stored BOM once per level', async () => {
    const { load, asked } = loaderOf({ B: ['C', 'D'], C: ['D'], D: [] });
    expect(await findBomCycle(new Map([['A', ['B', 'C']]]), load)).toBeNull();
    expect(asked.flat().sort()).toEqual(['B', 'C', 'D']);
  });

  it('finds a self cycle', async () => {
    expect(await findBomCycle(new Map([['A', ['A']]]), loaderOf({}).load)).toEqual(['A', 'A']);
  });

  it('finds a cycle through stored BOMs at any depth, and names its path', async () => {
    const { load } = loaderOf({ B: ['C'], C: ['D'], D: ['A'] });
    expect(await findBomCycle(new Map([['A', ['B']]]), load)).toEqual(['A', 'B', 'C', 'D', 'A']);
  });

  it('finds a cycle made by two BOMs changed in the same call', async () => {
    expect(
      await findBomCycle(
        new Map([
          ['A', ['B']],
          ['B', ['A']],
        ]),
        loaderOf({ B: ['X'] }).load,
      ),
    ).toEqual(['A', 'B', 'A']);
  });

  it('uses the changed BOM, not the stored one, for an assembly the call changes', async () => {
    // Stored, B uses A; the call changes B to stop using it: no cycle.
    expect(
      await findBomCycle(
        new Map([
          ['A', ['B']],
          ['B', []],
        ]),
        loaderOf({ B: ['A'] }).load,
      ),
    ).toBeNull();
  });

  it('follows shared sub-assemblies once (a diamond is not a cycle)', async () => {
    const { load, asked } = loaderOf({ B: ['D'], C: ['D'], D: ['E'], E: [] });
    expect(await findBomCycle(new Map([['A', ['B', 'C']]]), load)).toBeNull();
    expect(asked.flat().filter((id) => id === 'D')).toHaveLength(1);
  });
});
