import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';

/** Any JSON value, passed through as-is; literals in a query are read as their JSON equivalents. */
export const jsonScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => (ast.kind === Kind.NULL ? null : valueFromASTUntyped(ast, variables)),
});
