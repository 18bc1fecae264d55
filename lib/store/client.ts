import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { currentMeter, endCall, startCall } from './meter.js';
import { tableNameFromEnv } from './table.js';

export interface Store {
  readonly ddb: DynamoDBDocumentClient;
  readonly tableName: string;
}

const readCommands = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

interface ConsumedCapacityShape {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/**
 * Every call asks DynamoDB for its consumed capacity and adds it to the meter of the current unit of
 * work, so the benchmark and the local server can report capacity units per operation; a call is refused
 * before it is sent when the unit of work is over its budget or its client has gone.
 */
function addCapacityMetering(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const meter = currentMeter();
      const isRead = readCommands.has(context.commandName ?? '');
      // The request's budget of reads and its client's disconnect are checked before every call (lib/store/meter.ts).
      if (meter) startCall(meter, isRead);
      let result;
      try {
        result = await next(args);
      } finally {
        if (meter) endCall(meter, isRead);
      }
      if (meter) {
        const output = result.output as { ConsumedCapacity?: ConsumedCapacityShape | ConsumedCapacityShape[] };
        const consumed = [output.ConsumedCapacity ?? []].flat();
        const units = consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
        meter.requests += 1;
        if (isRead) meter.readCapacityUnits += units;
        else meter.writeCapacityUnits += units;
      }
      return result;
    },
    { step: 'initialize', name: 'plmCapacityMeter' },
  );
}

/**
 * How long one DynamoDB call may take, and how often the SDK tries it. Without these the SDK waits for a
 * stalled call (a half-open connection, a throttled partition) up to its socket default of 5 minutes per
 * attempt, holding the Lambda invocation until its own timeout.
 */
export interface StoreTimeouts {
  /** TCP connect (NodeHttpHandler connectionTimeout). */
  connectionTimeoutMs: number;
  /** From sending the request to the response's headers; a TimeoutError when exceeded (throwOnRequestTimeout). */
  requestTimeoutMs: number;
  /** Socket inactivity, also while the body is read (a little under the request timeout, as AWS advises). */
  socketTimeoutMs: number;
  /** Attempts per call, the first included (the SDK's standard retry strategy: timeouts, 5xx, throttling). */
  maxAttempts: number;
}

/**
 * The deployed stack's client (Lambda and the operator CLI against a deployed table). AWS's guidance for
 * DynamoDB (the TransactionInProgressException recommendation): a request timeout of 1 s or more, socket
 * timeout a little below it, exponential backoff, and retries that still run 5 s after the first attempt, so
 * a TransactWriteItems whose answer was lost completes under the same ClientRequestToken. A call here takes
 * milliseconds (a 100-item transaction or a 1 MB page some tens): 3 s is far above that and far below the
 * functions' 29 s. 4 attempts is the SDK's DynamoDB default (base backoff 25 ms; 1 s for throttling); kept
 * explicit so an SDK upgrade does not move it. `worstCaseCallMs` bounds one call.
 */
export const deployedStoreTimeouts: StoreTimeouts = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, socketTimeoutMs: 2_500, maxAttempts: 4 };

/**
 * The local stack's (DynamoDB Local): a stall still ends, but the request timeout is long, because DynamoDB
 * Local on a busy 2-core machine (tests, the bench's bulk loads) has pauses of seconds, and a timed-out write
 * the SDK sends again is exactly what the deployed settings make rare. Connecting is bounded as loosely: in a
 * whole test run its JVM accepted new connections more than 2 s late (the first setting tried), and every
 * request of those failed.
 */
export const localStoreTimeouts: StoreTimeouts = { connectionTimeoutMs: 15_000, requestTimeoutMs: 30_000, socketTimeoutMs: 30_000, maxAttempts: 3 };

/** The SDK's backoff bound before retry `retry` (0-based) of a throttled call (SDK v3 standard strategy: random x min(1 s x 2^retry, 20 s)). */
const throttlingBackoffBoundMs = (retry: number) => Math.min(1_000 * 2 ** retry, 20_000);
/** A server's Retry-After hint may add up to 5 s to a wait (the SDK caps it there; DynamoDB and SES send none, counted anyway). */
const retryAfterHintMs = 5_000;

/**
 * The longest one SDK call can take with these settings (any AWS client's, SES's too): every attempt runs to
 * its request timeout (the connection timeout counts within it) and then, its headers come just in time,
 * reads a body that stalls until the socket's inactivity timeout; every wait before a retry is the longest
 * the SDK allows (throttling's backoff plus a Retry-After hint). Deployed DynamoDB: 4 x (3 + 2.5) s +
 * (1 + 2 + 4) s + 3 x 5 s = 44 s. A plain stall (every attempt times out, 25 ms backoff) is about 12 s.
 */
export function worstCaseCallMs(timeouts: StoreTimeouts): number {
  let waits = 0;
  for (let retry = 0; retry < timeouts.maxAttempts - 1; retry++) waits += throttlingBackoffBoundMs(retry) + retryAfterHintMs;
  return timeouts.maxAttempts * (Math.max(timeouts.requestTimeoutMs, timeouts.connectionTimeoutMs) + timeouts.socketTimeoutMs) + waits;
}

export interface CreateStoreOptions {
  /** Default: `localStoreTimeouts` with DYNAMODB_ENDPOINT, `deployedStoreTimeouts` without. */
  timeouts?: StoreTimeouts;
}

/**
 * DYNAMODB_ENDPOINT points the client at DynamoDB Local; without it the SDK's default chain (Lambda role)
 * is used against the real service.
 */
export function createStore(env: NodeJS.ProcessEnv = process.env, options: CreateStoreOptions = {}): Store {
  const endpoint = env.DYNAMODB_ENDPOINT;
  const timeouts = options.timeouts ?? (endpoint ? localStoreTimeouts : deployedStoreTimeouts);
  const client = new DynamoDBClient({
    ...(endpoint ? { endpoint, region: env.AWS_REGION || 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    maxAttempts: timeouts.maxAttempts,
    // Options, not a handler instance: the SDK builds its NodeHttpHandler (nothing more is loaded at import).
    requestHandler: {
      connectionTimeout: timeouts.connectionTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      socketTimeout: timeouts.socketTimeoutMs,
      throwOnRequestTimeout: true,
    },
  });
  addCapacityMetering(client);
  const ddb = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  // The SDK's logger middleware filters every input and output for sensitive members (walking each item
  // read) before it hands them to its logger, a no-op one here: the request log is ours
  // (functions/shared/requestLog.ts). It was the largest single cost of a call in the SDK (a CPU profile of
  // component.findOne under the bench).
  client.middlewareStack.remove('loggerMiddleware');
  ddb.middlewareStack.remove('loggerMiddleware');
  return { ddb, tableName: tableNameFromEnv(env) };
}
