import { ComponentLockedError } from '../errors.js';
import { normalizeCpn } from '../config/cpnScheme.js';
import type { Store } from '../store/client.js';
import { getComponents, normalizeMpn, type ComponentRecord } from '../store/component.js';
import { listComponentHistoryKeys } from '../store/componentHistory.js';
import { componentDeleteItems } from '../store/componentWrites.js';
import { cpnKey } from '../store/cpn.js';
import { deleteItems, explainedBy, failingWith, transactWrite } from '../store/items.js';
import { bomDelete, documentLinksDelete, getBoms, listBomSnapshotKeys } from '../store/bom.js';
import { listPendingWrites } from '../store/pendingWrite.js';
import { getUsages, removeUsage, usageDeletedItem, type UsageRecord } from '../store/usage.js';
import { searchEntryTombstone } from '../search/entries.js';
import { ConcurrentWriteError, VersionConflictError } from '../errors.js';
import { ComponentInUseError, TooManyInputsError } from './errors.js';
import type { WriteContext } from './rules.js';
import { getSourcings, mpnIndexKey, sourcingDelete } from '../store/sourcing.js';

/** component, CPN claim, search entry, BOM, document links, where-used mark, sourcing item: 16 deletions fill one transaction (96 items). */
export const maxDeletesPerCall = 16;

export interface DeleteResult {
  deletedIds: string[];
  notFoundIds: string[];
}

/**
 * Deletes components permanently: the component and its history go; its CPN stays claimed (marked
 * deleted) so that it is never reused. A component that a current BOM uses is refused (COMPONENT_IN_USE,
 * naming the assemblies), unless those assemblies go in the same call. The component, CPN, BOM, links
 * and where-used changes are one transaction, conditional on the where-used entry read, so that a write
 * adding the component as a child at the same time and this delete cannot both land. History items are
 * removed after it, and are unreachable once their component is gone. Its sourcing item goes in the
 * transaction; its MPN index entries (up to one per part) after it, as the sourcing item read names them
 * (every sourcing write moves the component's version, on which the delete is conditioned).
 */
export async function deleteComponents(store: Store, ctx: WriteContext, ids: string[]): Promise<DeleteResult> {
  if (ids.length > maxDeletesPerCall) throw new TooManyInputsError('component.delete', maxDeletesPerCall, ids.length);
  const unique = [...new Set(ids)];
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await deleteOnce(store, ctx, ids, unique);
    } catch (error) {
      // The where-used entry changed between the read and the write: read again (the next attempt
      // reports the new use, or deletes).
      if (!(error instanceof UsageChangedError) || attempt >= 3) throw error instanceof UsageChangedError ? new ConcurrentWriteError('A BOM using these components') : error;
    }
  }
}

class UsageChangedError extends Error {}

async function deleteOnce(store: Store, ctx: WriteContext, ids: string[], unique: string[]): Promise<DeleteResult> {
  const { organizationId: org, libraryId: lib } = ctx;
  const [current, usages, ownBoms, sourcing] = await Promise.all([
    getComponents(store, org, lib, unique, true),
    getUsages(store, org, lib, unique, true),
    getBoms(store, org, lib, unique, true),
    getSourcings(store, org, lib, unique, true),
  ]);
  const found = unique.filter((id) => current.has(id));
  if (found.length === 0) return { deletedIds: [], notFoundIds: unique };
  await refuseComponentsInUse(store, ctx, ids, found, current, usages);
  const locked = found.filter((id) => current.get(id)!.lockedBy);
  if (locked.length) throw new ComponentLockedError(locked[0]!, current.get(locked[0]!)!.lockedBy!);

  await transactWrite(
    store,
    found.flatMap((id) => {
      const record = current.get(id)!;
      const changed = () => new VersionConflictError(id, record.version, undefined, ids.indexOf(id));
      return explainedBy(
        [
          ...componentDeleteItems(record, cpnKey(org, lib, normalizeCpn(ctx.config.cpnScheme, record.cpn)), ctx.at),
          searchEntryTombstone(org, lib, id, ctx.at, record.createdAt),
          // Its BOM and document links go with it, so where-used never names a deleted assembly.
          bomDelete(org, lib, id),
          documentLinksDelete(org, lib, id),
          sourcingDelete(org, lib, id),
          failingWith(usageDeletedItem(org, lib, id, usages.get(id)?.rev), () => new UsageChangedError()),
        ],
        changed,
      );
    }),
  );
  // The deleted assemblies no longer use their children.
  const childrenOfDeleted = new Map<string, string[]>();
  for (const [assemblyId, bom] of ownBoms) for (const childId of bom.childIds) childrenOfDeleted.set(childId, [...(childrenOfDeleted.get(childId) ?? []), assemblyId]);
  await Promise.all([...childrenOfDeleted].filter(([childId]) => !found.includes(childId)).map(([childId, assemblyIds]) => removeUsage(store, org, lib, childId, assemblyIds)));
  const mpnKeys = found.flatMap((id) => [...new Set((sourcing.get(id)?.parts ?? []).map((p) => normalizeMpn(p.mpn)))].map((mpn) => mpnIndexKey(org, lib, mpn, id)));
  if (mpnKeys.length > 0) await deleteItems(store, mpnKeys);
  for (const id of found) {
    await deleteItems(store, [...(await listComponentHistoryKeys(store, org, lib, id)), ...(await listBomSnapshotKeys(store, org, lib, id))]);
  }
  return { deletedIds: found, notFoundIds: unique.filter((id) => !current.has(id)) };
}

/**
 * Refuses the first component a current BOM uses, naming the assemblies; assemblies deleted by the same
 * call do not count. An entry whose assembly no longer has the line is stale (its write removed the line
 * or never committed); while a large item write is in flight, a stale-looking entry may be about to
 * commit, so the delete waits for it (a conflict to retry).
 */
async function refuseComponentsInUse(store: Store, ctx: WriteContext, ids: string[], found: string[], current: Map<string, ComponentRecord>, usages: Map<string, UsageRecord>): Promise<void> {
  const { organizationId: org, libraryId: lib } = ctx;
  const deleting = new Set(found);
  const listed = new Map(found.map((id) => [id, [...(usages.get(id)?.assemblies ?? [])].filter((assemblyId) => !deleting.has(assemblyId))]));
  const assemblyIds = [...new Set([...listed.values()].flat())];
  if (assemblyIds.length === 0) return;
  const [boms, assemblies] = await Promise.all([getBoms(store, org, lib, assemblyIds, true), getComponents(store, org, lib, assemblyIds, true)]);
  for (const [id, candidates] of listed) {
    const users = candidates.filter((assemblyId) => boms.get(assemblyId)?.childIds.includes(id) && assemblies.has(assemblyId));
    if (users.length > 0) {
      const component = current.get(id)!;
      throw new ComponentInUseError(
        id,
        component.name,
        users.map((assemblyId) => ({ id: assemblyId, name: assemblies.get(assemblyId)!.name, cpn: assemblies.get(assemblyId)!.cpn })),
        ids.indexOf(id),
      );
    }
  }
  const inFlight = (await listPendingWrites(store, org, lib)).some((write) => write.status === 'PENDING');
  if (inFlight) throw new ConcurrentWriteError('A large item write in progress that may use these components');
}
