import type { DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { createStore } from '../../lib/store/client.js';
import { deliverChanges, retryDueDeliveries } from '../../lib/webhooks/delivery.js';
import { loadWebhookSettings } from '../../lib/webhooks/settings.js';
import { changedItemOf, type StreamRecord } from '../../lib/store/stream.js';

const store = createStore();

/**
 * The fourth function: fed by the table's stream (a batch of changed items) it turns them into webhook
 * deliveries; run by the schedule (every minute) it attempts the deliveries whose retry is due.
 */
export async function handler(event: DynamoDBStreamEvent | ScheduledEvent): Promise<{ delivered?: number; retried?: number }> {
  const settings = await loadWebhookSettings();
  if ('Records' in event) {
    const changes = event.Records.map((record) => changedItemOf(record as StreamRecord)).filter((change) => change !== undefined);
    return { delivered: await deliverChanges({ store, settings }, changes) };
  }
  return { retried: await retryDueDeliveries({ store, settings }) };
}
