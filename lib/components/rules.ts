import type { PermissionName } from '../access/permissions.js';
import type { CategoryDefinition } from '../config/categories.js';
import { defaultStatus, findCategory, findStatus, type LibraryConfiguration } from '../config/libraryConfig.js';
import { initialRevision, validateRevision } from '../config/revisionScheme.js';
import type { StatusDefinition } from '../config/statuses.js';
import type { Entitlements } from '../orgs/plans.js';
import type { ComponentRecord } from '../store/component.js';
import type { HistoryChange } from '../store/componentHistory.js';
import { validateAttributeValues } from './attributeValidation.js';
import type { AttributeValueChange, CreateComponentCommand, UpdateComponentCommand } from './commands.js';
import { ComponentInputError, FeatureNotInPlanError, PermissionDeniedError, ComponentLockedError, IntegrationAccessError } from '../errors.js';
import { AttributeValidationError, CategoryNotFoundError, InvalidRevisionError, NrmError, StatusNotFoundError, AttributeWithheldError } from './errors.js';
import { canRead, withheldAttributes, writeDecision, type AccessPolicy } from '../model/attributeAccess.js';

/** Everything a component write is checked against, read once per call. */
export interface WriteContext {
  organizationId: string;
  libraryId: string;
  userId: string;
  at: string;
  config: LibraryConfiguration;
  entitlements: Entitlements;
  permissions: ReadonlySet<PermissionName>;
  /** The principal the write acts as (lib/model/attributeAccess.ts): an integration, or the native one. */
  principalId: string;
  /** The integration the request acts for; null for people (recorded in history and on BOM lines). */
  actingIntegrationId: string | null;
  /** Throws unless every file id names a completed upload of the library. */
  checkFiles: (fileIds: string[]) => Promise<void>;
}

/** Changing the Not Revision Managed flag needs this permission (and the plan's entitlement). */
export const nrmPermission: PermissionName = 'components.revision.create';

const limits = { name: 255, description: 10_000, eid: 255, label: 50, labels: 50, documentFormat: 50, documentFormats: 20, fileId: 255 };

function text(value: string | null | undefined, field: string, max: number, index: number, { required = false } = {}): string | null {
  if (value === undefined || value === null) {
    if (required) throw new ComponentInputError(`${field} is required`, field, index);
    return null;
  }
  const trimmed = value.trim();
  if (required && trimmed.length === 0) throw new ComponentInputError(`${field} must not be empty`, field, index);
  if (trimmed.length > max) throw new ComponentInputError(`${field} must be at most ${max} characters (got ${trimmed.length})`, field, index);
  return trimmed.length === 0 ? null : trimmed;
}

function stringList(values: string[], field: string, maxEach: number, maxCount: number, index: number): string[] {
  if (values.length > maxCount) throw new ComponentInputError(`${field} takes at most ${maxCount} entries (got ${values.length})`, field, index);
  const seen = new Map<string, string>();
  for (const raw of values) {
    const value = raw.trim();
    if (value.length === 0 || value.length > maxEach) throw new ComponentInputError(`each of ${field} must be 1 to ${maxEach} characters`, field, index);
    if (!seen.has(value.toLowerCase())) seen.set(value.toLowerCase(), value);
  }
  return [...seen.values()];
}

function resolveCategory(config: LibraryConfiguration, categoryId: string | null | undefined, index: number): CategoryDefinition {
  if (categoryId === undefined || categoryId === null) {
    // No category named: the library's first active PART category (documented in schema/README.md).
    const fallback = config.categories.categories.find((c) => c.type === 'PART' && !c.archived);
    if (!fallback) throw new ComponentInputError('categoryId is required: this library has no active PART category', 'categoryId', index);
    return fallback;
  }
  const category = findCategory(config, categoryId);
  if (!category) throw new CategoryNotFoundError(categoryId, index);
  if (category.archived) throw new CategoryNotFoundError(categoryId, index, true);
  return category;
}

function resolveStatus(config: LibraryConfiguration, statusId: string, index: number): StatusDefinition {
  const status = findStatus(config, statusId);
  if (!status) throw new StatusNotFoundError(statusId, index);
  if (status.archived) throw new StatusNotFoundError(statusId, index, true);
  return status;
}

