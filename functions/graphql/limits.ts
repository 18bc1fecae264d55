import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import {
  GraphQLError,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { DynamoDbUse } from '../../lib/errors.js';

/**
 * The request limits of /graphql: every one a documented number (README, "Limits"), refused with its own
 * code and HTTP 400 before anything is executed.
 */
export const requestLimits = {
  /** Bytes of the request body (and of a GET query string). */
  maxBodyBytes: 1_048_576,
  /** Lexical tokens of the document; also what keeps the parser's recursion far from the stack's end. */
  maxTokens: 2_000,
  /** Nesting of fields (introspection excluded). */
  maxDepth: 12,
  /** Aliased fields per document. */
  maxAliases: 30,
  /** Directives per document. */
  maxDirectives: 20,
  /** graphql-armor's cost: every field costs, nesting multiplies it by 1.5 per level. */
  maxCost: 100_000,
  /** Objects the response may hold at most, estimating every list field at its fan-out (below). */
  maxObjects: 10_000,
} as const;

/**
 * The DynamoDB read budget of one query (the credential's read included; writes, such as the search index
 * catching up, are not counted): what the store's meter lets its
 * resolvers use before the next call is refused with 400 QUERY_BUDGET_EXCEEDED (yoga.ts). Relation
 * fields are read in batches (resolvers/shared.ts), so a page of 400 components with their children,
 * child components and where-used costs about 20 requests; the read units bound what one query may read
 * (2,000 RCU: about 4,000 small items, or 8 MB). PLM_QUERY_BUDGET_REQUESTS and PLM_QUERY_BUDGET_RCU change it.
 */
export const defaultQueryBudget: DynamoDbUse = { requests: 100, readCapacityUnits: 2_000 };

export function queryBudgetFromEnv(env: NodeJS.ProcessEnv = process.env): DynamoDbUse {
  const positive = (value: string | undefined, fallback: number) => (value && Number(value) > 0 ? Number(value) : fallback);
  return {
    requests: positive(env.PLM_QUERY_BUDGET_REQUESTS, defaultQueryBudget.requests),
    readCapacityUnits: positive(env.PLM_QUERY_BUDGET_RCU, defaultQueryBudget.readCapacityUnits),
  };
}

/**
 * How many objects a relation field (one that reads other records) may return per parent, for the object
 * estimate: BOM lines per assembly, history pages, connection pages. A literal `first` argument is taken
 * at its value. Lists that are part of their parent's record (labels, attribute values, history changes)
 * read nothing more and count once.
 */
export const fanOut: Record<string, number> = {
  children: 20,
  whereUsed: 20,
  documents: 20,
  indentedBom: 1_000,
  indentedWhereUsed: 1_000,
  history: 50,
  bomHistory: 20,
  getAllPinnedComponents: 100,
  edges: 50,
};

export class RequestLimitError extends GraphQLError {
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message, { extensions: { code, ...details, http: { status: 400 } } });
  }
}

/** graphql-armor reports "Syntax Error: <limit> exceeded, found N."; the limit's own code replaces that. */
function reject(code: string, limit: number) {
  return (_context: ValidationContext | null, error: GraphQLError) => {
    throw new RequestLimitError(code, `${error.message.replace(/^Syntax Error: /, '')} (limit ${limit})`, { limit });
  };
}

const armor = EnvelopArmorPlugin({
  maxTokens: { n: requestLimits.maxTokens, propagateOnRejection: false, onReject: [reject('TOO_MANY_TOKENS', requestLimits.maxTokens)] },
  maxDepth: { n: requestLimits.maxDepth, propagateOnRejection: false, onReject: [reject('QUERY_TOO_DEEP', requestLimits.maxDepth)] },
  maxAliases: { n: requestLimits.maxAliases, propagateOnRejection: false, onReject: [reject('TOO_MANY_ALIASES', requestLimits.maxAliases)] },
  maxDirectives: { n: requestLimits.maxDirectives, propagateOnRejection: false, onReject: [reject('TOO_MANY_DIRECTIVES', requestLimits.maxDirectives)] },
  costLimit: { maxCost: requestLimits.maxCost, propagateOnRejection: false, onReject: [reject('QUERY_TOO_COMPLEX', requestLimits.maxCost)] },
  blockFieldSuggestion: { enabled: true },
});

