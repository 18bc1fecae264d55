import { normalizeCpn, type CpnScheme } from '../config/cpnScheme.js';
import { searchEntryPut } from '../search/entries.js';
import { type ComponentRecord } from '../store/component.js';
import { componentHistoryPut, type ComponentHistoryRecord, type HistoryChange } from '../store/componentHistory.js';
import { componentCreatePut, componentVersionPut } from '../store/componentWrites.js';
import { cpnClaimPut } from '../store/cpn.js';
import type { ConditionFailure, WriteItem } from '../store/items.js';
import { diffComponents, type WriteContext } from './rules.js';

/** The transaction items of component writes, shared by component.* and item.* writes. */

/** `blind`: the update's blind attributes (blindAttributes), recorded as changed even when their values stay. */
export function historyRecord(ctx: WriteContext, before: ComponentRecord | null, after: ComponentRecord, relationChanges: HistoryChange[] = [], blind: readonly string[] = []): ComponentHistoryRecord {
  return {
    componentId: after.id,
    version: after.version,
    action: before ? 'UPDATE' : 'CREATE',
    at: ctx.at,
    by: ctx.userId,
    actingIntegrationId: ctx.actingIntegrationId,
    changes: [...diffComponents(before, after, blind), ...relationChanges],
  };
}

/**
 * A new component: the component, its first history record, its search entry and its CPN claim (in this
 * order). `writeId` marks items of a large item write that are invisible until that write commits.
 */
export function newComponentItems(ctx: WriteContext, scheme: CpnScheme, record: ComponentRecord, relationChanges: HistoryChange[] = [], writeId?: string, cpnTaken?: ConditionFailure): WriteItem[] {
  const { organizationId: org, libraryId: lib } = ctx;
  return [
    componentCreatePut(record, writeId),
    componentHistoryPut(org, lib, historyRecord(ctx, null, record, relationChanges), { once: false, writeId }),
    searchEntryPut(record, writeId),
    cpnClaimPut(org, lib, normalizeCpn(scheme, record.cpn), { cpn: record.cpn, componentId: record.id, at: ctx.at }, { writeId, onConditionFailed: cpnTaken }),
  ];
}

/** Index of the CPN claim within newComponentItems. */
export const cpnClaimOffset = 3;

/**
 * A new version of a component (conditional on the version and lock read), its history record, its search
 * entry. `blind`: as for historyRecord.
 */
export function updatedComponentItems(ctx: WriteContext, before: ComponentRecord, after: ComponentRecord, relationChanges: HistoryChange[] = [], blind: readonly string[] = []): WriteItem[] {
  return [
    componentVersionPut(after, { version: before.version, lockedBy: before.lockedBy }),
    componentHistoryPut(ctx.organizationId, ctx.libraryId, historyRecord(ctx, before, after, relationChanges, blind), { once: true }),
    searchEntryPut(after),
  ];
}

/** The next version of a component after a change (RELEASED becomes MODIFIED). */
export function nextVersion(ctx: WriteContext, before: ComponentRecord, applied: ComponentRecord): ComponentRecord {
  return { ...applied, version: before.version + 1, state: before.state === 'RELEASED' ? 'MODIFIED' : applied.state, updatedAt: ctx.at, updatedBy: ctx.userId };
}
