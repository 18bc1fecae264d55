import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** One stream-fed function's event source mapping: its handler, given records in stream order. */
export interface StreamConsumer {
  name: string;
  onRecords: (records: _Record[]) => Promise<void>;
}

/** Records a consumer is handed at once (Lambda's batch size for a DynamoDB stream is at most 10,000; 1,000 here). */
const batchSize = 1000;
/** Records read but not yet handed to a consumer, past which reading waits for it (memory, not speed). */
const backlogLimit = 10_000;
/** The pause after a read of every shard that found nothing. */
const idleMs = 100;

/**
 * The local stack's stand-in for Lambda's event source mappings: reads DynamoDB Local's stream of the table
 * once, shard by shard, and hands what it read to each consumer (the webhooks function, the jobs function)
 * in stream order, one batch at a time per consumer. While a consumer handles a batch, the records read
 * meanwhile queue up and become its next batch, as Lambda batches what arrived while the function ran; a
 * slow consumer holds up neither the reading nor the others. Shards open at start are read from their latest
 * record; shards that appear later from their first. A batch that fails is logged and not retried (Lambda
 * would retry it; deliveries are idempotent).
 *
 * One reader for every consumer: DynamoDB Local serves each GetRecords from its one SQLite thread, and a
 * reader per consumer read (and the SDK decoded) every record, search blocks and all, once per consumer.
 */
export function startStreamReader(options: { endpoint: string; tableName: string; consumers: StreamConsumer[] }) {
  const config = { endpoint: options.endpoint, region: 'us-east-1', credentials };
  const ddb = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  // As the store's client (lib/store/client.ts): no SDK logger, so no walk of every record read to filter it for one.
  ddb.middlewareStack.remove('loggerMiddleware');
  streams.middlewareStack.remove('loggerMiddleware');
  const iterators = new Map<string, string | undefined>();
  const known = new Set<string>();
  let stopped = false;
  let streamArn: string | undefined;
  let lastDescribe = 0;

  const queues = options.consumers.map((consumer) => ({ consumer, records: [] as _Record[], draining: Promise.resolve(), running: false, drained: () => {} }));
  type Queue = (typeof queues)[number];

  /** Hands the queue's records to its consumer, a batch at a time, until none are left (or the stack stops: the batch under way ends). */
  function drain(queue: Queue): void {
    if (queue.running) return;
    queue.running = true;
    queue.draining = (async () => {
      while (queue.records.length > 0 && !stopped) {
        const batch = queue.records.splice(0, batchSize);
        await queue.consumer.onRecords(batch).catch((error: unknown) => console.error(`${queue.consumer.name}: a stream batch failed:`, error));
        queue.drained();
      }
      queue.running = false;
    })();
  }

  /** Resolves once every consumer's backlog is under the limit. */
  async function backlogRoom(): Promise<void> {
    for (const queue of queues) {
      while (queue.records.length >= backlogLimit && !stopped) await new Promise<void>((resolve) => (queue.drained = resolve));
    }
  }

  async function discover(initial: boolean): Promise<void> {
    streamArn ??= (await ddb.send(new DescribeTableCommand({ TableName: options.tableName }))).Table?.LatestStreamArn;
    if (!streamArn) return;
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || known.has(shard.ShardId)) continue;
      known.add(shard.ShardId);
      const closed = Boolean(shard.SequenceNumberRange?.EndingSequenceNumber);
      if (initial && closed) continue;
      const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: initial ? 'LATEST' : 'TRIM_HORIZON' }));
      iterators.set(shard.ShardId, ShardIterator);
    }
    lastDescribe = Date.now();
  }

  /** Reads every shard once; true when some shard had records (then the next read follows at once: a backlog drains fast). */
  async function poll(): Promise<boolean> {
    if (Date.now() - lastDescribe > 5_000) await discover(false);
    let busy = false;
    for (const [shardId, iterator] of iterators) {
      if (!iterator) {
        iterators.delete(shardId);
        continue;
      }
      await backlogRoom();
      const { Records, NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      iterators.set(shardId, NextShardIterator);
      if (Records?.length) {
        busy = true;
        for (const queue of queues) {
          queue.records.push(...Records);
          drain(queue);
        }
      }
    }
    return busy;
  }

  const done = (async () => {
    await discover(true);
    while (!stopped) {
      let busy = false;
      try {
        busy = await poll();
      } catch (error) {
        if (!stopped) console.error(`the stream reader of ${options.consumers.map((c) => c.name).join(' and ')} failed to read:`, error);
      }
      if (!busy) await new Promise((resolve) => setTimeout(resolve, idleMs));
    }
  })();

  return {
    async stop(): Promise<void> {
      stopped = true;
      for (const queue of queues) queue.drained();
      await done.catch(() => undefined);
      await Promise.all(queues.map((queue) => queue.draining));
      ddb.destroy();
      streams.destroy();
    },
  };
}
