import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { LibraryScope } from '../model/scope.js';
import { diffComponents } from '../components/rules.js';
import { loadLibraryConfiguration } from '../config/libraryConfig.js';
import { nextRevision } from '../config/revisionScheme.js';
import { ChangeOrderError, ComponentLockedError, ConcurrentWriteError, InvalidInputError, NotFoundError } from '../errors.js';
import type { Mailer, OutboundMail } from '../mail/mailer.js';
import { searchEntryPut } from '../search/entries.js';
import {
  changeOrderDelete,
  changeOrderPut,
  componentLockUpdate,
  componentUnlockUpdate,
  getChangeOrder,
  listChangeOrders,
  nextChangeOrderNumber,
  type ChangeOrderRecord,
} from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { componentHistoryPut, componentKey, componentVersionPut, getComponents, type ComponentRecord } from '../store/component.js';
import { batchGetItems, failingWith, nowIso, putKeys, transactWrite, type Key, type WriteItem } from '../store/items.js';
import { commitPendingWriteUpdate, getPendingWrites, putPendingWrite } from '../store/pendingWrite.js';
import { settleAbortedWrite, settleCommittedWrite } from '../items/writer.js';
import { getMemberships } from '../store/membership.js';
import { getUser } from '../store/user.js';
import { allowedFrom, closesItself, stageOutcome, type ApprovalType, type ChangeOrderResolution } from './lifecycle.js';
import type { TemplateDocument } from './template.js';
import { isUuid } from '../model/slugs.js';
import { getTemplates, type ChangeOrderTemplate } from './templates.js';
import { validateValues } from './values.js';

/** DynamoDB's limit on the items of one transaction. */
const maxTransactionItems = 100;

/**
 * Components in one change order. A release changes every component, with the change order and the commit
 * record, in ONE transaction (n + 2 items), so it lands whole or not at all; see `release`.
 */
export const maxComponentsPerChangeOrder = maxTransactionItems - 2;

/** Up to this many components, a release also writes history and search entries in its one transaction. */
const singleTransactionRelease = Math.floor((maxTransactionItems - 1) / 3);

export interface ChangeOrderDeps {
  store: Store;
  mailer: Mailer;
  appUrl: string;
  /** Test hook of the local stack (x-plm-fault): the release transaction fails at its last item. */
  failRelease?: boolean;
}

const stageInput = z.object({
  index: z.number().int().min(0),
  reviewerIds: z.array(z.string()).max(100).nullish(),
  approvalType: z.enum(['Unanimous', 'Majority', 'Minimum']).nullish(),
  minReviewers: z.number().int().min(1).max(100).nullish(),
});
export const createChangeOrderInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(200, 'name is at most 200 characters'),
  description: z.string().max(10_000).nullish(),
  templateId: z.string().min(1).max(128),
  componentIds: z.array(z.string().max(128)).max(maxComponentsPerChangeOrder, `at most ${maxComponentsPerChangeOrder} components per change order`).nullish(),
  values: z.unknown().optional(),
  stages: z.array(stageInput).max(50).nullish(),
});
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
  for (const input of inputs) if (input.index >= open.length) throw new InvalidInputError(`input.stages: the template has ${open.length} stage(s); there is no stage ${input.index}`, { field: 'input.stages' });
  const added = inputs.flatMap((input) => input.reviewerIds ?? []).map((id) => id.toLowerCase());
  const members = await getMemberships(store, scope.organizationId, [...new Set(added)]);
  const outsiders = added.filter((id) => !members.has(id));
  if (outsiders.length) throw new InvalidInputError(`input.stages: ${outsiders.join(', ')} ${outsiders.length > 1 ? 'are not members' : 'is not a member'} of this organization`, { field: 'input.stages' });
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
async function requireComponents(store: Store, scope: LibraryScope, ids: readonly string[]): Promise<ComponentRecord[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const found = await getComponents(store, scope.organizationId, scope.libraryId, unique);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw new NotFoundError('Component', missing.join(', '));
  return unique.map((id) => found.get(id)!);
}

