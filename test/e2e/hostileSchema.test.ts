import fc from 'fast-check';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeDefs } from '../../functions/graphql/generated/typeDefs.js';
import { operationRules } from '../../functions/graphql/operations.js';
import { gqlOk, graphql, newTenant, stack, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { libraryPartition, partitionItems } from './componentHelpers.js';

/**
 * The standing hostile client, generated from the schema: every operation of operations.ts is called with
 * input drawn from its own argument types (mostly plausible, sometimes hostile), by a tenant of its own.
 * Whatever it sends: no 5xx, no INTERNAL_SERVER_ERROR, a refused mutation writes nothing, and after each
 * operation's run another organization (the bystander) still answers the same thing at the same cost.
 */
const schema = buildSchema(typeDefs);

interface Operation {
  kind: 'query' | 'mutation';
  path: string[];
  field: GraphQLField<unknown, unknown>;
}

function operation(kind: 'query' | 'mutation', name: string): Operation {
  const path = name.split('.');
  let type: GraphQLObjectType = kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  let field: GraphQLField<unknown, unknown> | undefined;
  for (const [index, segment] of path.entries()) {
    field = type.getFields()[segment];
    if (!field) throw new Error(`${kind} ${name}: no field ${segment} on ${type.name}`);
    const named = getNamedType(field.type);
    if (index < path.length - 1) {
      if (!isObjectType(named)) throw new Error(`${kind} ${name}: ${segment} is not a namespace`);
      type = named;
    }
  }
  return { kind, path, field: field! };
}

const operations: Operation[] = [...Object.keys(operationRules.query).map((name) => operation('query', name)), ...Object.keys(operationRules.mutation).map((name) => operation('mutation', name))];

/** Calls that end the caller's own standing: they would leave the rest of a run answering 401. */
const selfEnding = new Set(['organization.delete', 'organization.leave', 'user.delete', 'apiKey.revoke', 'apiKey.rotate']);

interface Known {
  ids: string[];
  slugs: string[];
  emails: string[];
}

const hostileString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '__proto__', 'constructor', 'toString', '%a%a%a%a%a%a%a%a%b', '*a*a*a*a*a*a*b', '=cmd|/C calc!A0', '\u0000', '../../etc/passwd', 'x'.repeat(5000), '{"$ne":null}'),
);
const hostileNumber = fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31)));
const hostileFloat = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1e308, -1e308, 5e-324, -0, 0.1));

function scalarArbitrary(name: string, known: Known): fc.Arbitrary<unknown> {
  switch (name) {
    case 'ID':
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known.ids) }, fc.constant(''), fc.uuid(), hostileString);
    case 'String':
      return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...known.slugs, ...known.emails, 'Name') }, hostileString);
    case 'Int':
      return fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 0, max: 20 }) }, hostileNumber);
    case 'Float':
      return fc.oneof({ weight: 2, arbitrary: fc.double({ min: 0, max: 100, noNaN: true }) }, hostileFloat);
    case 'Boolean':
      return fc.boolean();
    case 'DateTime':
      return fc.oneof(
        fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
        hostileString,
      );
    default:
      // JSON and any other custom scalar: anything JSON can carry.
      return fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileString, fc.constant({ __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } }));
  }
}

function inputArbitrary(type: GraphQLInputType, known: Known, depth: number): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return inputArbitrary(type.ofType, known, depth);
  if (isListType(type)) return fc.array(inputArbitrary(type.ofType, known, depth + 1), { maxLength: depth > 2 ? 1 : 3 });
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((value) => value.name));
  if (isInputObjectType(type)) {
    if (depth > 4) return fc.constant({});
    const fields = Object.values(type.getFields());
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const field of fields) {
      record[field.name] = inputArbitrary(field.type, known, depth + 1);
      if (isNonNullType(field.type)) required.push(field.name);
    }
    return fc.record(record, { requiredKeys: required });
  }
  return scalarArbitrary(type.name, known);
}

function argumentsArbitrary(args: readonly GraphQLArgument[], known: Known): fc.Arbitrary<Record<string, unknown>> {
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const arg of args) {
    record[arg.name] = inputArbitrary(arg.type, known, 0);
    if (isNonNullType(arg.type)) required.push(arg.name);
  }
  return fc.record(record, { requiredKeys: required });
}

/** `mutation($a: T!) { ns { op(a: $a) { __typename } } }`: the arguments as variables, the least selection. */
function document(op: Operation): string {
  const args = op.field.args;
  const declared = args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
  const passed = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = isLeafType(getNamedType(op.field.type)) ? '' : ' { __typename }';
  let body = `${op.path.at(-1)}${passed ? `(${passed})` : ''}${selection}`;
  for (const segment of op.path.slice(0, -1).reverse()) body = `${segment} { ${body} }`;
  return `${op.kind}${declared ? `(${declared})` : ''} { ${body} }`;
}

