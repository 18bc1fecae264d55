import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { blobStorageFromEnv, type BlobStorage } from '../../lib/files/blobStorage.js';
import { createStore } from '../../lib/store/client.js';
import { requestFromEvent, resultFromResponse } from '../shared/apigw.js';
import { createGraphQLServer } from './yoga.js';

let blobs: BlobStorage | undefined;
const yoga = createGraphQLServer({
  store: createStore(),
  blobs: () => (blobs ??= blobStorageFromEnv()),
  graphiql: process.env.PLM_GRAPHIQL === 'true',
  faultInjection: process.env.PLM_FAULT_INJECTION === 'true',
});

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return resultFromResponse(await yoga.fetch(requestFromEvent(event)));
}
