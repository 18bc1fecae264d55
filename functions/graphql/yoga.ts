import { createHash } from 'node:crypto';
import { getNamedType, getOperationAST, GraphQLError, Kind, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createGraphQLError, createYoga, isAsyncIterable, maskError as yogaMaskError, type Plugin } from 'graphql-yoga';
import type { BearerVerifier } from '../../lib/access/bearer.js';
import type { RequestContext } from '../../lib/access/requestContext.js';
import { applyCallerRateLimit, CallerConcurrency, type CallerRateKey, type CallerRateLimits } from '../../lib/accounts/rateLimit.js';
import type { Caller } from '../../lib/access/caller.js';
import { DomainError, RateLimitedError, UnauthenticatedError, type DynamoDbUse } from '../../lib/errors.js';
import type { BlobStorage } from '../../lib/files/port.js';
import type { Store } from '../../lib/store/client.js';
import { budgetExceeded, currentMeter, limitMeter } from '../../lib/store/meter.js';
import { requestBatches, requestMemo, type GraphQLContext } from './context.js';
import { describeSchema, introspects } from './descriptions.js';
import { requestLimits, useRequestLimits } from './limits.js';
import { readAheadOf } from './readAhead.js';
import { buildSchema } from './schema.js';
import { logServerFault } from '../shared/requestLog.js';

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
  const masked = yogaMaskError(error, message, isDev);
  if (masked !== error) {
    const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
    logServerFault(cause, { path: error instanceof GraphQLError ? error.path?.join('.') : undefined });
  }
  return masked;
}

const withCode = (error: GraphQLError) =>
  error.extensions?.code === undefined
    ? new GraphQLError(error.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        originalError: error.originalError,
        extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
      })
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

/** The operations each request ran (`component.findOne`, `libraries`), for its log line. */
export const requestOperations = new WeakMap<Request, string>();

function rootFieldPaths(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): string[] {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName));
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return [];
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  return operation.selectionSet.selections.flatMap((selection) => {
    if (selection.kind !== Kind.FIELD) return [];
    const name = selection.name.value;
    const type = root?.getFields()[name] && getNamedType(root.getFields()[name]!.type);
    if (!type?.name.endsWith('Namespace') || !selection.selectionSet) return [name];
    return selection.selectionSet.selections.flatMap((inner) => (inner.kind === Kind.FIELD ? [`${name}.${inner.name.value}`] : []));
  });
}

/** Descriptions are set on the schema before the first request that introspects executes (descriptions.ts). */
const useDescriptions: Plugin = {
  onExecute: ({ args }) => (introspects(args.document) ? describeSchema(args.schema) : undefined),
};

const useOperationNames: Plugin<GraphQLContext & { request: Request }> = {
  onExecute: ({ args }) => {
    const paths = rootFieldPaths(args.schema, args.document, args.operationName);
    if (paths.length > 0) requestOperations.set(args.contextValue.request, [...new Set(paths)].join(','));
  },
};

export interface YogaOptions {
  store: Store;
  blobs: () => BlobStorage;
  /** Honour the x-plm-fault header (local test stack only). */
  faultInjection: boolean;
  /** Serve GraphiQL on GET /graphql (local stack only). */
  graphiql: boolean;
  /** Answer introspection queries (only ever to an authenticated caller). */
  introspection: boolean;
  /** Origins a browser may call from (CORS); any other origin gets no CORS headers. */
  allowedOrigins: readonly string[];
  /** Outbound mail (invitations) and the web application's address its links point at. */
  mail: GraphQLContext['mail'];
  /** Verifies Bearer access tokens of the user pool; without it Bearer tokens get 401. */
  bearer?: BearerVerifier | undefined;
  /** Requests per caller (API key or user) across instances; without it no rate limit (lib/accounts/rateLimit.ts). */
  rateLimits?: CallerRateLimits | undefined;
  /** DynamoDB requests and read units one query may use; without it no budget. */
  queryBudget?: DynamoDbUse | undefined;
  /** Requests of one caller this process runs at once (the others wait); without it no limit. */
  concurrency?: CallerConcurrency | undefined;
}

/** The end of each request's turn (CallerConcurrency), called when its response is made. */
const turns = new WeakMap<Request, () => void>();

/** Ends the request's turn; the handler calls it once the response is read (yoga's onResponse does too). */
export function finishRequest(request: Request): void {
  turns.get(request)?.();
}

