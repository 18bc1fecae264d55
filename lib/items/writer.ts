import { randomUUID } from 'node:crypto';

import type { CreateComponentCommand } from '../components/commands.js';
import { allocateCpn, assertChosenCpnsFree, planCpn, type CpnPlan } from '../components/cpn.js';

import { BomError, ComponentInputError, ComponentNotFoundError, ConcurrentWriteError, FileError, VersionConflictError } from '../errors.js';
import { BomCycleError } from './errors.js';
import { CpnError } from '../components/errors.js';
import { checkInputIds } from '../input.js';

import { applyUpdate, buildNewComponent, updateChanges, type WriteContext } from '../components/rules.js';

import { cpnClaimOffset, newComponentItems, nextVersion, updatedComponentItems } from '../components/transactItems.js';

import { findCategory } from '../config/libraryConfig.js';

import { normalizeCpn } from '../config/cpnScheme.js';

import type { Store } from '../store/client.js';
import {
  bomPut,
  bomSnapshotPut,
  bomVersionCheck,
  documentLinksPut,
  getBoms,
  getComponentsWithRelations,
  bomChildIds,
  type BomLine,
  type BomRecord,
  type DocumentLinkRecord,
  type DocumentLinksRecord,
} from '../store/bom.js';

import { getComponents, type ComponentRecord } from '../store/component.js';
import { type HistoryChange } from '../store/componentHistory.js';

import { explainedBy, putKeys, transactWrite, type WriteItem } from '../store/items.js';

import { commitPendingWriteUpdate, putPendingWrite } from '../store/pendingWrite.js';
import { settleAbortedWrite, settleCommittedWrite } from './settle.js';

import { bomChange, desiredLines, findBomCycle } from './bomRules.js';
import { removeUsageAfterWrite, usageAddItem } from '../store/usage.js';

import type { CreateItemCommand, DocumentCommand, UpdateItemCommand } from './commands.js';
import { checkItemWriteLimits } from './limits.js';

/** DynamoDB's limit of items in one TransactWriteItems. */
const maxTransactionItems = 100;

export interface ItemWriteOptions {
  /** Test hook of the local stack: stop as if the process died after the first pending write. */
  crashAfterFirstPendingWrite?: boolean;
  /** Test hook: runs once the write committed, before the where-used entries of its removed lines are removed. */
  afterCommit?: () => Promise<void>;
}

/** One component of the call after validation, with the items that write it. */
interface ParentWrite {
  inputIndex: number;
  before: ComponentRecord | null;
  after: ComponentRecord;
  cpnPlan?: CpnPlan;
  bom?: { before: BomLine[]; after: BomLine[]; version: number };
  links?: { before: DocumentLinkRecord[]; after: DocumentLinkRecord[] };
  /** An update's blind attributes (blindAttributes): recorded as changed even when their values stay. */
  blind?: string[];
}

interface NewDocument {
  inputIndex: number;
  draft: Omit<ComponentRecord, 'cpn'>;
  plan: CpnPlan;
  cpn?: string;
}

interface Stored {
  components: Map<string, ComponentRecord>;
  boms: Map<string, BomRecord>;
  links: Map<string, DocumentLinksRecord>;
}

export class SimulatedCrashError extends Error {}

/** Everything the call reads, in batch reads of up to 100 keys: components, their BOMs and document links. */
async function readStored(store: Store, ctx: WriteContext, parentIds: string[], referencedIds: string[]): Promise<Stored> {
  const { organizationId: org, libraryId: lib } = ctx;
  const componentIds = [...new Set([...parentIds, ...referencedIds])];
  const { components: found, boms, links } = await getComponentsWithRelations(store, org, lib, componentIds, parentIds);
  const components = new Map<string, ComponentRecord>();
  // Re-read through the store's visibility rules: uncommitted components of other writes do not exist.
  const foundIds = found.map((r) => r.id);
  const visible = found.some((r) => r.writeId) ? [...(await getComponents(store, org, lib, foundIds, true)).values()] : found;
  for (const record of visible) components.set(record.id, record);
  return { components, boms, links };
}

