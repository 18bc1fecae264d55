import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { LibraryScope } from '../model/scope.js';
import { ConcurrentWriteError, InvalidInputError, NotFoundError } from '../errors.js';
import { ChangeOrderError } from './errors.js';
import { isUuid } from '../model/slugs.js';
import { getChangeOrders, type ChangeOrderRecord } from '../store/changeOrder.js';
import { changeRequestPriorities, changeRequestPut, getChangeRequest, getChangeRequests, listChangeRequests, nextChangeRequestNumber, type ChangeRequestRecord } from '../store/changeRequest.js';
import type { Store } from '../store/client.js';
import { getComponents } from '../store/component.js';
import { failingWith, nowIso, transactWrite } from '../store/items.js';
import type { ChangeOrderDeps } from './act.js';
import { createChangeOrderWith, maxChangeOrderDescription } from './actions.js';
import { maxComponentsPerChangeOrder } from './release.js';

/**
 * Change requests (problem reports): DRAFT -> SUBMITTED -> APPROVED | REJECTED | DEFERRED -> CLOSED.
 * `promote` makes one change order of approved requests (its components their union), linked both ways;
 * the requests close when that order releases (`closingOf`: when the release's commit record settles).
 */

export type ChangeRequestStatus = ChangeRequestRecord['status'];
export type ChangeRequestAction = 'update' | 'submit' | 'approve' | 'reject' | 'defer' | 'close';

/** The actions and the statuses each may start from; each action's result. */
export const requestTransitions: Record<ChangeRequestAction, { from: readonly ChangeRequestStatus[]; to: ChangeRequestStatus | null }> = {
  update: { from: ['DRAFT'], to: null },
  submit: { from: ['DRAFT'], to: 'SUBMITTED' },
  approve: { from: ['SUBMITTED'], to: 'APPROVED' },
  reject: { from: ['SUBMITTED'], to: 'REJECTED' },
  defer: { from: ['SUBMITTED'], to: 'DEFERRED' },
  close: { from: ['APPROVED', 'REJECTED', 'DEFERRED'], to: 'CLOSED' },
};

const maxValuesBytes = 32_000;
const values = z.record(z.string().max(100), z.unknown()).refine((v) => JSON.stringify(v).length <= maxValuesBytes, `values are at most ${maxValuesBytes} characters as JSON`);

export const createChangeRequestInput = z.object({
  title: z.string().trim().min(1, 'title must not be empty').max(200, 'title is at most 200 characters'),
  description: z.string().max(10_000).nullish(),
  priority: z.enum(changeRequestPriorities).nullish(),
  componentIds: z.array(z.string().max(128)).max(maxComponentsPerChangeOrder, `at most ${maxComponentsPerChangeOrder} components`).nullish(),
  values: values.nullish(),
});
/**
 * An update: omitted fields stay; null empties what may be empty (description, componentIds, values) and is
 * refused where the request always has a value (title, priority), never ignored.
 */
export const updateChangeRequestInput = createChangeRequestInput
  .partial()
  .extend({ id: z.string(), priority: z.enum(changeRequestPriorities, `one of ${changeRequestPriorities.join(', ')}; null is not a priority (omit it to keep the current one)`).optional() });

function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = `input.${issue.path.join('.')}`;
    throw new InvalidInputError(`${field}: ${issue.message}`, { field });
  }
  return parsed.data;
}

async function requireComponentIds(store: Store, scope: LibraryScope, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const found = await getComponents(store, scope.organizationId, scope.libraryId, unique);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw new NotFoundError('Component', missing.join(', '));
  return unique;
}

export async function changeRequestById(store: Store, scope: LibraryScope, id: string): Promise<ChangeRequestRecord> {
  const record = isUuid(id) ? await getChangeRequest(store, scope.organizationId, scope.libraryId, id.toLowerCase()) : undefined;
  if (!record) throw new NotFoundError('Change request', id);
  return record;
}