function listMultiplier(field: FieldNode, type: GraphQLOutputType): number {
  const unwrapped = isNonNullType(type) ? type.ofType : type;
  const relationFanOut = fanOut[field.name.value];
  if (!isListType(unwrapped) || relationFanOut === undefined) return 1;
  const first = field.arguments?.find((argument) => argument.name.value === 'first');
  if (first?.value.kind === Kind.INT) return Math.max(1, Number(first.value.value));
  return relationFanOut;
}

/**
 * Estimates the objects a response may hold: each list field multiplies what is selected under it by
 * its fan-out, so `children { child { children { ... } } }` grows 20x per level and is refused long
 * before it is executed.
 */
export const objectEstimateRule: ValidationRule = (context) => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }

  function estimate(selectionSet: SelectionSetNode, parentTypeName: string, seen: ReadonlySet<string>): number {
    const parent = context.getSchema().getType(parentTypeName);
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(fragment.name.value)) {
          total += estimate(fragment.selectionSet, fragment.typeCondition.name.value, new Set([...seen, fragment.name.value]));
        }
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += estimate(selection.selectionSet, selection.typeCondition?.name.value ?? parentTypeName, seen);
        continue;
      }
      if (!selection.selectionSet || !isObjectType(parent)) continue;
      const field = parent.getFields()[selection.name.value];
      if (!field) continue;
      const multiplier = listMultiplier(selection, field.type);
      total += multiplier * (1 + estimate(selection.selectionSet, getNamedType(field.type).name, seen));
    }
    return total;
  }

  return {
    // On leave, so that the depth limit (checked on enter) names a deep document first.
    OperationDefinition: {
      leave(operation) {
        const root = operation.operation === 'mutation' ? context.getSchema().getMutationType() : context.getSchema().getQueryType();
        if (!root) return;
        const objects = estimate(operation.selectionSet, root.name, new Set());
        if (objects > requestLimits.maxObjects) {
          throw new RequestLimitError(
            'QUERY_TOO_COMPLEX',
            `The response could hold about ${Math.round(objects)} objects; at most ${requestLimits.maxObjects} are allowed. Select fewer nested lists or page them.`,
            { limit: requestLimits.maxObjects },
          );
        }
      },
    },
  } satisfies ASTVisitor;
};

const isLimitError = (error: unknown) => error instanceof RequestLimitError || (error instanceof GraphQLError && error.originalError instanceof RequestLimitError);

/**
 * The limits as one yoga plugin; introspection is refused too when the deployment turns it off. A refused
 * request is HTTP 400 whatever the client accepts: yoga answers document errors to application/json
 * clients with 200, as the GraphQL-over-HTTP spec says for ordinary syntax errors, but a limit is not one.
 */
export function useRequestLimits({ introspection }: { introspection: boolean }): Plugin {
  return {
    onPluginInit: ({ addPlugin }) => addPlugin(armor as Plugin),
    onResultProcess: ({ result, setResultProcessor }) => {
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.some(isLimitError)) return;
      const errors = result.errors.map((error) => {
        const { http: _http, ...extensions } = (error as GraphQLError).extensions ?? {};
        return { message: error.message, extensions };
      });
      setResultProcessor((_result, fetchAPI) => new fetchAPI.Response(JSON.stringify({ errors }), { status: 400, headers: { 'content-type': 'application/json; charset=utf-8' } }), 'application/json');
    },
    onValidate: ({ addValidationRule }) => {
      addValidationRule(objectEstimateRule);
      if (!introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}