/** The JSON media types of the GraphQL-over-HTTP spec; anything else (forms, multipart) is never run. */
const jsonMediaTypes = ['application/json', 'application/graphql-response+json'];

function errorResponse(status: number, code: string, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code, ...details } }] }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/** Whose rate counter a request counts against: the API key, else the signed-in user (session or Bearer). */
function callerRateKey(caller: Caller): CallerRateKey {
  return caller.kind === 'apiKey' ? `apikey:${caller.apiKeyId}` : `user:${caller.userId}`;
}

/**
 * The share of its rate limit each caller had used at its last request counted by this process (bounded:
 * the oldest callers are forgotten first). A caller well under its limit (below `overlapBelow`) has its next
 * request counted beside that request's work instead of before it (see useCredentialFirst).
 */
const rateLoads = new Map<CallerRateKey, number>();
const rateLoadsKept = 10_000;
const overlapBelow = 0.5;

function rememberRateLoad(key: CallerRateKey, load: number): void {
  rateLoads.delete(key);
  rateLoads.set(key, load);
  if (rateLoads.size > rateLoadsKept) rateLoads.delete(rateLoads.keys().next().value!);
}

/** Counts a request of `key` (lib/accounts/rateLimit.ts) and remembers the share of its limits it has used. */
function countCaller(store: Store, key: CallerRateKey, limits: CallerRateLimits): Promise<void> {
  return applyCallerRateLimit(store, key, limits).then(
    (load) => rememberRateLoad(key, load),
    (error: unknown) => {
      if (error instanceof RateLimitedError) rememberRateLoad(key, Number.POSITIVE_INFINITY);
      throw error;
    },
  );
}

/**
 * The caller each credential belonged to when this process last admitted it, by the credential's SHA-256
 * (never the credential itself), bounded as rateLoads.
 */
const knownCallers = new Map<string, CallerRateKey>();

function rememberCaller(fingerprint: string, key: CallerRateKey): void {
  knownCallers.delete(fingerprint);
  knownCallers.set(fingerprint, key);
  if (knownCallers.size > rateLoadsKept) knownCallers.delete(knownCallers.keys().next().value!);
}

function credentialFingerprint(presented: { apiKey?: string | undefined; authorization?: string | undefined; sessionCookie?: string | undefined }): string | undefined {
  const credential = presented.apiKey?.trim()
    ? `key:${presented.apiKey.trim()}`
    : presented.authorization
      ? `authorization:${presented.authorization}`
      : presented.sessionCookie
        ? `session:${presented.sessionCookie}`
        : undefined;
  return credential === undefined ? undefined : createHash('sha256').update(credential).digest('base64url');
}

/** A request's rate count running beside it: what it settled to (undefined: admitted; else the refusal or failure). */
const overlappedCounts = new WeakMap<Request, Promise<unknown>>();

/** The answer to a request refused by the credential check, its rate limit or its concurrency turn. */
function refusal(error: DomainError & { httpStatus: number }): Response {
  const headers: Record<string, string> = error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) } : {};
  return errorResponse(error.httpStatus, error.code, error.message, error.details, headers);
}

/**
 * The credential check's code (sessions, API keys, the caller's access with lib/store's item code and zod)
 * loads with the first request, not at import: a cold start builds the schema and the server only (issue 25).
 */
let credentialCode: Promise<[typeof import('../../lib/access/requestContext.js'), typeof import('../../lib/people/sessions.js')]> | undefined;
const loadCredentialCode = () => (credentialCode ??= Promise.all([import('../../lib/access/requestContext.js'), import('../../lib/people/sessions.js')]));

/**
 * Runs before yoga reads the body: refuses oversized and non-JSON requests, then verifies the credential
 * and prepares the caller's context, so that an unauthenticated request costs at most one key lookup and
 * its document is never parsed. The context is kept per request for the context factory below.
 *
 * The rate count (one UpdateItem, or none while the instance counts a caller far below its limits on its
 * own: lib/accounts/rateLimit.ts) is one more round trip before the request's work. While
 * this process last saw the caller below half of its limits, a query runs beside its count: the count is
 * awaited before the answer leaves (onResponse), and a refused count answers 429 as before, the query's
 * result discarded. A mutation still waits for its count before it executes (onExecute), so a refused
 * request never writes. A caller nearing its limit is counted first, as before.
 */