function documentDraft(ctx: WriteContext, document: DocumentCommand, inputIndex: number): { draft: Omit<ComponentRecord, 'cpn'>; plan: CpnPlan } {
  const categoryId = document.categoryId ?? ctx.config.categories.categories.find((c) => c.type === 'DOCUMENT' && !c.archived)?.id;
  if (!categoryId) throw new ComponentInputError('This library has no active DOCUMENT category for documents', 'documents', inputIndex);
  const command: CreateComponentCommand = { name: document.name, categoryId, fileId: document.fileId };
  const draft = buildNewComponent(ctx, command, inputIndex, randomUUID());
  if (draft.category.type !== 'DOCUMENT') {
    throw new BomError('NOT_A_DOCUMENT', `inputs[${inputIndex}]: documents need a DOCUMENT category; ${draft.category.name} is a ${draft.category.type}`, { inputIndex });
  }
  return { draft, plan: planCpn(ctx.config.cpnScheme, command, findCategory(ctx.config, draft.categoryId)!, inputIndex) };
}

/** Applies children and document fields of one input to its component. */
function applyRelations(
  ctx: WriteContext,
  input: CreateItemCommand | UpdateItemCommand,
  inputIndex: number,
  parent: ComponentRecord,
  stored: Stored,
  newDocuments: NewDocument[],
): Pick<ParentWrite, 'bom' | 'links'> {
  const result: Pick<ParentWrite, 'bom' | 'links'> = {};
  const currentBom = stored.boms.get(parent.id);
  const currentLines = currentBom?.lines ?? [];
  if (input.children !== undefined && input.children !== null) {
    result.bom = {
      before: currentLines,
      after: desiredLines(parent, input.children, currentBom, stored.components, inputIndex, ctx.at, ctx.userId, ctx.actingIntegrationId),
      version: (currentBom?.bomVersion ?? 0) + 1,
    };
  } else if (parent.category.type !== 'ASSEMBLY' && currentLines.length > 0) {
    throw new BomError('NOT_AN_ASSEMBLY', `inputs[${inputIndex}]: a ${parent.category.type} has no children; send children: [] to unlink them with the category change`, { inputIndex });
  }

  const currentLinks = stored.links.get(parent.id)?.links ?? [];
  const remove = new Set((input as UpdateItemCommand).removeDocumentLinkIds ?? []);
  for (const linkId of remove) {
    if (!currentLinks.some((l) => l.linkId === linkId)) {
      throw new BomError('DOCUMENT_LINK_NOT_FOUND', `inputs[${inputIndex}]: ${parent.name} has no document link ${linkId}`, { inputIndex, linkId });
    }
  }
  const links = currentLinks.filter((l) => !remove.has(l.linkId));
  const link = (documentId: string) => {
    if (!links.some((l) => l.documentId === documentId)) links.push({ linkId: randomUUID(), documentId, createdAt: ctx.at, createdBy: ctx.userId });
  };
  for (const documentId of input.documentComponentIds ?? []) {
    const document = stored.components.get(documentId);
    if (!document) throw new BomError('DOCUMENT_NOT_FOUND', `inputs[${inputIndex}]: document ${documentId} does not exist in this library`, { inputIndex, documentId });
    if (document.category.type !== 'DOCUMENT') {
      throw new BomError('NOT_A_DOCUMENT', `inputs[${inputIndex}]: ${document.name} is a ${document.category.type}, not a document`, { inputIndex, documentId });
    }
    link(documentId);
  }
  for (const document of input.documents ?? []) {
    const created = documentDraft(ctx, document, inputIndex);
    newDocuments.push({ inputIndex, ...created });
    link(created.draft.id);
  }
  if (JSON.stringify(links) !== JSON.stringify(currentLinks)) result.links = { before: currentLinks, after: links };
  return result;
}

function relationChanges(write: Pick<ParentWrite, 'bom' | 'links'>): HistoryChange[] {
  const changes: HistoryChange[] = [];
  const bom = write.bom ? bomChange(write.bom.before, write.bom.after) : null;
  if (bom) changes.push(bom);
  if (write.links) changes.push({ field: 'documentLinks', from: write.links.before.map((l) => l.documentId), to: write.links.after.map((l) => l.documentId) });
  return changes;
}

function parentItems(ctx: WriteContext, write: ParentWrite) {
  const { organizationId: org, libraryId: lib } = ctx;
  const changes = relationChanges(write);
  const items: WriteItem[] = write.before ? updatedComponentItems(ctx, write.before, write.after, changes, write.blind) : newComponentItems(ctx, ctx.config.cpnScheme, write.after, changes);
  if (write.bom && changes.some((c) => c.field === 'children')) {
    const record: BomRecord = {
      assemblyId: write.after.id,
      bomVersion: write.bom.version,
      lines: write.bom.after,
      childIds: bomChildIds(write.bom.after),
      updatedAt: ctx.at,
      updatedBy: ctx.userId,
      writeId: null,
    };
    items.push(bomPut(org, lib, record));
    items.push(bomSnapshotPut(org, lib, { ...record, actingIntegrationId: ctx.actingIntegrationId }));
  }
  if (write.links) {
    items.push(documentLinksPut(org, lib, { componentId: write.after.id, links: write.links.after, updatedAt: ctx.at, writeId: null }));
  }
  return explainedBy(items, () => writeFailure(write));
}

