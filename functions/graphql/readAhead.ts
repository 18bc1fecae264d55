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

/** The request's GraphQL parameters (POST JSON body or GET query string), without consuming the request's body. */
async function paramsOf(request: Request): Promise<GraphQLParams | undefined> {
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
    const text = await request.clone().text();
    if (text.length > maxDocumentLength * 2) return undefined;
    const body: unknown = JSON.parse(text);
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as GraphQLParams) : undefined;
  } catch {
    return undefined;
  }
}

/** The component ids the operation's root `component { findOne(id) }` fields will read. */
export function findOneIds(query: string, variables: Record<string, unknown>, operationName: string | undefined): string[] {
  if (query.length > maxDocumentLength) return [];
  let operation: ReturnType<typeof getOperationAST>;
  try {
    operation = getOperationAST(parse(query, { maxTokens, noLocation: true }), operationName);
  } catch {
    return [];
  }
  if (operation?.operation !== 'query') return [];
  const fields = (selections: readonly SelectionNode[], name: string) => selections.flatMap((s) => (s.kind === Kind.FIELD && s.name.value === name && !s.directives?.length ? [s] : []));
  const ids: string[] = [];
  for (const namespace of fields(operation.selectionSet.selections, 'component')) {
    for (const findOne of fields(namespace.selectionSet?.selections ?? [], 'findOne')) {
      if (findOne.arguments?.some((argument) => argument.name.value !== 'id')) continue;
      const idArgument = findOne.arguments?.find((argument) => argument.name.value === 'id');
      const id = idArgument ? valueFromASTUntyped(idArgument.value, variables) : undefined;
      if (typeof id === 'string' && isUuid(id)) ids.push(id);
    }
  }
  return ids;
}

/** What the request's context read should bring ahead for its operation, or undefined when nothing. */
export async function readAheadOf(request: Request): Promise<PresentedRequest['readAhead']> {
  const params = await paramsOf(request);
  if (typeof params?.query !== 'string') return undefined;
  const variables = params.variables && typeof params.variables === 'object' && !Array.isArray(params.variables) ? (params.variables as Record<string, unknown>) : {};
  const ids = findOneIds(params.query, variables, typeof params.operationName === 'string' ? params.operationName : undefined);
  if (ids.length === 0) return undefined;
  // Loaded on first use, as the component resolvers are (functions/graphql/resolvers/modules.ts).
  const { componentReadAheadKey } = await import('../../lib/components/queries.js');
  return (library) => ids.map((id) => componentReadAheadKey(library, id));
}
