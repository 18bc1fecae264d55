import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';
import { unsafeJsonProblem } from '../../../lib/input.js';

/** A JSON value a client sent: refused (BAD_USER_INPUT) with a prototype key at any depth, or nested past 32 levels. */
function checkedJson(value: unknown): unknown {
  const problem = unsafeJsonProblem(value);
  if (problem && 'tooDeep' in problem) throw new GraphQLError(`A JSON value nests deeper than ${problem.tooDeep} levels`, { extensions: { code: 'BAD_USER_INPUT' } });
  if (problem) throw new GraphQLError(`"${problem.key}" cannot be a key of a JSON value`, { extensions: { code: 'BAD_USER_INPUT' } });
  return value;
}

/** Any JSON value, passed through as-is; literals in a query are read as their JSON equivalents. */
export const jsonScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: checkedJson,
  parseLiteral: (ast, variables) => (ast.kind === Kind.NULL ? null : checkedJson(valueFromASTUntyped(ast, variables))),
});