/**
 * item.create / item.update: components with their BOMs and documents, all or nothing.
 *
 * The whole call is validated before anything is written. When its items fit one TransactWriteItems
 * (100 items) it is one transaction. Otherwise the documents it creates are written first under a write id
 * (invisible to every reader), and one transaction writes every component, BOM and link change together
 * with the commit record; a failure before that commit leaves nothing visible, and abandoned items are
 * removed by cleanupAbandonedWrites.
 */
export async function writeItems(store: Store, ctx: WriteContext, mode: 'create' | 'update', inputs: (CreateItemCommand | UpdateItemCommand)[], options: ItemWriteOptions): Promise<ComponentRecord[]> {
  checkItemWriteLimits(inputs);
  const updates = mode === 'update' ? (inputs as UpdateItemCommand[]) : [];
  // children is a desired state: omitted keeps the BOM, [] empties it; a null says neither, so it is refused
  // (before anything is read) rather than taken as one of them.
  updates.forEach((input, inputIndex) => {
    if (input.children === null) {
      throw new ComponentInputError('children cannot be null: omit children to keep the BOM as it is, or send [] to remove every child', 'children', inputIndex);
    }
  });
  const parentIds = updates.map((input) => input.id);
  checkInputIds(parentIds);
  const referenced = inputs.flatMap((input) => [...(input.children ?? []).flatMap((c) => [c.childId, ...(c.substitutes ?? [])]), ...(input.documentComponentIds ?? [])]);
  const stored = await readStored(store, ctx, parentIds, referenced);

  const newDocuments: NewDocument[] = [];
  const writes: ParentWrite[] = inputs.map((input, inputIndex) => {
    if (mode === 'update') {
      const update = input as UpdateItemCommand;
      const before = stored.components.get(update.id);
      if (!before) throw new ComponentNotFoundError(update.id, inputIndex);
      if (update.expectedVersion !== undefined && update.expectedVersion !== null && update.expectedVersion !== before.version) {
        throw new VersionConflictError(update.id, update.expectedVersion, before.version, inputIndex);
      }
      const applied = applyUpdate(ctx, before, update, inputIndex);
      const relations = applyRelations(ctx, input, inputIndex, applied, stored, newDocuments);
      // A withheld attribute it sends is a change even when its value stays (blindAttributes).
      const { blind, changes } = updateChanges(ctx, before, applied, update);
      const changed = changes.length > 0 || relationChanges(relations).length > 0;
      return { inputIndex, before, after: changed ? nextVersion(ctx, before, applied) : before, blind, ...relations };
    }
    const draft = buildNewComponent(ctx, input as CreateItemCommand, inputIndex, randomUUID());
    const plan = planCpn(ctx.config.cpnScheme, input as CreateItemCommand, findCategory(ctx.config, draft.categoryId)!, inputIndex);
    const placeholder = { ...draft, cpn: '' };
    return { inputIndex, before: null, after: placeholder, cpnPlan: plan, ...applyRelations(ctx, input, inputIndex, placeholder, stored, newDocuments) };
  });

  // Substitutes are edges too: a substitute that contains its assembly would make a cycle the day it is used.
  const changedBoms = new Map(writes.filter((w) => w.bom).map((w) => [w.after.id, bomChildIds(w.bom!.after)]));
  // The BOM versions the cycle check relied on: the write is conditional on them, so that two concurrent
  // calls that each add one half of a cycle cannot both land.
  const traversed = new Map<string, number | null>();
  const cycle = await findBomCycle(changedBoms, async (ids) => {
    const boms = await getBoms(store, ctx.organizationId, ctx.libraryId, ids, true);
    for (const id of ids) traversed.set(id, null);
    for (const bom of boms.values()) traversed.set(bom.assemblyId, bom.bomVersion);
    return new Map([...boms.values()].map((bom) => [bom.assemblyId, bom.childIds]));
  });
  if (cycle) throw new BomCycleError(cycle.map((id) => stored.components.get(id)?.name ?? writes.find((w) => w.after.id === id)?.after.name ?? id));

  // Files named for the first time in this call must be completed uploads; a failure names its input.
  const inputOfFile = new Map<string, number>();
  for (const { inputIndex, draft } of [...newDocuments.map((d) => ({ inputIndex: d.inputIndex, draft: d.draft })), ...writes.map((w) => ({ inputIndex: w.inputIndex, draft: w.after }))]) {
    const previous = writes[inputIndex]?.before;
    for (const id of [draft.fileId, draft.imageFileId]) {
      if (id && id !== previous?.fileId && id !== previous?.imageFileId && !inputOfFile.has(id)) inputOfFile.set(id, inputIndex);
    }
  }
  if (inputOfFile.size > 0) {
    await ctx.checkFiles([...inputOfFile.keys()]).catch((error: unknown) => {
      if (error instanceof FileError && typeof error.details.fileId === 'string') throw error.forInput(inputOfFile.get(error.details.fileId) ?? 0);
      throw error;
    });
  }

  checkChosenCpnsUnique(ctx, writes, newDocuments);
  await assertChosenCpnsFree(store, ctx.organizationId, ctx.libraryId, ctx.config.cpnScheme, [
    ...writes.flatMap((w) => (w.cpnPlan ? [{ plan: w.cpnPlan, inputIndex: w.inputIndex }] : [])),
    ...newDocuments,
  ]);
  for (const write of writes) {
    if (write.cpnPlan) write.after = { ...write.after, cpn: await allocateCpn(store, ctx.organizationId, ctx.libraryId, ctx.config.cpnScheme, write.cpnPlan, write.inputIndex) };
  }
  for (const document of newDocuments) {
    document.cpn = await allocateCpn(store, ctx.organizationId, ctx.libraryId, ctx.config.cpnScheme, document.plan, document.inputIndex);
  }

  const changedWrites = writes.filter((w) => w.before === null || w.after !== w.before);
  const documentItems = newDocuments.map((d) => documentWriteItems(ctx, d));
  const parentItemLists = changedWrites.map((w) => parentItems(ctx, w));
  const usage = usageChanges(changedWrites);
  const usageItemLists = [...usage.added].map(([childId, { assemblyIds, inputIndex }]) =>
    explainedBy(
      [usageAddItem(ctx.organizationId, ctx.libraryId, childId, assemblyIds)],
      () => new BomError('CHILD_NOT_FOUND', `inputs[${inputIndex}]: component ${childId} was deleted while this call ran`, { inputIndex, childId }),
    ),
  );
  const total = documentItems.flat().length + parentItemLists.flat().length + usageItemLists.flat().length;
  if (total === 0) return writes.map((w) => w.after);
  const bomChecks = (room: number): WriteItem[] =>
    [...traversed.entries()]
      .filter(([id]) => !changedBoms.has(id))
      .slice(0, Math.max(0, room))
      .map(([id, version]) => bomVersionCheck(ctx.organizationId, ctx.libraryId, id, version, () => new ConcurrentWriteError('A BOM this call builds on')));
  if (total <= maxTransactionItems) {
    const written = [...parentItemLists.flat(), ...documentItems.flat()];
    const usageItems = usageItemLists.flat();
    await transactWrite(store, [...written, ...usageItems, ...bomChecks(maxTransactionItems - written.length - usageItems.length)]);
  } else {
    await writeInTwoPhases(store, ctx, newDocuments, parentItemLists, options, bomChecks, usageItemLists);
  }
  await options.afterCommit?.();
  await Promise.all(usage.removed.map(({ assemblyId, bomVersion, childIds }) => removeUsageAfterWrite(store, ctx.organizationId, ctx.libraryId, assemblyId, bomVersion, childIds)));
  return writes.map((w) => w.after);
}