/** Raised inside an action when what it read is mid-change (another transaction committing): read again. */
class ReadAgain extends Error {}

async function findTemplate(store: Store, scope: LibraryScope, id: string): Promise<ChangeOrderTemplate> {
  const template = (await getTemplates(store, scope)).find((candidate) => candidate.id === id);
  if (!template) throw new NotFoundError('Change order template', id);
  return template;
}

/** changeOrders.create: a DRAFT change order; each stage's notifyList is told. */
export async function createChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, rawInput: unknown): Promise<ChangeOrderRecord> {
  const input = parse(createChangeOrderInput, rawInput);
  const template = await findTemplate(deps.store, scope, input.templateId);
  const values = validateValues(template.document, input.values);
  const components = await requireComponents(deps.store, scope, input.componentIds ?? []);
  const stages = await buildStages(deps.store, scope, template, input.stages ?? []);
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
  };
  await transactWrite(deps.store, [changeOrderPut(record, null)]);
  const recipients = stages.flatMap((stage) => stage.notifyUserIds);
  const emails = [...(await emailsOf(deps.store, recipients)), ...stages.flatMap((stage) => stage.notifyEmails)];
  await sendAll(deps, [...new Set(emails)], `${record.number} created: ${record.name}`, [
    `Change order ${record.number} "${record.name}" was created with ${record.components.length} component(s).`,
    `Template: ${template.name}. Stages: ${stages.map((s) => s.name).join(', ')}.`,
  ], record);
  return record;
}

async function emailsOf(store: Store, userIds: readonly string[]): Promise<string[]> {
  const users = await Promise.all([...new Set(userIds)].map((id) => getUser(store, id)));
  return users.flatMap((user) => (user && !user.archived ? [user.primaryEmail] : []));
}

async function sendAll(deps: ChangeOrderDeps, to: string[], subject: string, lines: string[], record: ChangeOrderRecord): Promise<void> {
  const link = `${deps.appUrl}/change-orders/${record.id}`;
  for (const address of to) {
    const mail: OutboundMail = { to: [address], subject, text: [...lines, '', `Open: ${link}`].join('\n'), html: `${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(link)}">Open ${escapeHtml(record.number)}</a></p>` };
    await deps.mailer.send(mail);
  }
}

const escapeHtml = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export interface ChangeOrderFilter {
  status?: string | null;
  componentId?: string | null;
  search?: string | null;
}

/** changeOrders.get: the library's change orders, newest first, filtered and paged (cursor = offset). */
export interface ChangeOrderPage {
  totalCount: number;
  nodes: ChangeOrderRecord[];
  endCursor: string | null;
  hasNextPage: boolean;
}

export async function findChangeOrders(store: Store, scope: LibraryScope, filter: ChangeOrderFilter = {}, pagination: { first?: number | null; after?: string | null } = {}): Promise<ChangeOrderPage> {
  const first = pagination.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 200) throw new InvalidInputError('pagination.first is 1 to 200', { field: 'pagination.first' });
  const offset = pagination.after ? Number.parseInt(Buffer.from(pagination.after, 'base64url').toString(), 10) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw new InvalidInputError('pagination.after is not a cursor of this list', { field: 'pagination.after' });
  const search = filter.search?.trim().toLowerCase();
  const all = (await listChangeOrders(store, scope.organizationId, scope.libraryId))
    .filter((co) => !filter.status || co.status === filter.status)
    .filter((co) => !filter.componentId || co.components.some((c) => c.componentId === filter.componentId!.toLowerCase()))
    .filter((co) => !search || co.name.toLowerCase().includes(search) || co.number.toLowerCase().includes(search))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.number.localeCompare(a.number));
  const page = all.slice(offset, offset + first);
  const cursor = (index: number) => Buffer.from(String(offset + index + 1)).toString('base64url');
  return { totalCount: all.length, nodes: page, endCursor: page.length ? cursor(page.length - 1) : null, hasNextPage: offset + first < all.length };
}

