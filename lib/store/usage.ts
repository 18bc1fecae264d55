import * as z from 'zod';
import type { Store } from './client.js';
import { ConcurrentWriteError } from '../errors.js';
import { bomKey } from './bom.js';
import { batchGetRecords, transactWrite, updateIf, type WriteItem } from './items.js';
import { libraryPartition } from './library.js';

/**
 * The where-used index: one item per component that is (or was) a BOM child, naming the assemblies whose
 * BOM uses it. An entry is added in the same transaction as the BOM line that needs it, on condition that
 * the item is not marked deleted; deleting the component marks it, on condition that its `rev` is still
 * the one read. Both conditions are on this one item, so a delete and a write adding the component as a
 * child cannot both land. Entries of lines that went away are removed after their write, while the BOM is
 * still the one that write made (removeUsageAfterWrite); a stale entry only makes a reader look at one BOM
 * more (readers confirm every entry against the BOM), a missing one would hide a line.
 */
export const usageKey = (orgId: string, libraryId: string, childId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `USEDBY#${childId}` });

export const usageRecord = z.object({
  childId: z.string(),
  /** Absent when empty (DynamoDB has no empty sets). */
  assemblies: z.set(z.string()).optional(),
  rev: z.number().int().optional(),
  /** The component was deleted: no BOM may add it again. */
  deleted: z.boolean().optional(),
});
export type UsageRecord = z.infer<typeof usageRecord>;

/** Where-used entries of several components (absent: never a child), strongly consistent when asked. */
export function getUsages(store: Store, orgId: string, libraryId: string, childIds: string[], consistent = false): Promise<Map<string, UsageRecord>> {
  return batchGetRecords(store, childIds, (id) => usageKey(orgId, libraryId, id), usageRecord, 'where-used entry', consistent);
}

/** The transaction item recording that `assemblyIds` now use the child; it fails once the child is deleted. */
export function usageAddItem(orgId: string, libraryId: string, childId: string, assemblyIds: string[]): WriteItem {
  return {
    Update: {
      Key: usageKey(orgId, libraryId, childId),
      UpdateExpression: 'SET entity = :entity, childId = :child ADD assemblies :assemblies, rev :one',
      ConditionExpression: 'attribute_not_exists(deleted)',
      ExpressionAttributeValues: { ':entity': 'Usage', ':child': childId, ':assemblies': new Set(assemblyIds), ':one': 1 },
    },
  };
}

/** Marks a deleted component's entry, on condition that nobody added a use since it was read. */
export function usageDeletedItem(orgId: string, libraryId: string, childId: string, readRev: number | undefined): WriteItem {
  return {
    Put: {
      Item: { ...usageKey(orgId, libraryId, childId), entity: 'Usage', childId, deleted: true },
      ...(readRev === undefined ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': readRev } }),
    },
  };
}

/** Removes assemblies from a child's entry once their lines are gone (after the write that removed them). */
export async function removeUsage(store: Store, orgId: string, libraryId: string, childId: string, assemblyIds: string[]): Promise<void> {
  if (assemblyIds.length === 0) return;
  // No entry (a deleted child's mark was replaced meanwhile) means nothing to remove.
  await updateIf(store, {
    Key: usageKey(orgId, libraryId, childId),
    UpdateExpression: 'DELETE assemblies :assemblies ADD rev :one',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':assemblies': new Set(assemblyIds), ':one': 1 },
  });
}

/** Why a removal after a write did not apply: the BOM moved on, or an entry is gone. Never leaves this file. */
class RemovalSkipped extends Error {}

/** Items of a transaction: at most 100; one goes to the BOM check. */
const removalsPerTransaction = 99;

/**
 * After an item write committed: removes `assemblyId` from the entries of the children its BOM no longer
 * uses, while that BOM is still the one the write made (`bomVersion`, a ConditionCheck in the same
 * transaction). A later write of the assembly may have put such a child back in between: its transaction
 * added the assembly to an entry that still named it, so removing it now would leave a BOM line without
 * its entry (whereUsed would miss the assembly, and a delete of the child would be let through). Then
 * nothing is removed: a stale entry is harmless (readers and deletes confirm entries against the BOMs), a
 * missing one is not. An entry that is gone, or a transaction that met another, is retried child by child;
 * what still does not apply stays stale.
 */
export async function removeUsageAfterWrite(store: Store, orgId: string, libraryId: string, assemblyId: string, bomVersion: number, childIds: string[]): Promise<void> {
  const bomCheck: WriteItem = {
    ConditionCheck: { Key: bomKey(orgId, libraryId, assemblyId), ConditionExpression: 'bomVersion = :v', ExpressionAttributeValues: { ':v': bomVersion } },
    onConditionFailed: () => new RemovalSkipped('the BOM moved on'),
  };
  const removal = (childId: string): WriteItem => ({
    Update: {
      Key: usageKey(orgId, libraryId, childId),
      UpdateExpression: 'DELETE assemblies :assemblies ADD rev :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':assemblies': new Set([assemblyId]), ':one': 1 },
    },
    onConditionFailed: () => new RemovalSkipped('no entry'),
  });
  const attempt = async (children: string[]): Promise<'done' | 'moved' | 'retry'> => {
    try {
      await transactWrite(store, [bomCheck, ...children.map(removal)], { onConflict: () => new RemovalSkipped('conflict') });
      return 'done';
    } catch (error) {
      if (!(error instanceof RemovalSkipped || error instanceof ConcurrentWriteError)) throw error;
      return error.message === 'the BOM moved on' ? 'moved' : 'retry';
    }
  };
  for (let start = 0; start < childIds.length; start += removalsPerTransaction) {
    const chunk = childIds.slice(start, start + removalsPerTransaction);
    const outcome = await attempt(chunk);
    if (outcome === 'moved') return;
    if (outcome === 'retry' && chunk.length > 1) for (const childId of chunk) if ((await attempt([childId])) === 'moved') return;
  }
}