/**
 * The where-used entries a write adds (child or substitute -> assemblies that start using it) and removes
 * (per assembly: the children its new BOM, at `bomVersion`, no longer uses).
 */
function usageChanges(writes: ParentWrite[]) {
  const added = new Map<string, { assemblyIds: string[]; inputIndex: number }>();
  const removed: { assemblyId: string; bomVersion: number; childIds: string[] }[] = [];
  for (const write of writes) {
    if (!write.bom) continue;
    const before = new Set(bomChildIds(write.bom.before));
    const after = new Set(bomChildIds(write.bom.after));
    for (const childId of after) {
      if (before.has(childId)) continue;
      const entry = added.get(childId) ?? { assemblyIds: [], inputIndex: write.inputIndex };
      entry.assemblyIds.push(write.after.id);
      added.set(childId, entry);
    }
    const gone = [...before].filter((childId) => !after.has(childId));
    if (gone.length) removed.push({ assemblyId: write.after.id, bomVersion: write.bom.version, childIds: gone });
  }
  return { added, removed };
}

function checkChosenCpnsUnique(ctx: WriteContext, writes: ParentWrite[], documents: NewDocument[]): void {
  const seen = new Set<string>();
  for (const { plan, inputIndex } of [...writes.flatMap((w) => (w.cpnPlan ? [{ plan: w.cpnPlan, inputIndex: w.inputIndex }] : [])), ...documents]) {
    if (plan.kind !== 'chosen') continue;
    const key = normalizeCpn(ctx.config.cpnScheme, plan.cpn);
    if (seen.has(key)) throw new CpnError('CPN_TAKEN', `CPN "${plan.cpn}" is given twice in this call`, inputIndex, { cpn: plan.cpn });
    seen.add(key);
  }
}

