import { randomUUID } from 'node:crypto';

import { normalizeCpn } from '../config/cpnScheme.js';

import { findCategory } from '../config/libraryConfig.js';

import type { Store } from '../store/client.js';
import { getComponents, type ComponentRecord } from '../store/component.js';

import { explainedBy, transactWrite } from '../store/items.js';

import { bomEmptyCheck } from '../store/bom.js';

import type { CreateComponentCommand, UpdateComponentCommand } from './commands.js';
import { allocateCpn, assertChosenCpnsFree, planCpn } from './cpn.js';

import { BomError, ComponentInputError, ComponentNotFoundError, ConcurrentWriteError, FileError, VersionConflictError } from '../errors.js';
import { CpnError, TooManyInputsError } from './errors.js';
import { checkInputIds } from '../input.js';

import { applyUpdate, buildNewComponent, updateChanges, type WriteContext } from './rules.js';

import { newComponentItems, nextVersion, updatedComponentItems } from './transactItems.js';

/** Inputs per component.create / component.update call: each is 3 or 4 items of one transaction. */
export const maxComponentsPerCall = 25;

/** The CPN claim of a new component was taken (a CPN chosen by hand earlier, or by a concurrent call). */
class CpnClaimLostError extends Error {
  constructor(readonly inputIndex: number) {
    super(`The CPN of inputs[${inputIndex}] was taken`);
  }
}

/** A component changed since it was read (or a concurrent transaction wrote it): read again, or report. */
class ComponentChangedError extends Error {
  constructor(
    readonly component: ComponentRecord,
    readonly inputIndex: number,
    readonly conflict: boolean,
  ) {
    super(`Component ${component.id} changed meanwhile`);
  }
}

/**
 * Files the records refer to that their previous versions did not must be completed uploads of the
 * library; a failure names the input it belongs to.
 */
async function checkFilesOfInputs(ctx: WriteContext, records: (Omit<ComponentRecord, 'cpn'> | null)[], previous: (ComponentRecord | undefined)[]): Promise<void> {
  const inputOf = new Map<string, number>();
  records.forEach((record, index) => {
    const known = new Set([previous[index]?.fileId, previous[index]?.imageFileId]);
    for (const id of [record?.fileId, record?.imageFileId]) if (id && !known.has(id) && !inputOf.has(id)) inputOf.set(id, index);
  });
  if (inputOf.size === 0) return;
  try {
    await ctx.checkFiles([...inputOf.keys()]);
  } catch (error) {
    if (error instanceof FileError && typeof error.details.fileId === 'string') throw error.forInput(inputOf.get(error.details.fileId) ?? 0);
    throw error;
  }
}

function checkCount(operation: string, count: number): void {
  if (count > maxComponentsPerCall) throw new TooManyInputsError(operation, maxComponentsPerCall, count);
}

/**
 * Creates components, all or none: every input is validated first, then CPN counters are allocated,
 * then one transaction writes each component, its first history record and its CPN claim. A generated
 * CPN that collides with a caller-chosen one is re-allocated.
 */
export async function createComponents(store: Store, ctx: WriteContext, inputs: CreateComponentCommand[]): Promise<ComponentRecord[]> {
  checkCount('component.create', inputs.length);
  const planned = inputs.map((input, index) => {
    const draft = buildNewComponent(ctx, input, index, randomUUID());
    const category = findCategory(ctx.config, draft.categoryId)!;
    return { draft, plan: planCpn(ctx.config.cpnScheme, input, category, index) };
  });
  await checkFilesOfInputs(
    ctx,
    planned.map(({ draft }) => draft),
    [],
  );
  const scheme = ctx.config.cpnScheme;
  const chosen = new Map<string, number>();
  planned.forEach(({ plan }, index) => {
    if (plan.kind !== 'chosen') return;
    const key = normalizeCpn(scheme, plan.cpn);
    if (chosen.has(key)) throw new CpnError('CPN_TAKEN', `CPN "${plan.cpn}" is given to two inputs of this call`, index, { cpn: plan.cpn });
    chosen.set(key, index);
  });

  await assertChosenCpnsFree(
    store,
    ctx.organizationId,
    ctx.libraryId,
    scheme,
    planned.map(({ plan }, inputIndex) => ({ plan, inputIndex })),
  );
  const cpns: string[] = [];
  for (const [index, { plan }] of planned.entries()) cpns.push(await allocateCpn(store, ctx.organizationId, ctx.libraryId, scheme, plan, index));

  for (let attempt = 0; ; attempt += 1) {
    const records = planned.map(({ draft }, index) => ({ ...draft, cpn: cpns[index]! }));
    try {
      const items = records.flatMap((record, index) => newComponentItems(ctx, scheme, record, [], undefined, () => new CpnClaimLostError(index)));
      await transactWrite(store, items, { onConflict: () => new ConcurrentWriteError('A CPN of this call') });
      return records;
    } catch (error) {
      if (error instanceof ConcurrentWriteError) {
        if (attempt >= 5) throw error;
        continue;
      }
      if (!(error instanceof CpnClaimLostError)) throw error;
      const index = error.inputIndex;
      const plan = planned[index]!.plan;
      // Generated CPNs step past values chosen by hand earlier, one counter value per attempt.
      if (plan.kind === 'chosen' || attempt >= 50) {
        throw new CpnError('CPN_TAKEN', `CPN "${cpns[index]}" is already used in this library (CPNs are never reused)`, index, { cpn: cpns[index] });
      }
      // A generated CPN met one chosen earlier by hand: take the next counter value and try again.
      cpns[index] = await allocateCpn(store, ctx.organizationId, ctx.libraryId, scheme, plan, index);
    }
  }
}