function useCredentialFirst(
  store: Store,
  graphiql: boolean,
  contexts: WeakMap<Request, RequestContext>,
  verifyBearer: BearerVerifier | undefined,
  rateLimits: CallerRateLimits | undefined,
  concurrency: CallerConcurrency | undefined,
): Plugin {
  return {
    async onRequest({ request, serverContext, endResponse }) {
      const method = request.method;
      if (method === 'OPTIONS') return;
      if (method === 'GET' && graphiql && (request.headers.get('accept') ?? '').includes('text/html')) return;
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > requestLimits.maxBodyBytes || request.url.length > requestLimits.maxBodyBytes) {
        return endResponse(errorResponse(400, 'REQUEST_TOO_LARGE', `The request is larger than ${requestLimits.maxBodyBytes} bytes`, { limit: requestLimits.maxBodyBytes }));
      }
      if (method === 'POST') {
        const mediaType = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
        if (!jsonMediaTypes.includes(mediaType)) {
          return endResponse(errorResponse(415, 'UNSUPPORTED_MEDIA_TYPE', `POST /graphql takes ${jsonMediaTypes.join(' or ')}, not "${mediaType || 'no content-type'}"`));
        }
      }
      let fingerprint: string | undefined;
      try {
        // Nothing presented (no credential and no context header): resolveRequestContext would answer this
        // 401; it is answered so without loading the credential code.
        if (['x-api-key', 'authorization', 'cookie', 'x-organization', 'x-library'].every((name) => request.headers.get(name) === null)) throw new UnauthenticatedError();
        const [{ resolveRequestContext }, { readCookie, sessionCookieName }] = await loadCredentialCode();
        const presented = {
          apiKey: request.headers.get('x-api-key') ?? undefined,
          authorization: request.headers.get('authorization') ?? undefined,
          sessionCookie: readCookie(request.headers.get('cookie'), sessionCookieName),
          csrfToken: request.headers.get('x-csrf-token') ?? undefined,
          organization: request.headers.get('x-organization') ?? undefined,
          library: request.headers.get('x-library') ?? undefined,
        };
        // A credential this process has seen admitted, of a caller well under its limits: its count starts
        // now, beside the context's read (an unknown credential still never creates a counter).
        fingerprint = credentialFingerprint(presented);
        const knownKey = fingerprint ? knownCallers.get(fingerprint) : undefined;
        const early = rateLimits && knownKey && (rateLoads.get(knownKey) ?? Number.POSITIVE_INFINITY) < overlapBelow ? countCaller(store, knownKey, rateLimits) : undefined;
        early?.catch(() => undefined);
        // An API key this process has admitted before may have its operation's item read with its context
        // (readAhead.ts); an unknown credential's document is still never parsed before it is verified.
        const readAhead = knownKey?.startsWith('apikey:') ? await readAheadOf(request, (serverContext as GraphQLServerContext | undefined)?.rawBody) : undefined;
        contexts.set(request, await resolveRequestContext(store, { ...presented, readAhead }, new Date(), verifyBearer));
        // Counted once the caller is known, before the body is read.
        const key = callerRateKey(contexts.get(request)!.caller);
        if (fingerprint) rememberCaller(fingerprint, key);
        if (rateLimits) {
          const counting = early && knownKey === key ? early : countCaller(store, key, rateLimits);
          if (counting === early || (rateLoads.get(key) ?? Number.POSITIVE_INFINITY) < overlapBelow) {
            overlappedCounts.set(
              request,
              counting.then(
                () => undefined,
                (error: unknown) => error,
              ),
            );
          } else await counting;
        }
        if (concurrency) turns.set(request, await concurrency.acquire(key, request.signal));
      } catch (error) {
        if (!(error instanceof DomainError) || !error.httpStatus) throw error;
        // A credential refused now (revoked, expired) is no longer one this process admitted: its next
        // requests are neither read ahead nor counted before they are verified.
        if (fingerprint && error.httpStatus === 401) knownCallers.delete(fingerprint);
        contexts.delete(request);
        endResponse(refusal(error as DomainError & { httpStatus: number }));
      }
    },
    // yoga's body limit (off: see createGraphQLServer) also refused a Content-Length that is not one
    // non-negative integer; that check stays, at the same step and with yoga's own answer.
    onRequestParse: ({ request }) => {
      const contentLength = request.headers.get('content-length');
      if (contentLength !== null && !/^\d+$/.test(contentLength)) {
        throw createGraphQLError('Content-Length header is invalid.', { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } });
      }
    },
    onExecute: ({ args, setResultAndStopExecution }) => {
      const pending = overlappedCounts.get((args.contextValue as { request: Request }).request);
      if (!pending || getOperationAST(args.document, args.operationName)?.operation === 'query') return undefined;
      // Only a query runs beside its count; anything else waits for it, and a refused one never executes
      // (onResponse answers the refusal).
      return pending.then((failure) => {
        if (failure !== undefined) setResultAndStopExecution({ data: null });
      });
    },
    async onResponse({ request, setResponse }) {
      finishRequest(request);
      const pending = overlappedCounts.get(request);
      if (!pending) return;
      const failure = await pending;
      if (failure === undefined) return;
      if (!(failure instanceof DomainError) || !failure.httpStatus) throw failure;
      setResponse(refusal(failure as DomainError & { httpStatus: number }));
    },
  };
}