/** One input names each attribute once: two values for one attribute would leave which one wins to chance. */
export function repeatedAttributeId(changes: readonly AttributeValueChange[] | null | undefined): { attributeId: string; first: number; again: number } | undefined {
  const first = new Map<string, number>();
  for (const [position, change] of (changes ?? []).entries()) {
    const earlier = first.get(change.attributeId);
    if (earlier !== undefined) return { attributeId: change.attributeId, first: earlier, again: position };
    first.set(change.attributeId, position);
  }
  return undefined;
}

function checkDistinctAttributeIds(changes: AttributeValueChange[] | null | undefined, index: number): void {
  const repeated = repeatedAttributeId(changes);
  if (repeated) {
    const { attributeId, first, again } = repeated;
    throw new ComponentInputError(`attributeValues[${first}] and attributeValues[${again}] both set attribute "${attributeId}"`, `attributeValues[${again}].attributeId`, index);
  }
}

export function mergeAttributeValues(current: Record<string, unknown>, changes: AttributeValueChange[] | null | undefined): Record<string, unknown> {
  const merged = { ...current };
  for (const change of changes ?? []) {
    if (!change.hasValue) continue;
    // "" is no value (as validation reads it): it clears the attribute rather than being stored.
    if (change.value === null || change.value === '') delete merged[change.attributeId];
    else merged[change.attributeId] = change.value;
  }
  return merged;
}

/**
 * The whole resulting set judged against the category, but for `withheld`: the stored values of attributes
 * withheld from the acting principal that it did not send. This write leaves them as they are, and a refusal
 * that depended on them (invalid, required and missing, unknown to the category) would tell the principal
 * something of a value it may not read; so they are not judged here (see checkWithheldCategoryChange).
 */
function checkAttributes(category: CategoryDefinition, values: Record<string, unknown>, index: number, withheld: ReadonlySet<string> = new Set(), kept: ReadonlySet<string> = new Set()): void {
  // Withheld values are left out of what is judged (their size included), so no refusal depends on them.
  const judged = Object.fromEntries(Object.entries(values).filter(([attributeId]) => !withheld.has(attributeId)));
  const errors = validateAttributeValues(category, judged, kept).filter((error) => !withheld.has(error.attributeId));
  if (errors.length > 0) throw new AttributeValidationError(errors, index);
}

/**
 * A category change judges every stored value by the new category's rules, and drops from it the attributes
 * the new category lacks: its outcome depends on values the acting principal may not read. So a principal
 * from which an attribute of the old or the new category is withheld (and not sent by this write) may not
 * change the category, whatever the values and whether they are set: the refusal depends on the access
 * policy and the two categories only, never on a stored value.
 */
function checkWithheldCategoryChange(from: CategoryDefinition | undefined, to: CategoryDefinition, withheld: ReadonlySet<string>, index: number): void {
  const judged = new Set([...(from?.attributes ?? []), ...to.attributes].map((attribute) => attribute.id));
  const blocking = [...withheld].filter((id) => judged.has(id)).sort();
  if (blocking.length === 0) return;
  throw new AttributeWithheldError('categoryId', blocking, index);
}

function checkRevision(ctx: WriteContext, value: string, status: StatusDefinition, index: number): void {
  const problem = validateRevision(ctx.config.revisionScheme, value, status.mapsTo);
  if (problem) throw new InvalidRevisionError(problem, value, index);
}

/**
 * Not Revision Managed rules: parts and documents only, with the plan's entitlement and the permission;
 * never on an obsolete component; the component is held at a production status.
 */
function applyNrm(ctx: WriteContext, category: CategoryDefinition, status: StatusDefinition, statusGiven: boolean, index: number): StatusDefinition {
  if (status.mapsTo === 'OBSOLETE') throw new NrmError('NRM_NOT_ALLOWED_ON_OBSOLETE', 'An OBSOLETE component cannot be marked Not Revision Managed', index);
  if (category.type === 'ASSEMBLY') throw new NrmError('NRM_NOT_ALLOWED', 'Not Revision Managed applies only to parts and documents, not assemblies', index);
  if (status.mapsTo === 'PRODUCTION') return status;
  if (statusGiven) {
    throw new NrmError('NRM_REQUIRES_PRODUCTION_STATUS', `A Not Revision Managed component is held at a production status; "${status.name}" maps to ${status.mapsTo}`, index);
  }
  const production = ctx.config.statuses.statuses.find((s) => s.mapsTo === 'PRODUCTION' && !s.archived);
  if (!production) throw new NrmError('NRM_REQUIRES_PRODUCTION_STATUS', 'This library has no active PRODUCTION status to hold a Not Revision Managed component at', index);
  return production;
}

