import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryBudgetExceededError, RequestAbortedError, type DynamoDbUse } from '../errors.js';

/** DynamoDB cost of one unit of work (one request through a handler, one benchmark call). */
export interface CapacityMeter {
  requests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
  /**
   * The caller's rate counter (lib/accounts/rateLimit.ts), metered apart: it is the limiter's cost, the
   * same for every request, not the operation's, so the figures above stay comparable between operations.
   */
  rateLimit?: CapacityMeter;
  /**
   * Audit entries written on their own (a refusal's, a failure's, or an operation's that wrote no
   * transaction), metered apart as the limiter is: what the operation did stays comparable, and the
   * audit's own cost is visible. An entry carried by the operation's transaction is in that transaction.
   */
  audit?: CapacityMeter;
}

/** What a unit of work may still do: its DynamoDB budget and the signal of its client going away. */
interface Guard {
  budget?: DynamoDbUse;
  signal?: AbortSignal;
  /** Reads answered so far: the budget counts reads (writes a query makes are upkeep, such as the search index catching up). */
  reads: number;
  /** Reads started and not yet answered: counted against the request budget before they are answered. */
  inFlight: number;
  exceeded?: QueryBudgetExceededError;
}

const storage = new AsyncLocalStorage<CapacityMeter>();
const guards = new WeakMap<CapacityMeter, Guard>();

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

function guardOf(meter: CapacityMeter): Guard {
  let guard = guards.get(meter);
  if (!guard) guards.set(meter, (guard = { reads: 0, inFlight: 0 }));
  return guard;
}

/**
 * From now on the unit of work may use at most `budget` in total (what it used already included): the call
 * that would start past it is refused with QueryBudgetExceededError instead, and so is every later one.
 */
export function limitMeter(meter: CapacityMeter, budget: DynamoDbUse): void {
  guardOf(meter).budget = budget;
}

/** Once the signal aborts (the client went away), the next DynamoDB call of the unit of work throws RequestAbortedError. */
export function stopMeterOn(meter: CapacityMeter, signal: AbortSignal): void {
  guardOf(meter).signal = signal;
}

export function meterSignal(meter: CapacityMeter | undefined): AbortSignal | undefined {
  return meter ? guards.get(meter)?.signal : undefined;
}

/** The budget refusal the unit of work ran into, if it did. */
export function budgetExceeded(meter: CapacityMeter | undefined): QueryBudgetExceededError | undefined {
  return meter ? guards.get(meter)?.exceeded : undefined;
}

/**
 * Called by the store before every DynamoDB call: throws when the client has gone, or, for a read, when
 * the budget of reads is used up; otherwise the read counts as started. Every resolver's reads go through
 * here, whatever it reads. Writes are not budgeted: a query's writes are upkeep it does not choose (the
 * search index catching up with the library's last writes), bounded by their own design.
 */
export function startCall(meter: CapacityMeter, isRead: boolean): void {
  const guard = guards.get(meter);
  if (!guard) return;
  if (guard.signal?.aborted) throw new RequestAbortedError();
  if (!isRead) return;
  if (guard.exceeded) throw guard.exceeded;
  const { budget } = guard;
  if (budget && (guard.reads + guard.inFlight >= budget.requests || meter.readCapacityUnits >= budget.readCapacityUnits)) {
    guard.exceeded = new QueryBudgetExceededError(budget, { requests: guard.reads + guard.inFlight, readCapacityUnits: meter.readCapacityUnits });
    throw guard.exceeded;
  }
  guard.inFlight += 1;
}

export function endCall(meter: CapacityMeter, isRead: boolean): void {
  const guard = guards.get(meter);
  if (!guard || !isRead) return;
  guard.inFlight -= 1;
  guard.reads += 1;
}
