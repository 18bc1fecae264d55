import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * The local stack's stand-in for Lambda's event source mapping: reads DynamoDB Local's stream of the table
 * and hands each batch of records to `onRecords` (a stream-fed function's handler: webhooks, jobs), shard
 * by shard, in order. Shards open at start are read from their latest record; shards that appear later from their
 * first. A batch that fails is logged and not retried (Lambda would retry it; deliveries are idempotent).
 */
export function startStreamPoller(options: { endpoint: string; tableName: string; onRecords: (records: _Record[]) => Promise<void>; intervalMs?: number; name?: string }) {
  const name = options.name ?? 'webhooks';
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

  /** Reads every shard once; true when some shard had records (then the next poll follows at once: a backlog drains fast). */
  async function poll(): Promise<boolean> {
    if (Date.now() - lastDescribe > 5_000) await discover(false);
    let busy = false;
    for (const [shardId, iterator] of iterators) {
      if (!iterator) {
        iterators.delete(shardId);
        continue;
      }
      const { Records, NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      iterators.set(shardId, NextShardIterator);
      if (Records?.length) {
        busy = true;
        await options.onRecords(Records).catch((error: unknown) => console.error(`${name}: a stream batch failed:`, error));
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
        if (!stopped) console.error(`${name}: reading the stream failed:`, error);
      }
      if (!busy) await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
    }
  })();

  return {
    async stop(): Promise<void> {
      stopped = true;
      await done.catch(() => undefined);
      ddb.destroy();
      streams.destroy();
    },
  };
}