export async function changeOrderById(store: Store, scope: LibraryScope, id: string): Promise<ChangeOrderRecord> {
  const record = isUuid(id) ? await getChangeOrder(store, scope.organizationId, scope.libraryId, id.toLowerCase(), true) : undefined;
  if (!record) throw new NotFoundError('Change order', id);
  return record;
}

type Action = keyof typeof allowedFrom;

interface Step {
  record: ChangeOrderRecord;
  items: WriteItem[];
  mails: { to: string[]; userIds: string[]; subject: string; lines: string[] }[];
  /** A release too large for one transaction with its history: what goes before and after it. */
  large?: LargeRelease;
}

/**
 * The commit-record design of large item writes (lib/store/pendingWrite.ts), for a release: the history
 * records are written first carrying a write id, invisible to readers; the transaction of the change order
 * and every component flips the commit record to COMMITTED; the search entries follow the commit, and
 * cleanup writes them again if the process died in between.
 */
interface LargeRelease {
  writeId: string;
  /** History puts, each conditioned on its key being free. */
  pending: WriteItem[];
  componentIds: string[];
}

/** Waits a little longer each attempt, so a racing writer can finish what it began. */
const backOff = (attempt: number) => new Promise((r) => setTimeout(r, 20 * 2 ** attempt + Math.random() * 20));

/**
 * Writes the invisible history records of a large release under its commit record. Keys already taken mean
 * another approval of the same change order is releasing it (read again: it resolves the order), or one
 * that failed left them; those of an aborted write, or of one pending longer than a release can take, are
 * cleared first (aborting is conditional, so a write that commits meanwhile is never undone).
 */
async function writePendingRelease(store: Store, scope: LibraryScope, large: LargeRelease, at: string): Promise<void> {
  const { organizationId: org, libraryId: lib } = scope;
  const keys = putKeys(large.pending);
  await putPendingWrite(store, org, lib, { writeId: large.writeId, status: 'PENDING', keys, createdAt: at, refreshSearchOf: large.componentIds, settledAt: null });
  try {
    await transactWrite(store, large.pending, { otherwise: () => new ReadAgain(), onConflict: () => new ReadAgain() });
  } catch (error) {
    await settleAbortedWrite(store, org, lib, large.writeId, keys, at);
    if (!(error instanceof ReadAgain)) throw error;
    await clearAbandonedReleases(store, scope, keys);
    throw new ReadAgain();
  }
}

/** A release commits within seconds; one pending this long was abandoned by its process. */
const abandonedReleaseMs = 60_000;

async function clearAbandonedReleases(store: Store, scope: LibraryScope, keys: Key[]): Promise<void> {
  const { organizationId: org, libraryId: lib } = scope;
  const taken = await batchGetItems(store, keys, true);
  const writeIds = [...new Set([...taken.values()].map((item) => item.writeId).filter((id): id is string => typeof id === 'string'))];
  for (const write of (await getPendingWrites(store, org, lib, writeIds)).values()) {
    const abandoned = write.status === 'ABORTED' || (write.status === 'PENDING' && Date.now() - Date.parse(write.createdAt) > abandonedReleaseMs);
    if (abandoned) await settleAbortedWrite(store, org, lib, write.writeId, write.keys, nowIso());
  }
}

/**
 * Applies one lifecycle action: reads the change order (strongly consistent), checks the action is allowed
 * from its status, lets `apply` produce the next record with the items that go with it, and writes all in
 * one transaction conditioned on the revision read. A concurrent change (another vote) makes it read again
 * and re-apply, so two approvals racing on the last vote resolve, and release, exactly once.
 */