function checkNrmAllowed(ctx: WriteContext, index: number): void {
  if (!ctx.entitlements.notRevisionManaged) throw new FeatureNotInPlanError('Not Revision Managed components', index);
  if (!ctx.permissions.has(nrmPermission)) throw new PermissionDeniedError(nrmPermission);
}

/** A new component from a create input, fully validated; the CPN is resolved separately. */
export function buildNewComponent(ctx: WriteContext, input: CreateComponentCommand, index: number, id: string): Omit<ComponentRecord, 'cpn'> {
  const name = text(input.name, 'name', limits.name, index, { required: true })!;
  const category = resolveCategory(ctx.config, input.categoryId, index);
  const statusGiven = input.statusId !== undefined && input.statusId !== null;
  let status = statusGiven ? resolveStatus(ctx.config, input.statusId!, index) : defaultStatus(ctx.config);
  const notRevisionManaged = input.notRevisionManaged === true;
  if (notRevisionManaged) {
    checkNrmAllowed(ctx, index);
    status = applyNrm(ctx, category, status, statusGiven, index);
  }
  const revisionValue = input.revisionValue ?? initialRevision(ctx.config.revisionScheme, status.mapsTo);
  checkRevision(ctx, revisionValue, status, index);
  checkDistinctAttributeIds(input.attributeValues, index);
  const attributeValues = mergeAttributeValues({}, input.attributeValues);
  checkAttributes(category, attributeValues, index);
  // Creation links the creator: it writes what it manages and what is open.
  checkAttributeWrites(ctx, [ctx.principalId], {}, attributeValues, index);
  return {
    id,
    organizationId: ctx.organizationId,
    libraryId: ctx.libraryId,
    name,
    description: text(input.description, 'description', limits.description, index),
    categoryId: category.id,
    category: { name: category.name, type: category.type, prefix: category.prefix },
    statusId: status.id,
    status: { name: status.name, color: status.color, mapsTo: status.mapsTo },
    revisionValue,
    state: 'MODIFIED',
    version: 1,
    lockedBy: null,
    eid: text(input.eid, 'eid', limits.eid, index),
    labels: stringList(input.labels ?? [], 'labels', limits.label, limits.labels, index),
    attributeValues,
    documentFormats: input.documentFormats ? stringList(input.documentFormats, 'documentFormats', limits.documentFormat, limits.documentFormats, index) : null,
    isArchived: false,
    notRevisionManaged,
    lastReleasedNotRevisionManaged: null,
    fileId: text(input.fileId, 'fileId', limits.fileId, index),
    imageFileId: text(input.imageFileId, 'imageFileId', limits.fileId, index),
    originIntegrationId: ctx.principalId,
    links: [ctx.principalId],
    createdAt: ctx.at,
    updatedAt: ctx.at,
    createdBy: ctx.userId,
    updatedBy: ctx.userId,
  };
}

/** Update fields whose explicit null is BAD_USER_INPUT (the component always has a value; name is required by text()). */
const alwaysSet = ['statusId', 'categoryId', 'revisionValue', 'isArchived', 'notRevisionManaged'] as const;

