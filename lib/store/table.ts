/**
 * The one table definition. The CDK stack (infra/) and the local stack (infra/local/) both build their
 * table from this object, so the deployed and local tables cannot drift.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB deletes the item after this time (secrets that expire, abandoned writes). */
  timeToLiveAttribute: 'expiresAt',
  /** Change data capture for webhooks: every change, with the item before and after (lib/webhooks/events.ts). */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  globalSecondaryIndexes: [
    {
      /** Everything that belongs to one user across tenants: memberships (user -> organizations). */
      indexName: 'ByUser',
      partitionKey: 'GSI1PK',
      sortKey: 'GSI1SK',
    },
  ],
} as const;

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['indexName'];

export const defaultTableName = 'plm';

export function tableNameFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.TABLE_NAME || defaultTableName;
}

/** CreateTable input for the local stack; the deployed table is declared in infra/stack/table.ts. */
export function createTableInput(tableName: string) {
  const attributeNames = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const index of tableDefinition.globalSecondaryIndexes) {
    attributeNames.add(index.partitionKey);
    attributeNames.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamViewType },
    AttributeDefinitions: [...attributeNames].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