/**
 * Updates components, all or none. Each input is checked against the stored version (expectedVersion,
 * when given); the write is conditional on the version read, so a concurrent update is never lost: with
 * an expectedVersion the loser gets VERSION_CONFLICT, without one the call re-reads and re-applies.
 * `known`: components the caller has just read (consistently); the first attempt uses them instead of
 * reading again, and a stale one only costs a retry.
 */
export async function updateComponents(store: Store, ctx: WriteContext, inputs: UpdateComponentCommand[], known?: ReadonlyMap<string, ComponentRecord>): Promise<ComponentRecord[]> {
  return (await updateComponentVersions(store, ctx, inputs, known)).map((version) => version.after);
}

/**
 * updateComponents, answering each input's `before` (the version the update was applied to: after a retry,
 * the one read again, not the caller's `known`) beside its `after` (the same as `before` when nothing changed).
 */
export async function updateComponentVersions(
  store: Store,
  ctx: WriteContext,
  inputs: UpdateComponentCommand[],
  known?: ReadonlyMap<string, ComponentRecord>,
): Promise<{ before: ComponentRecord; after: ComponentRecord }[]> {
  checkCount('component.update', inputs.length);
  const ids = inputs.map((input) => input.id);
  checkInputIds(ids);
  for (let attempt = 0; ; attempt += 1) {
    const current = attempt === 0 && known && ids.every((id) => known.has(id)) ? known : await getComponents(store, ctx.organizationId, ctx.libraryId, ids, true);
    const results = inputs.map((input, index) => {
      const before = current.get(input.id);
      if (!before) throw new ComponentNotFoundError(input.id, index);
      if (input.expectedVersion !== undefined && input.expectedVersion !== null && input.expectedVersion !== before.version) {
        throw new VersionConflictError(input.id, input.expectedVersion, before.version, index);
      }
      const applied = applyUpdate(ctx, before, input, index);
      // A withheld attribute it sends is a change even when its value stays (blindAttributes).
      const { blind, changes } = updateChanges(ctx, before, applied, input);
      const changed = changes.length > 0;
      if (!changed) return { before, after: before, changed, blind };
      return { before, after: nextVersion(ctx, before, applied), changed, blind };
    });
    const writes = results.filter((r) => r.changed);
    const versions = () => results.map(({ before, after }) => ({ before, after }));
    if (writes.length === 0) return versions();
    await checkFilesOfInputs(
      ctx,
      results.map((r) => (r.changed ? r.after : null)),
      results.map((r) => r.before),
    );
    // An assembly that stops being one must have no BOM lines left (item.update can clear them with it).
    const inputIndexOf = (id: string) => inputs.findIndex((input) => input.id === id);
    const items = writes.flatMap(({ before, after, blind }) => {
      const index = inputIndexOf(before.id);
      const writeItems = updatedComponentItems(ctx, before, after, [], blind);
      if (before.category.type === 'ASSEMBLY' && after.category.type !== 'ASSEMBLY') {
        writeItems.push(
          bomEmptyCheck(
            ctx.organizationId,
            ctx.libraryId,
            before.id,
            () =>
              new BomError('NOT_AN_ASSEMBLY', `inputs[${index}]: ${before.name} has BOM lines; clear them (item.update with children: []) before it stops being an assembly`, { inputIndex: index }),
          ),
        );
      }
      return explainedBy(writeItems, () => new ComponentChangedError(before, index, false));
    });
    try {
      const first = writes[0]!.before;
      await transactWrite(store, items, { onConflict: () => new ComponentChangedError(first, inputIndexOf(first.id), true) });
      return versions();
    } catch (error) {
      if (!(error instanceof ComponentChangedError)) throw error;
      const { component: lost, inputIndex: index, conflict } = error;
      const pinned = inputs[index]!.expectedVersion;
      if ((pinned !== undefined && pinned !== null) || attempt >= 4) {
        throw conflict ? new ConcurrentWriteError(`Component ${lost.id}`, index) : new VersionConflictError(lost.id, pinned ?? lost.version, undefined, index);
      }
    }
  }
}
