import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Floors that only go down: the folders of lib/ and the imports between them (static, dynamic and
 * type-only alike) form no cycle, and resolvers reach the domain without the store.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const importPattern = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

function sources(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(importPattern)].map((match) => normalize(join(dirname(file), match[1]!)));
}

/** The lib/ folder a path belongs to; files directly in lib/ (errors, numbers, input) are the ground floor. */
const folderOf = (path: string) => {
  const parts = relative('lib', path).split('/');
  return parts.length > 1 ? parts[0]! : null;
};

export function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources('lib')) {
    const from = folderOf(file);
    if (!from) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of importsOf(file)) {
      const to = target.startsWith('lib/') ? folderOf(target) : null;
      if (to && to !== from) graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** The file-level import graph of lib/ (paths without their `.js`/`.ts` ending). */
export function fileGraph(): Map<string, Set<string>> {
  const bare = (path: string) => path.replace(/\.(js|ts)$/, '');
  const graph = new Map<string, Set<string>>();
  for (const file of sources('lib')) {
    graph.set(
      bare(file),
      new Set(
        importsOf(file)
          .filter((target) => target.startsWith('lib/'))
          .map(bare),
      ),
    );
  }
  return graph;
}

/** Strongly connected components of more than one folder (Tarjan). */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the floors of lib/', () => {
  it('finds the folders and their imports', () => {
    const graph = folderGraph();
    expect(graph.size).toBeGreaterThan(10);
    expect(graph.get('components')?.has('store')).toBe(true);
  });

  it('detects a cycle when there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('has no cycle between folders', () => {
    const graph = folderGraph();
    const described = cycles(graph).map((component) => component.map((folder) => `${folder} -> ${[...graph.get(folder)!].filter((to) => component.includes(to)).join(', ')}`).join('; '));
    expect(described).toEqual([]);
  });

  it('has no cycle between files either (a lazy import() counts: the loop is there when it loads)', () => {
    expect(cycles(fileGraph())).toEqual([]);
  });

  it('resolvers import domain modules, never the store', () => {
    const offenders = sources('functions/graphql/resolvers').filter((file) => importsOf(file).some((target) => target.startsWith('lib/store/')));
    expect(offenders).toEqual([]);
  });
});