const organizationItems = async (tenant: Tenant) => {
  const page = await testStore().ddb.send(
    new QueryCommand({ TableName: testStore().tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ORG#${tenant.organization.id}` }, ConsistentRead: true }),
  );
  return page.Items ?? [];
};
const snapshot = async (tenant: Tenant) => JSON.stringify([await partitionItems(libraryPartition(tenant), ['']), await organizationItems(tenant)]);

async function seededTenant(): Promise<{ tenant: Tenant; known: Known }> {
  const tenant = await newTenant();
  const created = await gqlOk<{ item: { create: { id: string }[] } }>(tenant, 'mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id } } }', {
    inputs: [
      { name: 'Part', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 1 }] },
      { name: 'Board', categoryId: 'pcba' },
    ],
  });
  const ids = [...created.item.create.map((c) => c.id), tenant.library.id, tenant.organization.id, tenant.user.id];
  return { tenant, known: { ids, slugs: [tenant.organization.slug, tenant.library.slug, 'resistor', 'pcba', 'EDITOR'], emails: [tenant.user.email] } };
}

const bystanderQuery = '{ component { findOne(id: $id) { id name version } } }'.replace('{ component', 'query($id: ID!) { component');
let bystander: Tenant;
let bystanderPartId: string;
let bystanderBaseline: { body: string; requests: number };

async function bystanderAnswer() {
  const response = await graphql(bystanderQuery, { id: bystanderPartId }, tenantHeaders(bystander));
  const cost = JSON.parse(response.headers.get('x-plm-consumed-capacity') ?? '{"requests":-1}') as { requests: number };
  return { status: response.status, body: JSON.stringify(response.body), requests: cost.requests };
}

let healthy = true;
let watching = true;
let healthWatch: Promise<void>;

beforeAll(async () => {
  ({ tenant: bystander } = await seededTenant());
  bystanderPartId = (
    await gqlOk<{ item: { create: { id: string }[] } }>(bystander, 'mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id } } }', {
      inputs: [{ name: 'Bystander', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 10 }] }],
    })
  ).item.create[0]!.id;
  const first = await bystanderAnswer();
  expect(first.status).toBe(200);
  bystanderBaseline = { body: first.body, requests: first.requests };
  healthWatch = (async () => {
    while (watching) {
      const status = await fetch(`${stack.baseUrl}/health`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) healthy = false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
});

afterAll(async () => {
  watching = false;
  await healthWatch;
});

describe('generated hostile input at every operation of the schema', () => {
  it('finds every operation of operations.ts in the schema', () => {
    expect(operations.length).toBeGreaterThan(100);
    expect(operations.some((op) => op.path.join('.') === 'item.update')).toBe(true);
  });

  for (const op of operations) {
    const name = op.path.join('.');
    it(`${op.kind} ${name}: no 5xx, no INTERNAL_SERVER_ERROR, a refusal writes nothing, the bystander unchanged`, { timeout: 120_000 }, async () => {
      const { tenant, known } = await seededTenant();
      const query = document(op);
      const runs = selfEnding.has(name) ? 3 : op.kind === 'mutation' ? 6 : 3;
      await fc.assert(
        fc.asyncProperty(argumentsArbitrary(op.field.args, known), async (variables) => {
          const before = op.kind === 'mutation' ? await snapshot(tenant) : '';
          const response = await graphql(query, variables, tenantHeaders(tenant));
          const sent = JSON.stringify(variables).slice(0, 500);
          expect(response.status, `${name} ${sent} → ${JSON.stringify(response.body).slice(0, 500)}`).toBeLessThan(500);
          const codes = (response.body.errors ?? []).map((error) => error.extensions?.code);
          expect(codes, `${name} ${sent}`).not.toContain('INTERNAL_SERVER_ERROR');
          expect(
            codes.every((code) => typeof code === 'string'),
            `${name}: every error carries a code: ${JSON.stringify(response.body.errors)}`,
          ).toBe(true);
          if (op.kind === 'mutation' && codes.length > 0) expect(await snapshot(tenant), `${name} refused (${codes.join(', ')}) but wrote: ${sent}`).toEqual(before);
        }),
        { numRuns: runs, seed: 20261124 },
      );
      const after = await bystanderAnswer();
      expect(after.status).toBe(200);
      expect(after.body).toBe(bystanderBaseline.body);
      expect(after.requests).toBe(bystanderBaseline.requests);
      expect(healthy, '/health answered other than 200 during the run').toBe(true);
    });
  }
});

describe('JSON values a client sends', () => {
  it('a prototype key at any depth is BAD_USER_INPUT, before any resolver (the SDK would read the value as a class instance)', async () => {
    const { tenant } = await seededTenant();
    for (const value of [{ constructor: { prototype: { polluted: true } } }, JSON.parse('{"a":[{"b":{"__proto__":1}}]}'), { Prototype: 1 }]) {
      const response = await graphql(
        'mutation($input: CreateChangeRequestInput!) { changeRequests { create(input: $input) { id } } }',
        { input: { title: 'JSON', values: value } },
        tenantHeaders(tenant),
      );
      expect(response.status).toBeLessThan(500);
      expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    }
  });
});