/** The library's change requests, newest first, optionally of one status. */
export async function findChangeRequests(store: Store, scope: LibraryScope, status?: string | null): Promise<ChangeRequestRecord[]> {
  return (await listChangeRequests(store, scope.organizationId, scope.libraryId))
    .filter((request) => !status || request.status === status)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.number.localeCompare(a.number));
}

const entry = (action: string, by: string, at: string, status: string, comment: string | null = null) => ({ action, by, at, comment, status });

export async function createChangeRequest(store: Store, scope: LibraryScope, rawInput: unknown): Promise<ChangeRequestRecord> {
  const input = parse(createChangeRequestInput, rawInput);
  const componentIds = await requireComponentIds(store, scope, input.componentIds ?? []);
  const at = nowIso();
  const record: ChangeRequestRecord = {
    id: randomUUID(),
    number: await nextChangeRequestNumber(store, scope.organizationId, scope.libraryId),
    organizationId: scope.organizationId,
    libraryId: scope.libraryId,
    title: input.title,
    description: input.description ?? null,
    priority: input.priority ?? 'MEDIUM',
    componentIds,
    values: input.values ?? {},
    status: 'DRAFT',
    changeOrderId: null,
    history: [entry('CREATE', scope.userId, at, 'DRAFT')],
    createdBy: scope.userId,
    createdAt: at,
    updatedAt: at,
    rev: 0,
  };
  await transactWrite(store, [changeRequestPut(record, null)]);
  return record;
}

/** One action on one request: read, check the transition, write conditioned on the revision read. */
async function actOn(
  store: Store,
  scope: LibraryScope,
  id: string,
  action: ChangeRequestAction,
  apply: (record: ChangeRequestRecord) => Promise<void> | void = () => undefined,
  comment: string | null = null,
) {
  const current = await changeRequestById(store, scope, id);
  const rule = requestTransitions[action];
  if (!rule.from.includes(current.status))
    throw new ChangeOrderError('CHANGE_ORDER_STATE', `Cannot ${action} change request ${current.number}: it is ${current.status}`, { status: current.status, action });
  const at = nowIso();
  const next: ChangeRequestRecord = structuredClone(current);
  await apply(next);
  if (rule.to) next.status = rule.to;
  next.history.push(entry(action.toUpperCase(), scope.userId, at, next.status, comment));
  next.updatedAt = at;
  next.rev = current.rev + 1;
  await transactWrite(store, [failingWith(changeRequestPut(next, current.rev), () => new ConcurrentWriteError(`Change request ${current.number}`))]);
  return next;
}

export function updateChangeRequest(store: Store, scope: LibraryScope, rawInput: unknown) {
  const input = parse(updateChangeRequestInput, rawInput);
  return actOn(store, scope, input.id, 'update', async (record) => {
    if (input.title !== undefined) record.title = input.title;
    if (input.description !== undefined) record.description = input.description ?? null;
    if (input.priority !== undefined) record.priority = input.priority;
    if (input.values !== undefined) record.values = input.values ?? {};
    if (input.componentIds !== undefined) record.componentIds = await requireComponentIds(store, scope, input.componentIds ?? []);
  });
}

export function transitionChangeRequest(store: Store, scope: LibraryScope, id: string, action: Exclude<ChangeRequestAction, 'update'>, comment?: string | null) {
  if (comment && comment.length > 5000) throw new InvalidInputError('comment is at most 5,000 characters', { field: 'comment' });
  return actOn(store, scope, id, action, undefined, comment ?? null);
}

export const promoteInput = z.object({
  name: z.string().trim().min(1).max(200).nullish(),
  templateId: z.string().min(1).max(128).nullish(),
  values: z.unknown().optional(),
});

/**
 * changeRequests.promote: one DRAFT change order of APPROVED requests, its components their union (in the
 * order given), written in one transaction with every request linked to it (each conditioned on the
 * revision read), so a refused or raced promote writes nothing.
 */
