import { randomUUID } from 'node:crypto';
import { parseDateTimeInput } from '../model/dateTime.js';
import * as z from 'zod';
import type { LibraryScope } from '../model/scope.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { ChangeOrderError } from './errors.js';
import { changeOrderPut, changeOrderUseAdd, nextChangeOrderNumber, removeChangeOrderUse, type ChangeOrderRecord } from '../store/changeOrder.js';
import { unsentChangeOrderMailDeletes } from '../store/changeOrderMail.js';
import type { Store } from '../store/client.js';
import { getComponents, type ComponentRecord } from '../store/component.js';
import { getMemberships } from '../store/membership.js';
import { nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { act, type ChangeOrderDeps } from './act.js';
import { stageOutcome, type ApprovalType } from './lifecycle.js';
import { createdMail, mailOutboxItem, resolutionMail, reviewerMail } from './notifications.js';
import { maxComponentsPerChangeOrder, release } from './release.js';
import { history, locking, maxLocksInOneTransaction, resolve, unlocking } from './step.js';
import { getTemplates, type ChangeOrderTemplate } from './templates.js';
import { requireValid, validateChangeOrder } from './validation.js';
import { validateValues } from './values.js';

/** The change order actions (changeOrders.create, update, delete, submit, approve, reject, ...). */

/** The longest change order description (characters). */
export const maxChangeOrderDescription = 10_000;

const stageInput = z.object({
  index: z.number().int().min(0),
  reviewerIds: z.array(z.string()).max(100).nullish(),
  approvalType: z.enum(['Unanimous', 'Majority', 'Minimum']).nullish(),
  minReviewers: z.number().int().min(1).max(100).nullish(),
});

export const createChangeOrderInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(200, 'name is at most 200 characters'),
  description: z.string().max(maxChangeOrderDescription).nullish(),
  templateId: z.string().min(1).max(128),
  componentIds: z.array(z.string().max(128)).max(maxComponentsPerChangeOrder, `at most ${maxComponentsPerChangeOrder} components per change order`).nullish(),
  values: z.unknown().optional(),
  stages: z.array(stageInput).max(50).nullish(),
  effectivity: z.enum(['IMMEDIATE', 'ON_DATE']).nullish(),
  effectiveAt: z.string().max(40).nullish(),
});

/**
 * The effectivity a create or update asks for: ON_DATE needs an effectiveAt in the future (normalized to
 * ISO UTC); IMMEDIATE takes none. Undefined when the input names neither (an update keeps what it had).
 */
export function effectivityOf(input: { effectivity?: 'IMMEDIATE' | 'ON_DATE' | null; effectiveAt?: string | null }, now = Date.now()) {
  if (input.effectivity === undefined && input.effectiveAt === undefined) return undefined;
  const effectivity = input.effectivity ?? (input.effectiveAt ? 'ON_DATE' : 'IMMEDIATE');
  if (effectivity === 'IMMEDIATE') {
    if (input.effectiveAt) throw new InvalidInputError('input.effectiveAt: only with effectivity ON_DATE', { field: 'input.effectiveAt' });
    return { effectivity, effectiveAt: null };
  }
  if (!input.effectiveAt) throw new InvalidInputError('input.effectiveAt: ON_DATE needs the date the released revisions take effect', { field: 'input.effectiveAt' });
  // Years 0000 to 9999 only: a signed year (+275760-...) compares before every stored time, and a release would take effect at once.
  const effectiveAt = parseDateTimeInput(input.effectiveAt, 'input.effectiveAt');
  if (Date.parse(effectiveAt) <= now) throw new InvalidInputError(`input.effectiveAt: ${input.effectiveAt} is in the past; ON_DATE takes a future date`, { field: 'input.effectiveAt' });
  return { effectivity, effectiveAt };
}

/**
 * An update: omitted fields stay; null empties what may be empty (description, componentIds, values), gives
 * stages the template's defaults (as a create without stages); a null name is refused (partial() is not nullable).
 */
export const updateChangeOrderInput = createChangeOrderInput.omit({ templateId: true }).partial().extend({ id: z.string() });

function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = `input.${issue.path.join('.')}`;
    if (issue.code === 'too_big' && issue.path[0] === 'componentIds') throw new ChangeOrderError('CHANGE_ORDER_TOO_LARGE', `${field}: ${issue.message}`, { limit: maxComponentsPerChangeOrder });
    throw new InvalidInputError(`${field}: ${issue.message}`, { field });
  }
  return parsed.data;
}

type Participant = string | { id?: string | undefined; isRequired?: boolean | undefined; isRequiredToApprove?: boolean | undefined };

