import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** A change record as DynamoDB Streams gives it, to Lambda or to GetRecords (the local poller). */
export interface StreamRecord {
  eventID?: string | undefined;
  eventName?: string | undefined;
  dynamodb?:
    | {
        ApproximateCreationDateTime?: number | Date | undefined;
        NewImage?: Record<string, unknown> | undefined;
        OldImage?: Record<string, unknown> | undefined;
      }
    | undefined;
}

/** One changed item of the table's stream, decoded: what the webhook events are made from. */
export interface ChangedItem {
  /** The stream record's id: the event id, stable across redeliveries of the record. */
  eventId: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** When the change happened (ISO). */
  at: string;
  oldImage: Record<string, unknown> | undefined;
  newImage: Record<string, unknown> | undefined;
}

/**
 * The streams client (DynamoDB Local's stream at least) gives an empty map attribute as `{}` instead of
 * `{ M: {} }`, which unmarshall refuses: read it as the empty map it is.
 */
function repaired(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return { M: {} };
  const [type, inner] = entries[0]!;
  if (type === 'M' && inner && typeof inner === 'object') return { M: Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, repaired(v)])) };
  if (type === 'L' && Array.isArray(inner)) return { L: inner.map(repaired) };
  return value;
}

const image = (value: Record<string, unknown> | undefined) =>
  value ? unmarshall(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, repaired(v)])) as Record<string, AttributeValue>) : undefined;

export function changedItemOf(record: StreamRecord): ChangedItem | undefined {
  const kind = record.eventName;
  if (!record.eventID || (kind !== 'INSERT' && kind !== 'MODIFY' && kind !== 'REMOVE')) return undefined;
  const created = record.dynamodb?.ApproximateCreationDateTime;
  const at = created instanceof Date ? created : typeof created === 'number' ? new Date(created * 1000) : new Date();
  return { eventId: record.eventID, kind, at: at.toISOString(), oldImage: image(record.dynamodb?.OldImage), newImage: image(record.dynamodb?.NewImage) };
}
