import { GraphQLError } from 'graphql';
import { createYoga, isAsyncIterable, maskError as yogaMaskError, type Plugin } from 'graphql-yoga';
import { resolveRequestContext } from '../../lib/access/requestContext.js';
import { DomainError } from '../../lib/errors.js';
import type { BlobStorage } from '../../lib/files/blobStorage.js';
import type { Store } from '../../lib/store/client.js';
import { requestBatches, requestMemo, type GraphQLContext } from './context.js';
import { buildSchema } from './schema.js';

/** The DomainError behind a GraphQL error, however deeply graphql-js wrapped it. */
function domainErrorOf(error: unknown): DomainError | undefined {
  let current: unknown = error;
  while (current) {
    if (current instanceof DomainError) return current;
    current = current instanceof GraphQLError ? current.originalError : undefined;
  }
  return undefined;
}

/**
 * Domain errors keep their message and code (and the HTTP status of request-level failures); GraphQL's
 * own errors (syntax, validation) pass through; anything else is masked as an internal error.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const domain = domainErrorOf(error);
  if (domain) {
    const source = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError(domain.message, {
      nodes: source?.nodes,
      path: source?.path,
      extensions: {
        code: domain.code,
        ...domain.details,
        ...(domain.httpStatus ? { http: { status: domain.httpStatus } } : {}),
      },
    });
  }
  return yogaMaskError(error, message, isDev);
}

const withCode = (error: GraphQLError) =>
  error.extensions?.code === undefined
    ? new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions: { ...error.extensions, code: 'BAD_USER_INPUT' } })
    : error;

/**
 * graphql-js's own request errors (a variable of the wrong type, a missing required variable) carry no
 * code; they are the caller's mistake, so they get BAD_USER_INPUT like every other input error.
 */
const useErrorCodes: Plugin = {
  onExecute: () => ({
    onExecuteDone: ({ result, setResult }) => {
      if (isAsyncIterable(result) || !result.errors?.some((e) => e.extensions?.code === undefined)) return;
      setResult({ ...result, errors: result.errors.map(withCode) });
    },
  }),
};

export interface YogaOptions {
  store: Store;
  blobs: () => BlobStorage;
  /** Honour the x-plm-fault header (local test stack only). */
  faultInjection: boolean;
  /** Serve GraphiQL on GET /graphql (local stack only). */
  graphiql: boolean;
}

export function createGraphQLServer({ store, blobs, graphiql, faultInjection }: YogaOptions) {
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: graphiql ? { title: 'PLM API', headers: JSON.stringify({ 'x-api-key': '', 'x-organization': '@', 'x-library': '@' }, null, 2) } : false,
    maskedErrors: { maskError },
    plugins: [useErrorCodes],
    context: async ({ request }) => {
      const { caller, access } = await resolveRequestContext(store, {
        apiKey: request.headers.get('x-api-key') ?? undefined,
        authorization: request.headers.get('authorization') ?? undefined,
        organization: request.headers.get('x-organization') ?? undefined,
        library: request.headers.get('x-library') ?? undefined,
      });
      const faults = new Set(faultInjection ? (request.headers.get('x-plm-fault') ?? '').split(',').map((f) => f.trim()).filter(Boolean) : []);
      return { store, caller, access, blobs, faults, once: requestMemo(), batched: requestBatches() };
    },
  });
}
