import { describe, expect, it } from 'vitest';
import { buildSchema, listOperations } from '../../functions/graphql/schema.js';
import { operationRules } from '../../functions/graphql/operations.js';
import { isPermissionName } from '../../lib/access/permissions.js';

describe('operation access rules', () => {
  const schema = buildSchema();
  const operations = listOperations(schema);

  it('finds namespaced operations by path', () => {
    const paths = operations.map((op) => `${op.operation} ${op.path}`);
    expect(paths).toEqual(expect.arrayContaining(['query user.me', 'query libraries', 'mutation library.create', 'mutation apiKey.rotate']));
  });

  it.each(operations.map((op) => [`${op.operation} ${op.path}`, op] as const))('%s has an access rule naming a real permission', (_name, op) => {
    const rule = operationRules[op.operation][op.path];
    expect(rule).toBeDefined();
    if (rule!.permission !== null) expect(isPermissionName(rule!.permission)).toBe(true);
  });

  it('refuses to build a schema with an operation that has no rule', () => {
    const { libraries: _removed, ...query } = operationRules.query;
    expect(() => buildSchema({ query, mutation: operationRules.mutation })).toThrow(/without an access rule.*query libraries/);
  });

  it('refuses to build a schema with a rule for an operation that does not exist', () => {
    expect(() => buildSchema({ query: { ...operationRules.query, 'user.ghost': { scope: 'user', permission: null } }, mutation: operationRules.mutation })).toThrow(
      /operations the schema does not have: query user.ghost/,
    );
  });
});
