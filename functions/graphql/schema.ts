import {
  buildASTSchema,
  defaultFieldResolver,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  type GraphQLArgument,
  type GraphQLFieldResolver,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLScalarType,
  type GraphQLSchema,
} from 'graphql';
import type { AccessRule } from '../../lib/access/requestAccess.js';
import { InvalidInputError } from '../../lib/errors.js';
import type { GraphQLContext } from './context.js';
import { leanTypeDefs } from './generated/leanTypeDefs.js';
import { operationRules } from './operations.js';
import { resolverFields } from './generated/resolverFields.js';
import { resolverModules, type ResolverModuleName } from './resolvers/modules.js';
import { jsonScalar } from './resolvers/scalars.js';

const isNamespace = (type: GraphQLObjectType) => type.name.endsWith('Namespace');

export interface OperationField {
  operation: 'query' | 'mutation';
  path: string;
  type: GraphQLObjectType;
  fieldName: string;
}

/** Every operation of the schema: root fields and fields of namespace types, as dotted paths. */
export function listOperations(schema: GraphQLSchema): OperationField[] {
  const found: OperationField[] = [];
  const walk = (operation: 'query' | 'mutation', type: GraphQLObjectType, prefix: string) => {
    for (const field of Object.values(type.getFields())) {
      const path = prefix ? `${prefix}.${field.name}` : field.name;
      const target = getNamedType(field.type);
      if (isObjectType(target) && isNamespace(target)) walk(operation, target, path);
      else found.push({ operation, path, type, fieldName: field.name });
    }
  };
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  if (query) walk('query', query, '');
  if (mutation) walk('mutation', mutation, '');
  return found;
}

type Resolve = GraphQLFieldResolver<unknown, GraphQLContext>;

/** Each resolver module's import, started once (by the first field of it a request resolves). */
const loading = new Map<ResolverModuleName, Promise<Record<string, Record<string, Resolve>>>>();
function loadModule(name: ResolverModuleName) {
  let pending = loading.get(name);
  if (!pending) {
    pending = resolverModules[name]() as Promise<never>;
    loading.set(name, pending);
  }
  return pending;
}

/**
 * A field's resolver that imports its module on the first call (resolverFields.ts says which), then calls it;
 * `settle` receives the real resolver once loaded, so that a plain field then runs it directly.
 */
function lazyResolver(typeName: string, fieldName: string, module: ResolverModuleName, settle?: (resolve: Resolve) => void): Resolve {
  let loaded: Resolve | undefined;
  return (parent, args, context, info) => {
    if (loaded) return loaded(parent, args, context, info);
    return loadModule(module).then((resolvers) => {
      loaded = resolvers[typeName]?.[fieldName];
      if (!loaded) throw new Error(`resolverFields.ts names the ${module} module for ${typeName}.${fieldName}, which it does not resolve: run npm run codegen`);
      settle?.(loaded);
      return loaded(parent, args, context, info);
    });
  };
}

/**
 * Builds the executable schema. Namespace fields resolve to an empty object; every operation field is
 * wrapped so that its access rule is checked before its resolver runs. Resolvers load on first use: each
 * field named in resolverFields.ts gets a resolver that imports its module (and the domain code behind it)
 * the first time a request resolves it, so a cold start loads none of them.
 */
