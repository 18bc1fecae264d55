import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createStore } from '../../lib/store/client.js';
import { requestFromEvent, resultFromResponse } from '../shared/apigw.js';
import { createGraphQLServer } from './yoga.js';

const yoga = createGraphQLServer({ store: createStore(), graphiql: process.env.PLM_GRAPHIQL === 'true' });

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return resultFromResponse(await yoga.fetch(requestFromEvent(event)));
}
