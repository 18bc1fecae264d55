import { componentItem, componentKey, type ComponentRecord } from './component.js';
import type { ConditionFailure, Key, WriteItem } from './items.js';
import { pendingMark } from './pendingWrite.js';

/**
 * The writes of a component item that keep its version and its change order lock: create, new version,
 * resync, lock and unlock, delete (the marks of a large release are in component.ts).
 */

/**
 * The condition that keeps a component's lock as it was read: a write of a component read unlocked fails if
 * a change order locked it meanwhile (and the other way round). Combined with the version condition.
 */
function lockCondition(lockedBy: string | null): { expression: string; values: Record<string, unknown> } {
  return lockedBy === null
    ? { expression: '(attribute_not_exists(lockedBy) OR lockedBy = :unlocked)', values: { ':unlocked': null } }
    : { expression: 'lockedBy = :lockedBy', values: { ':lockedBy': lockedBy } };
}

/** Puts a new component (its id is new: fails if the key exists). */
export function componentCreatePut(record: ComponentRecord, writeId?: string): WriteItem {
  return { Put: { Item: { ...componentItem(record), ...pendingMark(writeId) }, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/**
 * Puts a new version of a component, on condition that it is still at the version read and its lock is
 * still the one read (`lockedBy`: null for a component read unlocked, the change order that holds it).
 */
export function componentVersionPut(record: ComponentRecord, expected: { version: number; lockedBy: string | null }, onConditionFailed?: ConditionFailure): WriteItem {
  const lock = lockCondition(expected.lockedBy);
  return {
    // A component marked by a large release in flight is written by that release only (settling or aborting it).
    Put: {
      Item: componentItem(record),
      ConditionExpression: `version = :version AND ${lock.expression} AND attribute_not_exists(pendingRelease)`,
      ExpressionAttributeValues: { ':version': expected.version, ...lock.values },
    },
    ...(onConditionFailed ? { onConditionFailed } : {}),
  };
}

/** Locks a component for a change order (no version change: every write of a component is conditioned on its lock). */
export function componentLock(orgId: string, libraryId: string, componentId: string, changeOrderId: string): WriteItem {
  const unlocked = lockCondition(null);
  return {
    Update: {
      Key: componentKey(orgId, libraryId, componentId),
      UpdateExpression: 'SET lockedBy = :co',
      ConditionExpression: `attribute_exists(PK) AND ${unlocked.expression}`,
      ExpressionAttributeValues: { ':co': changeOrderId, ...unlocked.values },
    },
  };
}

/**
 * Locks a component for a change order in a large submit (its locks written in chunks before the order's
 * commit): also applies to a component this order locked already, so a chunk written twice is harmless.
 */
export function componentLockAgain(orgId: string, libraryId: string, componentId: string, changeOrderId: string): WriteItem {
  const unlocked = lockCondition(null);
  return {
    Update: {
      Key: componentKey(orgId, libraryId, componentId),
      UpdateExpression: 'SET lockedBy = :co',
      ConditionExpression: `attribute_exists(PK) AND (${unlocked.expression} OR lockedBy = :co)`,
      ExpressionAttributeValues: { ':co': changeOrderId, ...unlocked.values },
    },
  };
}

/** Releases a component's lock held by this change order. */
export function componentUnlock(orgId: string, libraryId: string, componentId: string, changeOrderId: string): WriteItem {
  const held = lockCondition(changeOrderId);
  return {
    Update: {
      Key: componentKey(orgId, libraryId, componentId),
      UpdateExpression: 'SET lockedBy = :unlocked',
      ConditionExpression: held.expression,
      ExpressionAttributeValues: { ':unlocked': null, ...held.values },
    },
  };
}

/** Rewrites a component in place (same version), unless it changed or was locked since it was read. */
export function componentResyncPut(component: ComponentRecord, onConditionFailed: () => Error): WriteItem {
  return componentVersionPut(component, { version: component.version, lockedBy: component.lockedBy }, onConditionFailed);
}

/** Deletes a component at the version read, unless a change order locked it meanwhile; its CPN claim is marked deleted. */
export function componentDeleteItems(component: ComponentRecord, cpnKeyOfIt: Key, at: string): WriteItem[] {
  return [
    {
      Delete: {
        Key: componentKey(component.organizationId, component.libraryId, component.id),
        // A change order that locked the component meanwhile keeps it.
        ConditionExpression: `version = :version AND ${lockCondition(null).expression}`,
        ExpressionAttributeValues: { ':version': component.version, ...lockCondition(null).values },
      },
    },
    {
      Update: {
        Key: cpnKeyOfIt,
        UpdateExpression: 'SET deleted = :true, deletedAt = :at',
        // The claim was written with the component; never create a stray one.
        ConditionExpression: 'componentId = :id',
        ExpressionAttributeValues: { ':true': true, ':at': at, ':id': component.id },
      },
    },
  ];
}