/** The stages of a new change order: the template's, with the reviewers and approval choices the author adds. */
async function buildStages(store: Store, scope: LibraryScope, template: ChangeOrderTemplate, inputs: z.infer<typeof stageInput>[]) {
  const open = template.document.stages.open;
  for (const input of inputs)
    if (input.index >= open.length) throw new InvalidInputError(`input.stages: the template has ${open.length} stage(s); there is no stage ${input.index}`, { field: 'input.stages' });
  // One entry per stage: a second one for an index was never read (its reviewers silently left out).
  const repeated = inputs.find((input, i) => inputs.findIndex((other) => other.index === input.index) !== i);
  if (repeated) throw new InvalidInputError(`input.stages: stage ${repeated.index} is named more than once; give its reviewers and choices in one entry`, { field: 'input.stages' });
  const added = inputs.flatMap((input) => input.reviewerIds ?? []).map((id) => id.toLowerCase());
  const members = await getMemberships(store, scope.organizationId, [...new Set(added)]);
  const outsiders = added.filter((id) => !members.has(id));
  if (outsiders.length)
    throw new InvalidInputError(`input.stages: ${outsiders.join(', ')} ${outsiders.length > 1 ? 'are not members' : 'is not a member'} of this organization`, { field: 'input.stages' });
  return open.map((stage, index) => {
    const input = inputs.find((candidate) => candidate.index === index);
    const approvalType: ApprovalType = input?.approvalType ?? stage.default;
    if (!stage.types.includes(approvalType)) throw new InvalidInputError(`input.stages[${index}].approvalType: stage "${stage.name}" allows ${stage.types.join(', ')}`, { field: 'input.stages' });
    const reviewers: { userId: string; isRequired: boolean; isRequiredToApprove: boolean }[] = [];
    for (const user of [...((stage.reviewers?.users ?? []) as Participant[]), ...(input?.reviewerIds ?? []).map((id) => id.toLowerCase())]) {
      const userId = typeof user === 'string' ? user : user.id!;
      if (reviewers.some((r) => r.userId === userId)) continue;
      reviewers.push({ userId, isRequired: typeof user === 'object' && !!user.isRequired, isRequiredToApprove: typeof user === 'object' && !!user.isRequiredToApprove });
    }
    const notify = stage.notifyList;
    return {
      name: stage.name,
      approvalType,
      minReviewers: input?.minReviewers ?? stage.minReviewers ?? 1,
      reviewers,
      decisions: [],
      openedAt: null,
      closedAt: null,
      outcome: null,
      notifyUserIds: ((notify?.users ?? []) as Participant[]).map((user) => (typeof user === 'string' ? user : user.id!)),
      notifyEmails: notify?.emails ?? [],
    };
  });
}

/** The components named, in the order given (duplicates dropped); NOT_FOUND names any that do not exist. */
async function requireComponents(store: Store, scope: LibraryScope, ids: readonly string[], leaveOutDeleted = false): Promise<ComponentRecord[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const found = await getComponents(store, scope.organizationId, scope.libraryId, unique);
  if (leaveOutDeleted) return unique.filter((id) => found.has(id)).map((id) => found.get(id)!);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw new NotFoundError('Component', missing.join(', '));
  return unique.map((id) => found.get(id)!);
}

async function findTemplate(store: Store, scope: LibraryScope, id: string): Promise<ChangeOrderTemplate> {
  const template = (await getTemplates(store, scope)).find((candidate) => candidate.id === id);
  if (!template) throw new NotFoundError('Change order template', id);
  return template;
}

/** changeOrders.create: a DRAFT change order; each stage's notifyList is told. */
export async function createChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, rawInput: unknown): Promise<ChangeOrderRecord> {
  return createChangeOrderWith(deps, scope, rawInput);
}

/**
 * A new DRAFT change order written with `extra` items in its transaction (the requests promote links to it).
 * `leaveOutDeleted`: components deleted since they were named are left out instead of refused (NOT_FOUND).
 */