async function act(deps: ChangeOrderDeps, scope: LibraryScope, id: string, action: Action, apply: (record: ChangeOrderRecord, at: string) => Promise<Step>): Promise<ChangeOrderRecord> {
  for (let attempt = 0; ; attempt += 1) {
    const current = await changeOrderById(deps.store, scope, id);
    if (!allowedFrom[action]!.includes(current.status)) {
      throw new ChangeOrderError('CHANGE_ORDER_STATE', `Cannot ${action} change order ${current.number}: it is ${current.status}${current.resolution ? ` (${current.resolution})` : ''}`, {
        status: current.status,
        action,
      });
    }
    const at = nowIso();
    let step: Step;
    try {
      step = await apply(structuredClone(current), at);
    } catch (error) {
      if (error instanceof ReadAgain && attempt < 5) continue;
      throw error instanceof ReadAgain ? new ConcurrentWriteError(`Change order ${current.number}`) : error;
    }
    const next = { ...step.record, updatedAt: at, rev: current.rev + 1 };
    const { large } = step;
    if (large) {
      try {
        await writePendingRelease(deps.store, scope, large, at);
      } catch (error) {
        if (!(error instanceof ReadAgain)) throw error;
        if (attempt >= 5) throw new ConcurrentWriteError(`Change order ${current.number}`);
        await backOff(attempt);
        continue;
      }
    }
    const changed = () => new ConcurrentWriteError(`Change order ${current.number}`);
    const orderItem = action === 'delete' ? changeOrderDelete(current) : changeOrderPut(next, current.rev);
    try {
      await transactWrite(deps.store, [failingWith(orderItem, () => new ChangeOrderChanged()), ...step.items], { otherwise: changed, onConflict: () => new ChangeOrderChanged() });
    } catch (error) {
      if (large) await settleAbortedWrite(deps.store, scope.organizationId, scope.libraryId, large.writeId, putKeys(large.pending), at);
      if (error instanceof ChangeOrderChanged) {
        if (attempt < 5) continue;
        throw changed();
      }
      if (error instanceof ComponentOfChangeOrderLost) throw await lockFailure(deps.store, scope, current, error.componentId);
      throw error;
    }
    // Committed: what is left (write ids off the history, search entries) is repeatable, and cleanup of
    // abandoned writes redoes it if this fails, so a failure here does not fail the approval that landed.
    if (large) await settleCommittedWrite(deps.store, scope.organizationId, scope.libraryId, large.writeId, putKeys(large.pending), at, large.componentIds).catch(() => undefined);
    for (const mail of step.mails) await sendAll(deps, [...new Set([...mail.to, ...(await emailsOf(deps.store, mail.userIds))])], mail.subject, mail.lines, next);
    return next;
  }
}

/** The change order changed since it was read (another vote): read it again. */
class ChangeOrderChanged extends Error {}

/** The lock, unlock or release of one of the change order's components failed. */
class ComponentOfChangeOrderLost extends Error {
  constructor(readonly componentId: string) {
    super(`Component ${componentId} of the change order changed`);
  }
}

const ofComponent = (componentId: string, item: WriteItem) => failingWith(item, () => new ComponentOfChangeOrderLost(componentId));

/** Which component made a lock (or release) fail: held by another change order, or changed meanwhile. */
async function lockFailure(store: Store, scope: LibraryScope, record: ChangeOrderRecord, componentId: string) {
  const component = componentId ? (await getComponents(store, scope.organizationId, scope.libraryId, [componentId], true)).get(componentId) : undefined;
  if (!component) return new NotFoundError('Component', componentId || 'of this change order');
  if (component.lockedBy && component.lockedBy !== record.id) return new ComponentLockedError(component.id, component.lockedBy);
  return new ConcurrentWriteError(`Component ${component.cpn} of ${record.number}`);
}

const history = (record: ChangeOrderRecord, action: string, by: string, at: string, comment: string | null = null) => {
  record.history.push({ action, by, at, comment, status: record.status });
};

const lockItems = (record: ChangeOrderRecord) =>
  record.components.map((c) => ofComponent(c.componentId, componentLockUpdate(componentKey(record.organizationId, record.libraryId, c.componentId), record.id)));
