import { BatchWriteItemCommand, CreateTableCommand, DescribeTableCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Store } from './client.js';
import { createTableInput } from './table.js';

/**
 * A logical backup of the whole table as JSON lines, one item per line in DynamoDB's own typed form (binary
 * values base64), and its restore into an empty table. It complements point-in-time recovery and on-demand
 * backups (which DynamoDB Local does not have): a copy an operator can keep anywhere, restore into another
 * account or table, or inspect.
 */

type Encoded = Record<string, unknown>;

function encode(value: AttributeValue): Encoded {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (value.M !== undefined) return { M: Object.fromEntries(Object.entries(value.M).map(([k, v]) => [k, encode(v)])) };
  if (value.L !== undefined) return { L: value.L.map(encode) };
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function decode(value: Encoded): AttributeValue {
  if (typeof value.B === 'string') return { B: Buffer.from(value.B, 'base64') };
  if (Array.isArray(value.BS)) return { BS: (value.BS as string[]).map((b) => Buffer.from(b, 'base64')) };
  if (value.M && typeof value.M === 'object') return { M: Object.fromEntries(Object.entries(value.M as Record<string, Encoded>).map(([k, v]) => [k, decode(v)])) };
  if (Array.isArray(value.L)) return { L: (value.L as Encoded[]).map(decode) };
  return value as unknown as AttributeValue;
}

/** Every item of the table, strongly consistent, page by page, as lines. */
export async function* backupLines(store: Store): AsyncGenerator<string> {
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await store.ddb.send(new ScanCommand({ TableName: store.tableName, ConsistentRead: true, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) yield JSON.stringify(Object.fromEntries(Object.entries(item).map(([k, v]) => [k, encode(v)])));
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Creates the table (the one definition, stream included) when it is missing; refuses a table that holds items. */
export async function prepareRestoreTarget(store: Store): Promise<void> {
  const exists = await store.ddb.send(new DescribeTableCommand({ TableName: store.tableName })).then(
    () => true,
    (error: { name?: string }) => {
      if (error.name === 'ResourceNotFoundException') return false;
      throw error;
    },
  );
  if (!exists) {
    await store.ddb.send(new CreateTableCommand(createTableInput(store.tableName)));
    for (let i = 0; i < 100; i++) {
      const { Table } = await store.ddb.send(new DescribeTableCommand({ TableName: store.tableName }));
      if (Table?.TableStatus === 'ACTIVE') break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const { Count } = await store.ddb.send(new ScanCommand({ TableName: store.tableName, Limit: 1, Select: 'COUNT' }));
  if ((Count ?? 0) > 0) throw new Error(`Table ${store.tableName} is not empty: restore writes only into an empty table`);
}

/** Writes items (backup lines) in batches of 25, retrying what DynamoDB leaves unprocessed. Returns the count. */
export async function restoreLines(store: Store, lines: AsyncIterable<string>): Promise<number> {
  let batch: Record<string, AttributeValue>[] = [];
  let written = 0;
  const flush = async () => {
    let requests = batch.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt += 1) {
      const { UnprocessedItems } = await store.ddb.send(new BatchWriteItemCommand({ RequestItems: { [store.tableName]: requests } }));
      requests = (UnprocessedItems?.[store.tableName] ?? []) as typeof requests;
      if (requests.length) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
    }
    written += batch.length;
    batch = [];
  };
  for await (const line of lines) {
    if (!line.trim()) continue;
    const encoded = JSON.parse(line) as Record<string, Encoded>;
    batch.push(Object.fromEntries(Object.entries(encoded).map(([k, v]) => [k, decode(v)])));
    if (batch.length === 25) await flush();
  }
  if (batch.length) await flush();
  return written;
}