export async function createChangeOrderWith(
  deps: ChangeOrderDeps,
  scope: LibraryScope,
  rawInput: unknown,
  link?: { changeRequestIds: string[]; items: (record: ChangeOrderRecord) => WriteItem[]; leaveOutDeleted?: boolean },
): Promise<ChangeOrderRecord> {
  const input = parse(createChangeOrderInput, rawInput);
  const template = await findTemplate(deps.store, scope, input.templateId);
  const values = validateValues(template.document, input.values);
  const components = await requireComponents(deps.store, scope, input.componentIds ?? [], link?.leaveOutDeleted);
  const stages = await buildStages(deps.store, scope, template, input.stages ?? []);
  const effectivity = effectivityOf(input) ?? { effectivity: 'IMMEDIATE' as const, effectiveAt: null };
  const at = nowIso();
  const record: ChangeOrderRecord = {
    id: randomUUID(),
    number: await nextChangeOrderNumber(deps.store, scope.organizationId, scope.libraryId),
    organizationId: scope.organizationId,
    libraryId: scope.libraryId,
    name: input.name,
    description: input.description ?? null,
    templateId: template.id,
    templateName: template.name,
    status: 'DRAFT',
    resolution: null,
    currentStage: null,
    stages,
    components: components.map((c) => ({ componentId: c.id, fromRevision: c.revisionValue, toRevision: null })),
    values,
    resolutions: template.document.stages.resolved?.resolutions ?? {},
    history: [{ action: 'CREATE', by: scope.userId, at, comment: null, status: 'DRAFT' }],
    createdBy: scope.userId,
    createdAt: at,
    updatedAt: at,
    rev: 0,
    warnings: [],
    changeRequestIds: link?.changeRequestIds ?? [],
    ...effectivity,
  };
  const uses = record.components.map((c) => changeOrderUseAdd(scope.organizationId, scope.libraryId, c.componentId, record.id));
  const linkItems = link?.items(record) ?? [];
  // The index entries go with the order when they fit its transaction, else just before it (an entry of an
  // order that was never written is harmless: readers confirm each against the order). The created mail goes
  // with it as an outbox item (sent from the stream: notifications.ts): order, entries and mail, at most 100.
  const together = uses.length + linkItems.length <= maxLocksInOneTransaction;
  if (!together) await writeUses(deps, uses);
  await transactWrite(deps.store, [changeOrderPut(record, null), ...(together ? uses : []), ...linkItems, ...mailOutboxItem(record, [createdMail(record, template)], at)]);
  return record;
}

export function submitChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string) {
  return act(deps, scope, id, 'submit', async (record, at) => {
    if (record.components.length === 0) throw new ChangeOrderError('CHANGE_ORDER_EMPTY', `${record.number} has no components: add some before submitting`);
    record.stages.forEach((stage, index) => {
      const needed = stage.approvalType === 'Minimum' ? stage.minReviewers : 1;
      if (stage.reviewers.length < needed) {
        throw new ChangeOrderError('STAGE_WITHOUT_REVIEWERS', `Stage ${index} "${stage.name}" needs at least ${needed} reviewer(s) (${stage.approvalType}); it has ${stage.reviewers.length}`, {
          stage: index,
        });
      }
    });
    // The checks of changeOrders.validate: an ERROR refuses (CHANGE_ORDER_INVALID), the warnings are kept.
    record.warnings = requireValid(record, await validateChangeOrder(deps.store, scope, record));
    // The revision each component leaves, as it is now: held from this submit on, it can no longer change (another
    // order may have released it since this one was drafted, and fromRevision named the revision before that).
    const current = await getComponents(
      deps.store,
      scope.organizationId,
      scope.libraryId,
      record.components.map((c) => c.componentId),
      true,
    );
    for (const entry of record.components) entry.fromRevision = current.get(entry.componentId)?.revisionValue ?? entry.fromRevision;
    record.status = 'OPEN';
    record.currentStage = 0;
    record.stages[0]!.openedAt = at;
    history(record, 'SUBMIT', scope.userId, at);
    return { record, ...locking(record), mails: [reviewerMail(record, 0)] };
  });
}

/** changeOrders.approve / reject: a decision of a reviewer of the current stage, once per stage. */
export function decide(deps: ChangeOrderDeps, scope: LibraryScope, id: string, decision: 'APPROVE' | 'REJECT', comment: string | null | undefined) {
  if (comment && comment.length > 5000) throw new InvalidInputError('comment is at most 5,000 characters', { field: 'comment' });
  return act(deps, scope, id, decision === 'APPROVE' ? 'approve' : 'reject', async (record, at) => {
    const stage = record.stages[record.currentStage!]!;
    if (!stage.reviewers.some((r) => r.userId === scope.userId)) {
      throw new ChangeOrderError('NOT_A_REVIEWER', `You are not a reviewer of stage "${stage.name}" of ${record.number}`, { stage: record.currentStage });
    }
    if (stage.decisions.some((d) => d.userId === scope.userId)) throw new ChangeOrderError('ALREADY_DECIDED', `You have decided on stage "${stage.name}" of ${record.number} already`);
    stage.decisions.push({ userId: scope.userId, decision, comment: comment ?? null, at });
    history(record, decision, scope.userId, at, comment ?? null);
    const outcome = stageOutcome(stage);
    if (outcome === 'PENDING') return { record, items: [], mails: [] };
    stage.outcome = outcome;
    stage.closedAt = at;
    if (outcome === 'PASSED' && record.currentStage! + 1 < record.stages.length) {
      record.currentStage! += 1;
      record.stages[record.currentStage!]!.openedAt = at;
      return { record, items: [], mails: [reviewerMail(record, record.currentStage!)] };
    }
    if (outcome === 'PASSED')
      // The change requests promoted into the order close when the release's commit record settles.
      return { ...(await release(deps.store, scope, record, at, { fail: deps.failRelease, crash: deps.crashRelease })), mails: [resolutionMail(record)] };
    resolve(record, 'REJECTED', at, scope.userId);
    return { record, ...unlocking(record), mails: [resolutionMail(record)] };
  });
}

