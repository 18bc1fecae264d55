import { randomUUID } from 'node:crypto';
import { getNamedType, isNonNullType, isObjectType, type GraphQLArgument, type GraphQLInputType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { operationRules } from '../../functions/graphql/operations.js';
import { buildSchema, listOperations } from '../../functions/graphql/schema.js';
import type { PermissionName } from '../../lib/access/permissions.js';
import { systemRoles, type OrganizationRoleName } from '../../lib/access/roles.js';
import { graphql, newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { minimalValue } from '../support/schemaValues.js';
import { memberWithRole, type Member } from './accessHelpers.js';

/**
 * Every operation of the schema, as every system role and as a custom role: allowed (no FORBIDDEN naming
 * the operation's permission) exactly when the role holds the permission of operations.ts, otherwise 403
 * FORBIDDEN with that requiredPermission. Arguments are generated from the schema (required ones only, with
 * ids that name nothing), so calls that are allowed mostly end in NOT_FOUND or BAD_USER_INPUT: what matters
 * here is the permission check, which runs before any resolver.
 */
const schema = buildSchema();
const operations = listOperations(schema);

const dummy = (type: GraphQLInputType) => minimalValue(type, { text: () => `matrix-${randomUUID().slice(0, 8)}`, dateTime: '2030-01-01T00:00:00.000Z' });

function documentFor(operation: 'query' | 'mutation', path: string, args: readonly GraphQLArgument[], returnsObject: boolean) {
  const required = args.filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined);
  const variables = Object.fromEntries(required.map((arg) => [arg.name, dummy(arg.type)]));
  const definitions = required.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const call = required.length ? `(${required.map((arg) => `${arg.name}: $${arg.name}`).join(', ')})` : '';
  const parts = path.split('.');
  let selection = `${parts.at(-1)}${call}${returnsObject ? ' { __typename }' : ''}`;
  for (const part of parts.slice(0, -1).reverse()) selection = `${part} { ${selection} }`;
  return { query: `${operation}${definitions ? ` Matrix(${definitions})` : ''} { ${selection} }`, variables };
}

const cases = operations.map((op) => {
  const field = op.type.getFields()[op.fieldName]!;
  const named = getNamedType(field.type);
  return { ...op, rule: operationRules[op.operation][op.path]!, ...documentFor(op.operation, op.path, field.args, isObjectType(named)) };
});

const customPermissions: PermissionName[] = ['organization.read', 'library.read', 'components.read', 'components.update', 'roles.read', 'organization.users.read'];

describe('role matrix: every operation as every role', () => {
  let tenant: Tenant;
  const callers = new Map<string, { member: Member; permissions: ReadonlySet<PermissionName> }>();

  beforeAll(async () => {
    tenant = await newTenant();
    for (const role of Object.keys(systemRoles) as OrganizationRoleName[]) {
      callers.set(role, { member: await memberWithRole(tenant, role), permissions: systemRoles[role].permissions });
    }
    const created = await ok(tenantHeaders(tenant), 'mutation($input: CreateRoleInput!) { roles { create(input: $input) { id } } }', {
      input: { name: 'Matrix custom', type: 'ORG', permissions: customPermissions },
    });
    callers.set('custom', { member: await memberWithRole(tenant, created.roles.create.id), permissions: new Set(customPermissions) });
  }, 60_000);

  it('covers every operation of the schema', () => {
    expect(cases.length).toBe(operations.length);
    expect(cases.length).toBeGreaterThan(60);
  });

  it.each(cases.map((c) => [`${c.operation} ${c.path}`, c] as const))('%s', async (_name, c) => {
    const results = await Promise.all(
      [...callers].map(async ([role, { member, permissions }]) => {
        const response = await graphql(c.query, c.variables, member.headers);
        const forbidden = response.body.errors?.find((error) => error.extensions?.code === 'FORBIDDEN');
        const allowed = c.rule.permission === null || permissions.has(c.rule.permission);
        return { role, allowed, status: response.status, forbidden, requiredPermission: forbidden?.extensions?.requiredPermission, errors: response.body.errors };
      }),
    );
    for (const result of results) {
      if (result.allowed) {
        // Allowed: never refused for the operation's own permission (other errors, such as NOT_FOUND for the
        // made-up ids, are expected).
        if (c.rule.permission) expect(result.requiredPermission, `${result.role} was refused: ${JSON.stringify(result.errors)}`).not.toBe(c.rule.permission);
        expect(result.status, `${result.role}: ${JSON.stringify(result.errors)}`).not.toBe(500);
        expect(
          result.errors?.some((error) => error.extensions?.code === 'INTERNAL_SERVER_ERROR'),
          `${result.role}: ${JSON.stringify(result.errors)}`,
        ).toBeFalsy();
      } else {
        expect({ role: result.role, status: result.status, code: result.forbidden?.extensions?.code, requiredPermission: result.requiredPermission }).toEqual({
          role: result.role,
          status: 403,
          code: 'FORBIDDEN',
          requiredPermission: c.rule.permission,
        });
      }
    }
  });
});