/**
 * The DynamoDB budget of a query: set on the request's meter when a query starts executing, so that every
 * resolver's reads draw from it (lib/store/meter.ts refuses the call that would go over). A query that ran
 * into it is answered with that one error, 400 QUERY_BUDGET_EXCEEDED with the budget and what was used,
 * not with its partial data. Mutations are bounded by the item write limits instead: a budget stopping
 * one after its write would answer an error for a write that landed.
 */
function useQueryBudget(budget: DynamoDbUse): Plugin {
  return {
    onExecute: ({ args }) => {
      const meter = currentMeter();
      if (meter && getOperationAST(args.document, args.operationName)?.operation === 'query') limitMeter(meter, budget);
    },
    onResultProcess: ({ result, setResultProcessor }) => {
      const exceeded = budgetExceeded(currentMeter());
      if (!exceeded || Array.isArray(result)) return;
      const body = JSON.stringify({ data: null, errors: [{ message: exceeded.message, extensions: { code: exceeded.code, ...exceeded.details } }] });
      setResultProcessor((_result, fetchAPI) => new fetchAPI.Response(body, { status: 400, headers: { 'content-type': 'application/json; charset=utf-8' } }), 'application/json');
    },
  };
}

/** What the handler hands yoga beside the request: the body as API Gateway delivered it (a string), when it was not base64. */
export interface GraphQLServerContext {
  rawBody?: string;
}

export function createGraphQLServer({ store, blobs, graphiql, faultInjection, introspection, allowedOrigins, mail, bearer, rateLimits, queryBudget, concurrency }: YogaOptions) {
  const contexts = new WeakMap<Request, RequestContext>();
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // The body is a whole string by now, at most requestLimits.maxBodyBytes long (the handler refuses a longer
    // one before yoga, and onRequest a larger Content-Length): yoga's own limit (25 MB, counted by piping the
    // body through a stream before it is parsed) could never refuse one, and its stream was a tenth of a
    // millisecond of every request. Its Content-Length check is kept (useCredentialFirst's onRequestParse).
    maxRequestBodySize: false,
    graphiql: graphiql ? { title: 'PLM API', headers: JSON.stringify({ 'x-api-key': '', 'x-organization': '@', 'x-library': '@' }, null, 2) } : false,
    maskedErrors: { maskError },
    cors: (request) => {
      const origin = request.headers.get('origin');
      if (!origin || !allowedOrigins.includes(origin)) return false;
      return {
        origin: [origin],
        credentials: true,
        methods: ['GET', 'POST'],
        allowedHeaders: ['content-type', 'x-api-key', 'x-organization', 'x-library', 'x-csrf-token', 'authorization'],
        maxAge: 600,
      };
    },
    plugins: [
      useCredentialFirst(store, graphiql, contexts, bearer, rateLimits, concurrency),
      useRequestLimits({ introspection }),
      ...(queryBudget ? [useQueryBudget(queryBudget)] : []),
      useErrorCodes,
      useDescriptions,
      useOperationNames as Plugin,
    ],
    context: ({ request }) => {
      const resolved = contexts.get(request);
      // Only GraphiQL's own page skips the credential check, and it executes nothing.
      if (!resolved) throw new UnauthenticatedError();
      const faults = new Set(
        faultInjection
          ? (request.headers.get('x-plm-fault') ?? '')
              .split(',')
              .map((f) => f.trim())
              .filter(Boolean)
          : [],
      );
      return { store, caller: resolved.caller, access: resolved.access, blobs, mail, faults, once: requestMemo(), batched: requestBatches() };
    },
  });
}
