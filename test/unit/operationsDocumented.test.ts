import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationRules } from '../../functions/graphql/operations.js';

/**
 * The API guide's operation tables (schema/README.md) against operations.ts: every operation is in a
 * table row exactly once, and every operation a row names exists. A row names operations as a GraphQL
 * selection, arguments written as names only: `mutation { changeOrders { create update(id) } }`.
 */
const guide = readFileSync(fileURLToPath(new URL('../../schema/README.md', import.meta.url)), 'utf8');

const operations = [...Object.keys(operationRules.query).map((name) => `query ${name}`), ...Object.keys(operationRules.mutation).map((name) => `mutation ${name}`)];

/** The operations a table's first cells name: a selection stops at an operation (what it selects below is its result). */
function documentedOperations(markdown: string): string[] {
  const names: string[] = [];
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) continue;
    const firstCell = line.split('|')[1] ?? '';
    for (const match of firstCell.matchAll(/`((?:query|mutation) \{[^`]*\})`/g)) {
      const definition = parse(match[1]!.replace(/\([^)]*\)/g, '')).definitions[0] as OperationDefinitionNode;
      const walk = (selectionSet: SelectionSetNode, path: string[]) => {
        for (const selection of selectionSet.selections) {
          if (selection.kind !== 'Field') continue;
          const fieldPath = [...path, selection.name.value];
          const name = `${definition.operation} ${fieldPath.join('.')}`;
          if (selection.selectionSet && !operations.includes(name)) walk(selection.selectionSet, fieldPath);
          else names.push(name);
        }
      };
      walk(definition.selectionSet, []);
    }
  }
  return names;
}

describe('the API guide documents every operation once', () => {
  const documented = documentedOperations(guide);

  it('reads the tables', () => {
    expect(documented.length).toBeGreaterThan(100);
  });

  it('lists every operation of operations.ts', () => {
    expect(operations.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it('names no operation that does not exist', () => {
    expect(documented.filter((name) => !operations.includes(name))).toEqual([]);
  });

  it('lists each operation in one row only', () => {
    expect(documented.filter((name, index) => documented.indexOf(name) !== index)).toEqual([]);
  });
});