export function withdrawChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string) {
  return act(deps, scope, id, 'withdraw', async (record, at) => {
    resolve(record, 'WITHDRAWN', at, scope.userId);
    return { record, ...unlocking(record), mails: [resolutionMail(record)] };
  });
}

export function holdChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string, hold: boolean) {
  return act(deps, scope, id, hold ? 'hold' : 'resume', async (record, at) => {
    record.status = hold ? 'ON_HOLD' : 'OPEN';
    history(record, hold ? 'HOLD' : 'RESUME', scope.userId, at);
    return { record, items: [], mails: [] };
  });
}

export function closeChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string) {
  return act(deps, scope, id, 'close', async (record, at) => {
    record.status = 'CLOSED';
    history(record, 'CLOSE', scope.userId, at);
    return { record, items: [], mails: [] };
  });
}

/** changeOrders.reset: back to DRAFT with every decision cleared and the components unlocked; not after a release. */
export function resetChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string) {
  return act(deps, scope, id, 'reset', async (record, at) => {
    if (record.resolution === 'APPROVED')
      throw new ChangeOrderError('CHANGE_ORDER_STATE', `${record.number} was approved and its components released: it cannot be reset`, { status: record.status, action: 'reset' });
    const locked = record.status === 'OPEN' || record.status === 'ON_HOLD';
    const unlocks = locked ? unlocking(record) : { items: [] };
    record.status = 'DRAFT';
    record.resolution = null;
    record.currentStage = null;
    for (const stage of record.stages) Object.assign(stage, { decisions: [], openedAt: null, closedAt: null, outcome: null });
    history(record, 'RESET', scope.userId, at);
    return { record, ...unlocks, mails: [] };
  });
}

/** changeOrders.update: a DRAFT's name, description, components, values and stage choices. */
export function updateChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, rawInput: unknown) {
  const input = parse(updateChangeOrderInput, rawInput);
  return act(deps, scope, input.id, 'update', async (record, at) => {
    const template = await findTemplate(deps.store, scope, record.templateId);
    if (input.name !== undefined) record.name = input.name;
    if (input.description !== undefined) record.description = input.description ?? null;
    if (input.values !== undefined) record.values = validateValues(template.document, input.values);
    const before = new Set(record.components.map((c) => c.componentId));
    if (input.componentIds !== undefined) {
      const components = await requireComponents(deps.store, scope, input.componentIds ?? []);
      record.components = components.map((c) => ({ componentId: c.id, fromRevision: c.revisionValue, toRevision: null }));
    }
    if (input.stages !== undefined) record.stages = await buildStages(deps.store, scope, template, input.stages ?? []);
    const effectivity = effectivityOf(input);
    if (effectivity) Object.assign(record, effectivity);
    history(record, 'UPDATE', scope.userId, at);
    const after = new Set(record.components.map((c) => c.componentId));
    const added = [...after].filter((componentId) => !before.has(componentId));
    const letGo = [...before].filter((componentId) => !after.has(componentId));
    const uses = added.map((componentId) => changeOrderUseAdd(scope.organizationId, scope.libraryId, componentId, record.id));
    const together = uses.length <= maxLocksInOneTransaction;
    if (!together) await writeUses(deps, uses);
    return {
      record,
      items: together ? uses : [],
      mails: [],
      afterCommit: () => forgetUses(deps, scope, record.id, letGo),
    };
  });
}

export async function deleteChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string): Promise<boolean> {
  await act(deps, scope, id, 'delete', async (record) => ({
    record,
    items: await unsentChangeOrderMailDeletes(deps.store, scope.organizationId, scope.libraryId, record.id),
    mails: [],
    afterCommit: () =>
      forgetUses(
        deps,
        scope,
        record.id,
        record.components.map((c) => c.componentId),
      ),
  }));
  return true;
}

/** Index entries of a large order, before its own write: transactions of 100 (each entry an ADD to a set, repeatable). */
async function writeUses(deps: ChangeOrderDeps, uses: WriteItem[]): Promise<void> {
  for (let start = 0; start < uses.length; start += 100) await transactWrite(deps.store, uses.slice(start, start + 100));
}

/** Takes a change order out of the index entries of components it no longer holds. */
async function forgetUses(deps: ChangeOrderDeps, scope: LibraryScope, changeOrderId: string, componentIds: string[]): Promise<void> {
  for (const componentId of componentIds) await removeChangeOrderUse(deps.store, scope.organizationId, scope.libraryId, componentId, changeOrderId);
}
