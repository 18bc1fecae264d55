import { RemovalPolicy, type Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { tableDefinition } from '../../lib/store/table.js';

/** The one table (lib/store/table.ts defines its keys and indexes), with the stream webhooks and import jobs read. */
export function createTable(stack: Stack): dynamodb.TableV2 {
  const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
  return new dynamodb.TableV2(stack, 'Table', {
    partitionKey: stringKey(tableDefinition.partitionKey),
    sortKey: stringKey(tableDefinition.sortKey),
    globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      indexName: index.indexName,
      partitionKey: stringKey(index.partitionKey),
      sortKey: stringKey(index.sortKey),
    })),
    timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
    // Webhooks read every change, with the item before and after (lib/webhooks/events.ts).
    dynamoStream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    billing: dynamodb.Billing.onDemand(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}
