import { getOperationAST, Kind, parse, valueFromASTUntyped, type SelectionNode } from 'graphql';
import type { PresentedRequest } from '../../lib/access/requestContext.js';
import { isUuid } from '../../lib/model/slugs.js';

/**
 * Read-ahead: the items an operation will read that can ride in the request context's own BatchGetItem,
 * so that the commonest integration read, `component { findOne(id) }` with an API key, is one DynamoDB
 * round trip instead of two (issue 25, item 4).
 *
 * It is an optimization only, never a different answer: the resolver takes a read-ahead item only once the
 * request's library access holds (RequestAccess.readAhead) and reads as usual whatever was not read ahead.
 * So this looks at small documents only, and only at what it recognizes: root fields `component { findOne }`
 * of the operation that runs, whose `id` is a UUID (literal or variable) and that ask no `asOf`. A document
 * it cannot parse is left to yoga, which answers it as before.
 */

/** Documents longer than this are not looked at (a findOne is a few hundred characters). */
const maxDocumentLength = 2_000;
const maxTokens = 400;

interface GraphQLParams {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/**
 * The request's GraphQL parameters (POST JSON body or GET query string), without consuming the request's
 * body: from the body as the runtime handed it over (`rawBody`, the API Gateway event's), else a clone.
 */
async function paramsOf(request: Request, rawBody: string | undefined): Promise<GraphQLParams | undefined> {
  if (request.method === 'GET') {
    const search = new URL(request.url).searchParams;
    const variables = search.get('variables');
    try {
      return { query: search.get('query'), variables: variables ? JSON.parse(variables) : undefined, operationName: search.get('operationName') };
    } catch {
      return undefined;
    }
  }
  if (request.method !== 'POST') return undefined;
  try {
    // The body is bounded by the request limits before this runs (useCredentialFirst).
    const text = rawBody ?? (await request.clone().text());
    if (text.length > maxDocumentLength * 2) return undefined;
    const body: unknown = JSON.parse(text);
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as GraphQLParams) : undefined;
  } catch {
    return undefined;
  }
}

/** Where each root `component { findOne(id) }` of one operation takes its id: an argument's AST value. */
type IdSources = ReturnType<typeof idSources>;

/**
 * Parsed documents, by text and operation name: an integration sends the same few documents again and
 * again (their ids in variables), so each is parsed once. Bounded: the oldest is dropped first.
 */
const parsed = new Map<string, IdSources>();
const parsedLimit = 100;

function idSources(query: string, operationName: string | undefined) {
  let operation: ReturnType<typeof getOperationAST>;
  try {
    operation = getOperationAST(parse(query, { maxTokens, noLocation: true }), operationName);
  } catch {
    return [];
  }
  if (operation?.operation !== 'query') return [];
  const fields = (selections: readonly SelectionNode[], name: string) => selections.flatMap((s) => (s.kind === Kind.FIELD && s.name.value === name && !s.directives?.length ? [s] : []));
  return fields(operation.selectionSet.selections, 'component').flatMap((namespace) =>
    fields(namespace.selectionSet?.selections ?? [], 'findOne').flatMap((findOne) => {
      if (findOne.arguments?.some((argument) => argument.name.value !== 'id')) return [];
      const idArgument = findOne.arguments?.find((argument) => argument.name.value === 'id');
      return idArgument ? [idArgument.value] : [];
    }),
  );
}

/** The component ids the operation's root `component { findOne(id) }` fields will read. */
export function findOneIds(query: string, variables: Record<string, unknown>, operationName: string | undefined): string[] {
  if (query.length > maxDocumentLength) return [];
  // JSON keeps an empty operation name apart from none, and a name from text that happens to contain a separator.
  const key = JSON.stringify([operationName ?? null, query]);
  let sources = parsed.get(key);
  if (!sources) {
    sources = idSources(query, operationName);
    if (parsed.size >= parsedLimit) parsed.delete(parsed.keys().next().value!);
    parsed.set(key, sources);
  }
  return sources.flatMap((value) => {
    const id = valueFromASTUntyped(value, variables);
    return typeof id === 'string' && isUuid(id) ? [id] : [];
  });
}

/**
 * Loaded on first use, as the component resolvers are (functions/graphql/resolvers/modules.ts), and the
 * import started once: an `import()` per request costs a module resolution each time (under a loader's
 * hooks, a round trip to its thread).
 */
let componentQueries: Promise<typeof import('../../lib/components/queries.js')> | undefined;
const loadComponentQueries = () => (componentQueries ??= import('../../lib/components/queries.js'));

/** What the request's context read should bring ahead for its operation, or undefined when nothing. */
export async function readAheadOf(request: Request, rawBody?: string): Promise<PresentedRequest['readAhead']> {
  const params = await paramsOf(request, rawBody);
  if (typeof params?.query !== 'string') return undefined;
  const variables = params.variables && typeof params.variables === 'object' && !Array.isArray(params.variables) ? (params.variables as Record<string, unknown>) : {};
  const ids = findOneIds(params.query, variables, typeof params.operationName === 'string' ? params.operationName : undefined);
  if (ids.length === 0) return undefined;
  const { componentReadAheadKey } = await loadComponentQueries();
  return (library) => ids.map((id) => componentReadAheadKey(library, id));
}