export function buildSchema(rules: typeof operationRules = operationRules): GraphQLSchema {
  // leanTypeDefs is the SDL that `npm run codegen` merged and validated (schema/codegen.ts), without its
  // descriptions (they are set when a request first introspects: descriptions.ts), so it is built as one
  // document without merging or validating it again, and the one custom scalar is set on that fresh schema in place.
  const schema = buildASTSchema(parse(leanTypeDefs, { noLocation: true }), { assumeValidSDL: true });
  const json = schema.getType('JSON') as GraphQLScalarType;
  Object.assign(json, { serialize: jsonScalar.serialize, parseValue: jsonScalar.parseValue, parseLiteral: jsonScalar.parseLiteral });
  for (const [typeName, modules] of Object.entries(resolverFields)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`resolverFields.ts names ${typeName}, not an object type of the schema: run npm run codegen`);
    for (const [module, fieldNames] of Object.entries(modules) as [ResolverModuleName, string][]) {
      for (const fieldName of fieldNames.split(' ')) {
        const field = type.getFields()[fieldName];
        if (!field) throw new Error(`resolverFields.ts names ${typeName}.${fieldName}, not a field of the schema: run npm run codegen`);
        const lazy: Resolve = lazyResolver(typeName, fieldName, module, (resolve) => {
          // A plain field runs its resolver directly from then on; an operation stays wrapped (below).
          if (field.resolve === lazy) field.resolve = resolve as never;
        });
        field.resolve = lazy as never;
      }
    }
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const target = getNamedType(field.type);
      if (isObjectType(target) && isNamespace(target)) field.resolve = () => ({});
    }
  }
  const operations = listOperations(schema);
  const missing = operations.filter((op) => !rules[op.operation][op.path]).map((op) => `${op.operation} ${op.path}`);
  if (missing.length > 0) throw new Error(`Operations without an access rule in operations.ts: ${missing.join(', ')}`);
  const known = new Set(operations.map((op) => `${op.operation} ${op.path}`));
  const extra = (['query', 'mutation'] as const).flatMap((kind) => Object.keys(rules[kind]).map((path) => `${kind} ${path}`)).filter((key) => !known.has(key));
  if (extra.length > 0) throw new Error(`Access rules for operations the schema does not have: ${extra.join(', ')}`);
  for (const op of operations) {
    const field = op.type.getFields()[op.fieldName]!;
    field.resolve = guarded(rules[op.operation][op.path]!, field.args, field.resolve ?? defaultFieldResolver, op.operation === 'mutation' ? op.path : undefined);
  }
  return schema;
}

/** Ids are UUIDs or `<uuid>:<version>`; anything much longer is refused before it can become a key. */
export const maxIdLength = 128;

/** The first ID value (at any depth of the arguments) longer than maxIdLength, refused naming its path. */
function checkIdLengths(type: GraphQLInputType, value: unknown, path: string): void {
  if (value === null || value === undefined) return;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (Array.isArray(value)) value.forEach((item, index) => checkIdLengths(inner.ofType, item, `${path}[${index}]`));
    return;
  }
  if (isInputObjectType(inner)) {
    for (const field of Object.values(inner.getFields())) checkIdLengths(field.type, (value as Record<string, unknown>)[field.name], `${path}.${field.name}`);
    return;
  }
  if (inner.name === 'ID' && typeof value === 'string' && value.length > maxIdLength) {
    throw new InvalidInputError(`${path} is not an id: ids are at most ${maxIdLength} characters (got ${value.length})`, { field: path });
  }
}

let auditModule: Promise<typeof import('./audit.js')> | undefined;

/** Checks ids and the access rule before the resolver; a mutation (`auditPath`) also records its audit entry, refusals included. */
function guarded<R extends (...args: never[]) => unknown>(rule: AccessRule, fieldArgs: readonly GraphQLArgument[], resolve: R, auditPath?: string): R {
  const wrapped = async (parent: unknown, args: Record<string, unknown>, context: GraphQLContext, info: unknown) => {
    const checkIds = () => {
      for (const arg of fieldArgs) checkIdLengths(arg.type, args[arg.name], arg.name);
    };
    const run = async () => (resolve as unknown as (...a: unknown[]) => unknown)(parent, args, context, info);
    if (auditPath) {
      // The audit code (and the store's audit writes) load with the first mutation.
      const { auditedMutation } = await (auditModule ??= import('./audit.js'));
      return auditedMutation(auditPath, rule, fieldArgs, args, context, async () => {
        checkIds();
        return run();
      });
    }
    checkIds();
    await context.access.authorize(rule);
    return run();
  };
  return wrapped as unknown as R;
}
