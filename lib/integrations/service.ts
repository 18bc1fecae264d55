import * as z from 'zod';
import type { WriteContext } from '../components/rules.js';
import { attributesToCheck, blindAttributes, mergeAttributeValues, writtenAttributes } from '../components/rules.js';
import type { UpdateComponentCommand } from '../components/commands.js';
import { updateComponentVersions } from '../components/service.js';
import { updatedComponentItems } from '../components/transactItems.js';
import { loadLibraryConfiguration, type LibraryConfiguration } from '../config/libraryConfig.js';
import { ComponentLockedError, ComponentNotFoundError, ConcurrentWriteError, IntegrationAccessError, PermissionDeniedError, VersionConflictError } from '../errors.js';
import { parseInput } from '../input.js';
import { putAccessPolicy } from '../store/accessPolicy.js';
import type { Store } from '../store/client.js';
import { getComponent, type ComponentRecord } from '../store/component.js';
import { nowIso, transactWrite } from '../store/items.js';
import {
  applyChanges,
  canRead,
  designationOf,
  isSourcingAttribute,
  managersOf,
  readAccesses,
  suggestedDesignation,
  writeDecision,
  writeDesignations,
  type AccessPolicy,
  type WriteDesignation,
} from '../model/attributeAccess.js';
import { findPrincipal, listPrincipals } from './principals.js';

/** Every attribute the library's categories define (archived ones included: their designations stay). */
export function libraryAttributes(config: LibraryConfiguration): Map<string, { id: string; name: string; categoryIds: string[] }> {
  const attributes = new Map<string, { id: string; name: string; categoryIds: string[] }>();
  for (const category of config.categories.categories) {
    for (const attribute of category.attributes) {
      const known = attributes.get(attribute.id) ?? { id: attribute.id, name: attribute.name, categoryIds: [] };
      known.categoryIds.push(category.id);
      attributes.set(attribute.id, known);
    }
  }
  return attributes;
}

const entriesInput = z
  .array(
    z.object({
      attribute: z.string().min(1).max(128),
      principal: z.string().min(1).max(128),
      write: z.enum(writeDesignations).nullish(),
      read: z.enum(readAccesses).nullish(),
    }),
  )
  .min(1, 'give at least one entry')
  .max(500, 'at most 500 entries per call');

/**
 * setAttributeAccess: the entries applied in order to the library's policy, all or none (a refused entry
 * leaves every designation as it was). Conditioned on the policy version read; a concurrent change makes
 * it read again and apply the entries to the new policy, under the same rules.
 */
export async function setAttributeAccess(store: Store, scope: { organizationId: string; libraryId: string; userId: string }, entries: unknown): Promise<AccessPolicy> {
  const changes = parseInput(entriesInput, entries, 'entries');
  for (let attempt = 0; ; attempt += 1) {
    const config = await loadLibraryConfiguration(store, scope.organizationId, scope.libraryId);
    const attributes = libraryAttributes(config);
    changes.forEach((change, index) => {
      if (!attributes.has(change.attribute) && !isSourcingAttribute(change.attribute)) {
        throw new IntegrationAccessError(
          'ATTRIBUTE_NOT_FOUND',
          `entries[${index}]: no category of this library defines attribute "${change.attribute}" (nor is it sourcing.parts or sourcing.quotes)`,
          {
            entryIndex: index,
            attribute: change.attribute,
          },
        );
      }
    });
    await Promise.all([...new Set(changes.map((c) => c.principal))].map((id) => findPrincipal(store, scope.organizationId, id)));
    const next = applyChanges(config.accessPolicy, changes);
    try {
      await putAccessPolicy(store, scope.organizationId, scope.libraryId, config.accessPolicy.version, next, nowIso(), scope.userId);
      return next;
    } catch (error) {
      if (!(error instanceof ConcurrentWriteError) || attempt >= 3) throw error;
    }
  }
}

/** The policy of the library: every stored designation as set. */
export async function accessPolicyOf(store: Store, organizationId: string, libraryId: string): Promise<AccessPolicy & { config: LibraryConfiguration }> {
  const config = await loadLibraryConfiguration(store, organizationId, libraryId);
  return { ...config.accessPolicy, config };
}

/**
 * recommendedAttributes: for one principal, every attribute of the library with what it holds now and what
 * it could take: EXCLUSIVE_WRITE when nobody else manages it, WRITE when others share it, NO_WRITE when
 * another manages it exclusively.
 */
export async function recommendedAttributes(store: Store, organizationId: string, libraryId: string, principalId: string) {
  const [config, principal] = await Promise.all([loadLibraryConfiguration(store, organizationId, libraryId), findPrincipal(store, organizationId, principalId)]);
  const policy = config.accessPolicy;
  return [...libraryAttributes(config).values()]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((attribute) => {
      const own = designationOf(policy, attribute.id, principal.id);
      const managers = managersOf(policy, attribute.id);
      return {
        attributeId: attribute.id,
        name: attribute.name,
        categoryIds: attribute.categoryIds,
        write: own.write,
        read: own.read,
        canRead: canRead(policy, principal.id, attribute.id),
        managedBy: managers.map((m) => m.principal),
        recommendedWrite: suggestedDesignation(policy, principal.id, attribute.id),
      };
    });
}