export async function promoteChangeRequests(deps: ChangeOrderDeps, scope: LibraryScope, ids: readonly string[], rawInput: unknown): Promise<ChangeOrderRecord> {
  const input = parse(promoteInput, rawInput ?? {});
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length === 0) throw new InvalidInputError('ids: name at least one change request', { field: 'ids' });
  if (unique.length > 50) throw new InvalidInputError('ids: at most 50 change requests', { field: 'ids' });
  const found = await getChangeRequests(deps.store, scope.organizationId, scope.libraryId, unique.filter(isUuid));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw new NotFoundError('Change request', missing.join(', '));
  const requests = unique.map((id) => found.get(id)!);
  // A request stays promoted while its order lives on; one whose order was deleted, rejected or withdrawn may be promoted again.
  const linkedIds = [...new Set(requests.flatMap((r) => r.changeOrderId ?? []))];
  const linked = linkedIds.length ? await getChangeOrders(deps.store, scope.organizationId, scope.libraryId, linkedIds) : new Map<string, ChangeOrderRecord>();
  const alive = (orderId: string | null) => {
    const order = orderId ? linked.get(orderId) : undefined;
    return !!order && order.resolution !== 'REJECTED' && order.resolution !== 'WITHDRAWN';
  };
  const promoted = requests.filter((r) => alive(r.changeOrderId));
  if (promoted.length)
    throw new ChangeOrderError('CHANGE_REQUEST_PROMOTED', `${promoted.map((r) => r.number).join(', ')} already promoted into a change order`, { numbers: promoted.map((r) => r.number) });
  const unapproved = requests.filter((r) => r.status !== 'APPROVED');
  if (unapproved.length)
    throw new ChangeOrderError('CHANGE_REQUEST_NOT_APPROVED', `Only APPROVED change requests are promoted: ${unapproved.map((r) => `${r.number} is ${r.status}`).join(', ')}`, {
      numbers: unapproved.map((r) => r.number),
    });
  const componentIds = [...new Set(requests.flatMap((r) => r.componentIds))];
  const at = nowIso();
  return createChangeOrderWith(
    deps,
    scope,
    {
      name:
        input.name ??
        requests
          .map((r) => r.title)
          .join('; ')
          .slice(0, 200),
      // Cut to the change order's limit as the name is: 50 requests of long titles passed it, and the promote was
      // refused on input.description, a field its caller does not give.
      description: requests
        .map((r) => `${r.number}: ${r.title}`)
        .join('\n')
        .slice(0, maxChangeOrderDescription),
      templateId: input.templateId ?? 'default-one-stage',
      componentIds,
      values: input.values,
    },
    {
      changeRequestIds: requests.map((r) => r.id),
      // Components deleted since a request named them are left out, as ChangeRequest.components leaves them: an
      // APPROVED request cannot be edited to drop them, so refusing (NOT_FOUND) would refuse it for good.
      leaveOutDeleted: true,
      items: (order) =>
        requests.map((request) => {
          const next: ChangeRequestRecord = {
            ...request,
            changeOrderId: order.id,
            history: [...request.history, entry('PROMOTE', scope.userId, at, request.status, order.number)],
            updatedAt: at,
            rev: request.rev + 1,
          };
          return failingWith(changeRequestPut(next, request.rev), () => new ConcurrentWriteError(`Change request ${request.number}`));
        }),
    },
  );
}

/** The requests promoted into a change order, in its order. */
export async function changeRequestsOf(store: Store, scope: LibraryScope, order: ChangeOrderRecord): Promise<ChangeRequestRecord[]> {
  if (!order.changeRequestIds.length) return [];
  const found = await getChangeRequests(store, scope.organizationId, scope.libraryId, order.changeRequestIds);
  return order.changeRequestIds.flatMap((id) => found.get(id) ?? []);
}