/** The component after an update input, validated as a whole; unchanged fields keep their values. */
export function applyUpdate(ctx: WriteContext, current: ComponentRecord, input: UpdateComponentCommand, index: number): ComponentRecord {
  if (current.lockedBy) throw new ComponentLockedError(current.id, current.lockedBy, index);
  // What a component always has is never cleared, and an explicit null is refused rather than ignored.
  for (const field of alwaysSet) {
    if (input[field] === null) throw new ComponentInputError(`${field} cannot be null: a component always has one (omit the field to keep it)`, field, index);
  }
  const next: ComponentRecord = { ...current, attributeValues: { ...current.attributeValues } };
  if (input.name !== undefined) next.name = text(input.name, 'name', limits.name, index, { required: true })!;
  if (input.description !== undefined) next.description = text(input.description, 'description', limits.description, index);
  if (input.eid !== undefined) next.eid = text(input.eid, 'eid', limits.eid, index);
  if (input.fileId !== undefined) next.fileId = text(input.fileId, 'fileId', limits.fileId, index);
  if (input.imageFileId !== undefined) next.imageFileId = text(input.imageFileId, 'imageFileId', limits.fileId, index);
  if (input.labels !== undefined) next.labels = stringList(input.labels ?? [], 'labels', limits.label, limits.labels, index);
  if (input.documentFormats !== undefined) {
    next.documentFormats = input.documentFormats === null ? null : stringList(input.documentFormats, 'documentFormats', limits.documentFormat, limits.documentFormats, index);
  }
  if (input.isArchived !== undefined && input.isArchived !== null) next.isArchived = input.isArchived;

  // Stored values the principal cannot read and did not send: never judged for it, nor echoed in a refusal.
  const sent = sentAttributes(input);
  const withheld = new Set([...withheldAttributes(ctx.config.accessPolicy, ctx.principalId)].filter((id) => !sent.has(id)));
  const stored = findCategory(ctx.config, current.categoryId);
  let category = stored;
  if (input.categoryId !== undefined && input.categoryId !== null && input.categoryId !== current.categoryId) {
    category = resolveCategory(ctx.config, input.categoryId, index);
    checkWithheldCategoryChange(stored, category, withheld, index);
  }
  if (!category) throw new CategoryNotFoundError(current.categoryId, index);
  next.categoryId = category.id;
  next.category = { name: category.name, type: category.type, prefix: category.prefix };

  const statusGiven = input.statusId !== undefined && input.statusId !== null && input.statusId !== current.statusId;
  let status = statusGiven ? resolveStatus(ctx.config, input.statusId!, index) : findStatus(ctx.config, current.statusId);
  if (!status) throw new StatusNotFoundError(current.statusId, index);

  const nrmChange = input.notRevisionManaged !== undefined && input.notRevisionManaged !== null && input.notRevisionManaged !== current.notRevisionManaged;
  if (nrmChange) checkNrmAllowed(ctx, index);
  next.notRevisionManaged = nrmChange ? input.notRevisionManaged! : current.notRevisionManaged;
  if (next.notRevisionManaged) status = applyNrm(ctx, category, status, statusGiven, index);
  next.statusId = status.id;
  next.status = { name: status.name, color: status.color, mapsTo: status.mapsTo };

  if (input.revisionValue !== undefined && input.revisionValue !== null && input.revisionValue !== current.revisionValue) {
    if (current.notRevisionManaged && next.notRevisionManaged) {
      throw new NrmError('NRM_REVISION_FIXED', 'A Not Revision Managed component keeps a fixed revision', index);
    }
    next.revisionValue = input.revisionValue;
  }
  if (next.revisionValue !== current.revisionValue || next.statusId !== current.statusId) checkRevision(ctx, next.revisionValue, status, index);

  checkDistinctAttributeIds(input.attributeValues, index);
  next.attributeValues = mergeAttributeValues(current.attributeValues, input.attributeValues);
  // A category change or any attribute change validates the whole resulting set against the category.
  if (next.categoryId !== current.categoryId || (input.attributeValues?.some((c) => c.hasValue) ?? false)) {
    // In its own category, a stored value the write leaves as it is stays even if its attribute was archived since.
    const kept = next.categoryId === current.categoryId ? new Set(Object.keys(current.attributeValues).filter((id) => same(current.attributeValues[id], next.attributeValues[id]))) : new Set<string>();
    checkAttributes(category, next.attributeValues, index, withheld, kept);
  }
  checkAttributeWrites(ctx, current.links, current.attributeValues, next.attributeValues, index, input);
  return next;
}

/** The attributes whose values differ between two sets (set, changed or deleted). */
export function changedAttributes(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const ids = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...ids].filter((id) => !same(before[id] ?? null, after[id] ?? null)).sort();
}