const unlockItems = (record: ChangeOrderRecord) =>
  record.components.map((c) => ofComponent(c.componentId, componentUnlockUpdate(componentKey(record.organizationId, record.libraryId, c.componentId), record.id)));

export function submitChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string) {
  return act(deps, scope, id, 'submit', async (record, at) => {
    if (record.components.length === 0) throw new ChangeOrderError('CHANGE_ORDER_EMPTY', `${record.number} has no components: add some before submitting`);
    record.stages.forEach((stage, index) => {
      const needed = stage.approvalType === 'Minimum' ? stage.minReviewers : 1;
      if (stage.reviewers.length < needed) {
        throw new ChangeOrderError('STAGE_WITHOUT_REVIEWERS', `Stage ${index} "${stage.name}" needs at least ${needed} reviewer(s) (${stage.approvalType}); it has ${stage.reviewers.length}`, { stage: index });
      }
    });
    record.status = 'OPEN';
    record.currentStage = 0;
    record.stages[0]!.openedAt = at;
    history(record, 'SUBMIT', scope.userId, at);
    return { record, items: lockItems(record), mails: [reviewerMail(record, 0)] };
  });
}

function reviewerMail(record: ChangeOrderRecord, stageIndex: number) {
  const stage = record.stages[stageIndex]!;
  return {
    to: [],
    userIds: stage.reviewers.map((r) => r.userId),
    subject: `Review requested: ${record.number} ${record.name} (${stage.name})`,
    lines: [`Stage "${stage.name}" of change order ${record.number} is open for your review (${stage.approvalType}).`],
  };
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
    if (outcome === 'PASSED') return { ...(await release(deps.store, scope, record, at, deps.failRelease)), mails: [resolutionMail(record)] };
    resolve(record, 'REJECTED', at, scope.userId);
    return { record, items: unlockItems(record), mails: [resolutionMail(record)] };
  });
}

function resolve(record: ChangeOrderRecord, resolution: ChangeOrderResolution, at: string, by: string): void {
  record.resolution = resolution;
  record.currentStage = null;
  const actions = resolution === 'APPROVED' ? record.resolutions.onapproval : resolution === 'REJECTED' ? record.resolutions.onrejection : record.resolutions.onwithdrawal;
  record.status = closesItself(actions) ? 'CLOSED' : 'RESOLVED';
  history(record, resolution, by, at);
}

function resolutionMail(record: ChangeOrderRecord) {
  return { to: [], userIds: [record.createdBy], subject: `${record.number} ${record.resolution!.toLowerCase()}: ${record.name}`, lines: [`Change order ${record.number} was ${record.resolution!.toLowerCase()} and is now ${record.status}.`] };
}

/**
 * Releases the components of an approved change order, with it: each component becomes RELEASED at its next
 * revision (a Not Revision Managed component keeps its fixed revision), its lock is lifted, and a RELEASE
 * history record and its search entry are written. Each component write is conditioned on the version read
 * and on this change order's lock. Up to `singleTransactionRelease` components everything is one
 * transaction; beyond, the history records go first under a commit record (`LargeRelease`), and the one
 * transaction holds the change order, every component and the commit.
 */
