import { AsyncLocalStorage } from 'node:async_hooks';

/** DynamoDB cost of one unit of work (one request through a handler, one benchmark call). */
export interface CapacityMeter {
  requests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
}

const storage = new AsyncLocalStorage<CapacityMeter>();

export function newMeter(): CapacityMeter {
  return { requests: 0, readCapacityUnits: 0, writeCapacityUnits: 0 };
}

/** Runs fn with a meter that every DynamoDB call made inside it adds its consumed capacity to. */
export function withMeter<T>(meter: CapacityMeter, fn: () => T): T {
  return storage.run(meter, fn);
}

export function currentMeter(): CapacityMeter | undefined {
  return storage.getStore();
}