/**
 * The attributes an update sends a value of (`attributeValues[]`, a value or null) whose values are withheld
 * from the acting principal (RECEIVE_ONLY or NO_ACCESS). Each is a write whether or not its value changes: checked
 * (attributesToCheck), written as a new version and recorded in history as a change of it (diffComponents),
 * listed by reconcile as applied. A principal that cannot read a value so gets the same answer whatever the
 * stored value is, and cannot confirm a guess of it. For others a value written again unchanged is no write.
 */
/** The attributes an update sends a value of (or null): an entry without a value is a no-op whatever is stored, not a write. */
function sentAttributes(input: Pick<UpdateComponentCommand, 'attributeValues'>): Set<string> {
  return new Set((input.attributeValues ?? []).filter((change) => change.hasValue).map((change) => change.attributeId));
}

export function blindAttributes(policy: AccessPolicy, principal: string, input: Pick<UpdateComponentCommand, 'attributeValues'>): string[] {
  return [...sentAttributes(input)].filter((id) => !canRead(policy, principal, id)).sort();
}

/** The attributes a write writes: those whose values change, and every blind one (blindAttributes). */
export function writtenAttributes(before: Record<string, unknown>, after: Record<string, unknown>, blind: readonly string[] = []): string[] {
  return [...new Set([...changedAttributes(before, after), ...blind])].sort();
}

/** The attributes a write must be allowed to write (writtenAttributes with the principal's blind ones). */
export function attributesToCheck(
  policy: AccessPolicy,
  principal: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  input: Pick<UpdateComponentCommand, 'attributeValues'>,
): string[] {
  return writtenAttributes(before, after, blindAttributes(policy, principal, input));
}

/**
 * Every attribute the write changes (and every withheld one it sends: attributesToCheck) must be writable
 * by the acting principal on a component with these links (spec: principal and attribute access model).
 */
function checkAttributeWrites(
  ctx: WriteContext,
  links: readonly string[],
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  index: number,
  input: Pick<UpdateComponentCommand, 'attributeValues'> = {},
): void {
  for (const attributeId of attributesToCheck(ctx.config.accessPolicy, ctx.principalId, before, after, input)) {
    const decision = writeDecision(ctx.config.accessPolicy, ctx.principalId, attributeId, links);
    if (!decision.allowed) {
      throw new IntegrationAccessError(decision.code, `inputs[${index}]: attributeValues "${attributeId}" cannot be written: ${decision.reason}`, {
        inputIndex: index,
        attributeId,
        principal: ctx.principalId,
        managers: decision.managers,
      });
    }
  }
}

/** The content fields of a component: what history records when they change, and what a compare shows. */
export const trackedFields = [
  'name',
  'description',
  'categoryId',
  'statusId',
  'revisionValue',
  'eid',
  'labels',
  'documentFormats',
  'isArchived',
  'notRevisionManaged',
  'fileId',
  'imageFileId',
  'cpn',
] as const satisfies readonly (keyof ComponentRecord)[];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What changed between two versions, field by field, attributes as `attributeValues.<id>`. `blind`
 * (blindAttributes of the update) are recorded as changes even when the value stays: from and to as stored.
 */
export function diffComponents(before: ComponentRecord | null, after: ComponentRecord, blind: readonly string[] = []): HistoryChange[] {
  const changes: HistoryChange[] = [];
  for (const field of trackedFields) {
    const from = before ? before[field] : null;
    if (!same(from, after[field])) changes.push({ field, from: from ?? null, to: after[field] ?? null });
  }
  for (const id of writtenAttributes(before?.attributeValues ?? {}, after.attributeValues, blind)) {
    changes.push({ field: `attributeValues.${id}`, from: before?.attributeValues[id] ?? null, to: after.attributeValues[id] ?? null });
  }
  return changes;
}

/** The changes an update makes (diffComponents with its blind attributes): it writes when there is one. */
export function updateChanges(
  ctx: WriteContext,
  before: ComponentRecord,
  applied: ComponentRecord,
  input: Pick<UpdateComponentCommand, 'attributeValues'>,
): { blind: string[]; changes: HistoryChange[] } {
  const blind = blindAttributes(ctx.config.accessPolicy, ctx.principalId, input);
  return { blind, changes: diffComponents(before, applied, blind) };
}