async function release(store: Store, scope: LibraryScope, record: ChangeOrderRecord, at: string, fail = false): Promise<Omit<Step, 'mails'>> {
  const [config, components] = await Promise.all([
    loadLibraryConfiguration(store, scope.organizationId, scope.libraryId),
    getComponents(store, scope.organizationId, scope.libraryId, record.components.map((c) => c.componentId), true),
  ]);
  const writeId = record.components.length > singleTransactionRelease ? randomUUID() : undefined;
  const componentPuts: WriteItem[] = [];
  const historyPuts: WriteItem[] = [];
  const searchPuts: WriteItem[] = [];
  for (const [index, entry] of record.components.entries()) {
    const before = components.get(entry.componentId);
    if (!before) throw new NotFoundError('Component', entry.componentId);
    // Read while another approval of this change order was committing: the next read sees it resolved.
    if (before.lockedBy !== record.id) throw new ReadAgain();
    const revisionValue = before.notRevisionManaged ? before.revisionValue : nextRevision(config.revisionScheme, before.revisionValue);
    const after: ComponentRecord = {
      ...before,
      state: 'RELEASED',
      revisionValue,
      lastReleasedNotRevisionManaged: before.notRevisionManaged,
      version: before.version + 1,
      lockedBy: null,
      updatedAt: at,
      updatedBy: scope.userId,
    };
    entry.toRevision = revisionValue;
    // The fault makes the last component write of the transaction fail, after all the others in it.
    const expectedVersion = fail && index === record.components.length - 1 ? -1 : before.version;
    componentPuts.push(ofComponent(after.id, componentVersionPut(after, { version: expectedVersion, lockedBy: record.id })));
    const history = {
      componentId: after.id,
      version: after.version,
      action: 'RELEASE' as const,
      at,
      by: scope.userId,
      actingIntegrationId: null,
      changes: [...diffComponents(before, after), { field: 'changeOrder', from: null, to: record.number }],
    };
    historyPuts.push(componentHistoryPut(scope.organizationId, scope.libraryId, history, { once: true, writeId }));
    searchPuts.push(searchEntryPut(after));
  }
  resolve(record, 'APPROVED', at, scope.userId);
  if (!writeId) return { record, items: [...componentPuts, ...historyPuts, ...searchPuts] };
  return {
    record,
    items: [...componentPuts, commitPendingWriteUpdate(scope.organizationId, scope.libraryId, writeId)],
    large: { writeId, pending: historyPuts, componentIds: record.components.map((c) => c.componentId) },
  };
}

export function withdrawChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string) {
  return act(deps, scope, id, 'withdraw', async (record, at) => {
    resolve(record, 'WITHDRAWN', at, scope.userId);
    return { record, items: unlockItems(record), mails: [resolutionMail(record)] };
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
    if (record.resolution === 'APPROVED') throw new ChangeOrderError('CHANGE_ORDER_STATE', `${record.number} was approved and its components released: it cannot be reset`, { status: record.status, action: 'reset' });
    const locked = record.status === 'OPEN' || record.status === 'ON_HOLD';
    const items = locked ? unlockItems(record) : [];
    record.status = 'DRAFT';
    record.resolution = null;
    record.currentStage = null;
    for (const stage of record.stages) Object.assign(stage, { decisions: [], openedAt: null, closedAt: null, outcome: null });
    history(record, 'RESET', scope.userId, at);
    return { record, items, mails: [] };
  });
}

/** changeOrders.update: a DRAFT's name, description, components, values and stage choices. */
export function updateChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, rawInput: unknown) {
  const input = parse(updateChangeOrderInput, rawInput);
  return act(deps, scope, input.id, 'update', async (record, at) => {
    const template = await findTemplate(deps.store, scope, record.templateId);
    if (input.name !== undefined && input.name !== null) record.name = input.name;
    if (input.description !== undefined) record.description = input.description ?? null;
    if (input.values !== undefined) record.values = validateValues(template.document, input.values);
    if (input.componentIds) {
      const components = await requireComponents(deps.store, scope, input.componentIds);
      record.components = components.map((c) => ({ componentId: c.id, fromRevision: c.revisionValue, toRevision: null }));
    }
    if (input.stages) record.stages = await buildStages(deps.store, scope, template, input.stages);
    history(record, 'UPDATE', scope.userId, at);
    return { record, items: [], mails: [] };
  });
}

export async function deleteChangeOrder(deps: ChangeOrderDeps, scope: LibraryScope, id: string): Promise<boolean> {
  await act(deps, scope, id, 'delete', async (record) => ({ record, items: [], mails: [] }));
  return true;
}

export type { TemplateDocument };