/** What a failed condition of a parent write means: its component changed, or its new CPN was taken. */
function writeFailure(write: ParentWrite): Error {
  if (write.before) return new VersionConflictError(write.before.id, write.before.version, undefined, write.inputIndex);
  return new CpnError('CPN_TAKEN', `CPN "${write.after.cpn}" is already used in this library (CPNs are never reused)`, write.inputIndex, { cpn: write.after.cpn });
}

/**
 * A new document's items; any failed condition among them means its CPN was taken. `writeId`: the
 * document of a large write, invisible until that write commits.
 */
function documentWriteItems(ctx: WriteContext, document: NewDocument, writeId?: string): WriteItem[] {
  return explainedBy(
    newComponentItems(ctx, ctx.config.cpnScheme, { ...document.draft, cpn: document.cpn! }, [], writeId),
    () => new CpnError('CPN_TAKEN', `CPN "${document.cpn}" is already used in this library (CPNs are never reused)`, document.inputIndex, { cpn: document.cpn }),
  );
}

async function writeInTwoPhases(
  store: Store,
  ctx: WriteContext,
  documents: NewDocument[],
  parentItemLists: WriteItem[][],
  options: ItemWriteOptions,
  bomChecks: (room: number) => WriteItem[],
  usageItemLists: WriteItem[][],
): Promise<void> {
  const { organizationId: org, libraryId: lib } = ctx;
  const writeId = randomUUID();
  const documentItems = documents.map((d) => documentWriteItems(ctx, d, writeId));
  const keys = putKeys(documentItems.flat());
  await putPendingWrite(store, org, lib, { writeId, status: 'PENDING', keys, createdAt: ctx.at, refreshSearchOf: [], settledAt: null });
  const perChunk = Math.floor(maxTransactionItems / (cpnClaimOffset + 1));
  try {
    for (let start = 0; start < documentItems.length; start += perChunk) {
      const chunk = documentItems.slice(start, start + perChunk);
      await transactWrite(store, chunk.flat());
      if (options.crashAfterFirstPendingWrite) throw new SimulatedCrashError('simulated crash after the first pending write');
    }
    // Where-used entries go before the commit, each on condition that the child was not deleted: a delete
    // racing this write either fails on the entry or makes it fail. An entry of a write that never
    // commits is stale, which readers and deletes tolerate (they confirm entries against the BOMs).
    for (let start = 0; start < usageItemLists.length; ) {
      let end = start;
      let size = 0;
      while (end < usageItemLists.length && size + usageItemLists[end]!.length <= maxTransactionItems) size += usageItemLists[end++]!.length;
      await transactWrite(store, usageItemLists.slice(start, end).flat());
      start = end;
    }
    const commit = [...parentItemLists.flat(), ...explainedBy([commitPendingWriteUpdate(org, lib, writeId)], () => new ConcurrentWriteError('A BOM this call builds on'))];
    await transactWrite(store, [...commit, ...bomChecks(maxTransactionItems - commit.length)]);
  } catch (error) {
    // A simulated crash leaves everything as a dead process would: cleanup of abandoned writes handles it.
    if (!(error instanceof SimulatedCrashError)) await settleAbortedWrite(store, org, lib, writeId, keys, ctx.at);
    throw error;
  }
  await settleCommittedWrite(store, org, lib, writeId, keys, ctx.at);
}
