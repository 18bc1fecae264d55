import type { AttributeDefinition } from '../config/categories.js';
import type { ConfigType } from '../store/libraryConfig.js';
import { PermissionDeniedError } from '../errors.js';
import type { PermissionName } from './permissions.js';
import { canRead, writeDecision, type AccessPolicy } from '../model/attributeAccess.js';

/** What the caller may do with a component, from their effective permissions in its library. */
export function viewerAccess(permissions: ReadonlySet<PermissionName>) {
  return {
    canRead: permissions.has('components.read'),
    canUpdate: permissions.has('components.update'),
    canDelete: permissions.has('components.delete'),
    canCreateRevision: permissions.has('components.revision.create'),
  };
}

/**
 * Per attribute of the component's category, for the calling principal: canRead unless the value is
 * withheld from it; canWrite with components.update, unless archived or refused by the attribute access
 * rules on this component's links (managed by another linked principal, frozen, or NO_WRITE).
 */
export function effectiveAttributeAccess(permissions: ReadonlySet<PermissionName>, attributes: readonly AttributeDefinition[], policy: AccessPolicy, principal: string, links: readonly string[]) {
  const mayUpdate = permissions.has('components.update');
  return attributes.map((attribute) => ({
    attributeId: attribute.id,
    canRead: canRead(policy, principal, attribute.id),
    canWrite: mayUpdate && !attribute.archived && writeDecision(policy, principal, attribute.id, links).allowed,
  }));
}

/**
 * Setting a configuration document needs library.settings.update (the operation's own rule) and, for the
 * statuses and categories documents, the permission that manages them.
 */
export function assertMayConfigure(permissions: ReadonlySet<PermissionName>, type: ConfigType): void {
  const needed: PermissionName | null = type === 'STATUSES' ? 'library.statuses.manage' : type === 'CATEGORIES' ? 'library.categories.manage' : null;
  if (needed && !permissions.has(needed)) throw new PermissionDeniedError(needed);
}
