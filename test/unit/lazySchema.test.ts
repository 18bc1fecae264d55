import { buildASTSchema, introspectionFromSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { describeSchema, introspects } from '../../functions/graphql/descriptions.js';
import { typeDefs } from '../../functions/graphql/generated/typeDefs.js';
import { buildSchema } from '../../functions/graphql/schema.js';

// The GraphQL function builds its schema at cold start from the SDL without descriptions and loads resolvers
// on first use (issue 25, item 4); what a client sees must not change.

describe('the schema built without descriptions', () => {
  it('introspects exactly as the full SDL once its descriptions are set', async () => {
    const lean = buildSchema();
    const full = introspectionFromSchema(buildASTSchema(parse(typeDefs), { assumeValidSDL: true }));
    expect(introspectionFromSchema(lean)).not.toEqual(full);
    await describeSchema(lean);
    expect(introspectionFromSchema(lean)).toEqual(full);
  });

  it('gets them for any document that asks for the schema, fragments included', () => {
    expect(introspects(parse('{ __schema { types { name description } } }'))).toBe(true);
    expect(introspects(parse('{ __type(name: "Component") { description } }'))).toBe(true);
    expect(introspects(parse('query { ...F } fragment F on Query { __schema { queryType { name } } }'))).toBe(true);
    expect(introspects(parse('query { ... on Query { component { ... on ComponentQueryNamespace { __typename } } } }'))).toBe(false);
    expect(introspects(parse('{ user { me { user { id } } } }'))).toBe(false);
  });
});

describe('resolvers loaded on first use', () => {
  it('resolve a field through its module (a plain field then runs the resolver itself)', async () => {
    const schema = buildSchema();
    const field = schema.getType('ApiKey') as import('graphql').GraphQLObjectType;
    const ownerId = field.getFields().ownerId!;
    const lazy = ownerId.resolve!;
    const value = await lazy({ ownerUserId: 'u-1' } as never, {}, {} as never, {} as never);
    expect(value).toBe('u-1');
    expect(ownerId.resolve).not.toBe(lazy);
  });
});
