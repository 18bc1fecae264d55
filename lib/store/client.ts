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
 * DYNAMODB_ENDPOINT points the client at DynamoDB Local; without it the SDK's default chain (Lambda role)
 * is used against the real service.
 */
export function createStore(env: NodeJS.ProcessEnv = process.env): Store {
  const endpoint = env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient(
    endpoint
      ? {
          endpoint,
          region: env.AWS_REGION || 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          maxAttempts: 3,
        }
      : {},
  );
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