async function currentComponent(store: Store, ctx: WriteContext, componentId: string): Promise<ComponentRecord> {
  const component = await getComponent(store, ctx.organizationId, ctx.libraryId, componentId, true);
  if (!component) throw new ComponentNotFoundError(componentId, 0);
  return component;
}

/**
 * linkComponent / unlinkComponent: adds or removes one principal's link, as a new version of the component
 * (history records the links; the state does not change: linking is not a design change). A caller acts
 * for its own principal with components.update; linking another principal needs integrations.configure.
 * Linking is additive and idempotent; unlinking leaves the attributes it managed frozen if no other
 * linked principal manages them.
 */
export async function setComponentLink(store: Store, ctx: WriteContext, componentId: string, principalId: string | null | undefined, link: boolean): Promise<ComponentRecord> {
  const principal = await findPrincipal(store, ctx.organizationId, principalId ?? ctx.principalId);
  if (principal.id !== ctx.principalId && !ctx.permissions.has('integrations.configure')) throw new PermissionDeniedError('integrations.configure');
  for (let attempt = 0; ; attempt += 1) {
    const before = await currentComponent(store, ctx, componentId);
    if (before.lockedBy) throw new ComponentLockedError(before.id, before.lockedBy);
    if (before.links.includes(principal.id) === link) return before;
    const links = link ? [...before.links, principal.id] : before.links.filter((id) => id !== principal.id);
    const after: ComponentRecord = { ...before, links, version: before.version + 1, updatedAt: ctx.at, updatedBy: ctx.userId };
    // A component changed meanwhile is read again (up to five times).
    const changed = () => new ConcurrentWriteError(`Component ${before.id}`);
    try {
      await transactWrite(store, updatedComponentItems(ctx, before, after, [{ field: 'links', from: before.links, to: links }]), { otherwise: changed, onConflict: changed });
      return after;
    } catch (error) {
      if (!(error instanceof ConcurrentWriteError) || attempt >= 4) throw error;
    }
  }
}

export interface ReconcileCommand extends Omit<UpdateComponentCommand, 'id'> {
  componentId: string;
}

export interface ReconcileRefusal {
  field: string;
  attributeId: string;
  code: string;
  message: string;
}

/**
 * reconcile: an integration's view of a component. Attribute values the acting principal may not write
 * (by the same rules as a direct update) are left out and reported as refused with the rule's code; the
 * rest is applied as component.update would (validation failures fail the call, nothing written). A view
 * that changes nothing writes nothing.
 */
export async function reconcile(store: Store, ctx: WriteContext, command: ReconcileCommand) {
  const { componentId, ...fields } = command;
  const before = await currentComponent(store, ctx, componentId);
  if (fields.expectedVersion !== undefined && fields.expectedVersion !== null && fields.expectedVersion !== before.version) {
    throw new VersionConflictError(componentId, fields.expectedVersion, before.version, 0);
  }
  const proposed = mergeAttributeValues(before.attributeValues, fields.attributeValues);
  const refused: ReconcileRefusal[] = [];
  const blocked = new Set<string>();
  // Withheld attributes it sends count whether or not they change: the answer never depends on a value it cannot read.
  for (const attributeId of attributesToCheck(ctx.config.accessPolicy, ctx.principalId, before.attributeValues, proposed, fields)) {
    const decision = writeDecision(ctx.config.accessPolicy, ctx.principalId, attributeId, before.links);
    if (decision.allowed) continue;
    blocked.add(attributeId);
    refused.push({ field: `attributeValues.${attributeId}`, attributeId, code: decision.code, message: decision.reason });
  }
  const attributeValues = fields.attributeValues?.filter((change) => !blocked.has(change.attributeId));
  // `written.before`: the version the update was applied to (read again after a concurrent write), so that
  // `applied` lists this call's changes only, never another writer's that landed in between.
  const [written] = await updateComponentVersions(store, ctx, [{ ...fields, id: componentId, attributeValues }], new Map([[componentId, before]]));
  // The blind attributes it wrote are applied whether or not their values changed (as updateComponents wrote them).
  const applied = changedFields(written!.before, written!.after, blindAttributes(ctx.config.accessPolicy, ctx.principalId, { attributeValues }));
  return { component: written!.after, applied, refused, changed: applied.length > 0 };
}

function changedFields(before: ComponentRecord, after: ComponentRecord, blind: readonly string[]): { field: string; attributeId: string | null }[] {
  if (before.version === after.version) return [];
  const fields: { field: string; attributeId: string | null }[] = [];
  for (const field of ['name', 'description', 'statusId', 'revisionValue', 'categoryId', 'eid', 'labels', 'documentFormats', 'isArchived', 'notRevisionManaged', 'fileId', 'imageFileId'] as const) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) fields.push({ field, attributeId: null });
  }
  for (const attributeId of writtenAttributes(before.attributeValues, after.attributeValues, blind)) fields.push({ field: `attributeValues.${attributeId}`, attributeId });
  return fields;
}

export type { WriteDesignation };
export { listPrincipals };
