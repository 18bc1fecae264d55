import {
  BadRequestError,
  LibraryAccessDeniedError,
  MissingHeadersError,
  OrganizationAccessDeniedError,
  PermissionDeniedError,
} from '../errors.js';
import { isUuid } from '../orgs/slugs.js';
import type { Store } from '../store/client.js';
import { findLibraryIdBySlug, getLibrary, type LibraryRecord } from '../store/library.js';
import { getMembership, type MembershipRecord } from '../store/membership.js';
import { findOrganizationIdBySlug, getOrganization, type OrganizationRecord } from '../store/organization.js';
import type { Caller } from './caller.js';
import type { PermissionName } from './permissions.js';
import { systemRoles, type OrganizationRoleName } from './roles.js';

/** What an operation needs from the request: which context headers, and which permission. */
export type OperationScope = 'user' | 'organization' | 'library';

export interface AccessRule {
  scope: OperationScope;
  /** null: any authenticated caller (e.g. user.me); the scope still applies. */
  permission: PermissionName | null;
}

export interface ContextHeaders {
  organization?: string | undefined;
  library?: string | undefined;
}

export interface OrganizationAccess {
  organization: OrganizationRecord;
  membership: MembershipRecord;
}

export interface LibraryAccess extends OrganizationAccess {
  library: LibraryRecord;
}

/**
 * The caller's access in one request. Resolves x-organization and x-library (UUID or slug) lazily, once,
 * and checks a rule against the caller's effective role: the organization role, overridden by a library
 * role in that library. An organization or library the caller cannot use is refused the same way whether
 * it exists or not.
 */
export class RequestAccess {
  private organizationAccess?: Promise<OrganizationAccess>;
  private libraryAccess?: Promise<LibraryAccess>;

  constructor(
    private readonly store: Store,
    readonly caller: Caller,
    private readonly headers: ContextHeaders,
  ) {}

  async authorize(rule: AccessRule): Promise<void> {
    if (rule.scope === 'user') return;
    this.requireHeaders(rule.scope);
    if (rule.scope === 'organization') {
      const access = await this.organization();
      this.requirePermission(rule.permission, access.membership.role);
      // An API key belongs to one library: a mismatching x-library is refused even on organization operations.
      if (this.caller.kind === 'apiKey' && this.headers.library) await this.library();
      return;
    }
    const access = await this.library();
    this.requirePermission(rule.permission, access.membership.libraryRoles[access.library.id] ?? access.membership.role);
  }

  /** The caller's permissions in the library of x-library (its effective role there). */
  async libraryPermissions(): Promise<ReadonlySet<PermissionName>> {
    const access = await this.library();
    return systemRoles[access.membership.libraryRoles[access.library.id] ?? access.membership.role].permissions;
  }

  organization(): Promise<OrganizationAccess> {
    this.organizationAccess ??= this.resolveOrganization();
    return this.organizationAccess;
  }

  library(): Promise<LibraryAccess> {
    this.libraryAccess ??= this.resolveLibrary();
    return this.libraryAccess;
  }

  private requireHeaders(scope: 'organization' | 'library'): void {
    const missing: string[] = [];
    if (!this.headers.organization) missing.push('x-organization');
    if (scope === 'library' && !this.headers.library) missing.push('x-library');
    if (missing.length > 0) throw new MissingHeadersError(missing);
  }

  private requirePermission(permission: PermissionName | null, role: OrganizationRoleName): void {
    if (permission && !systemRoles[role].permissions.has(permission)) throw new PermissionDeniedError(permission);
  }

  private async resolveOrganization(): Promise<OrganizationAccess> {
    const reference = this.headers.organization;
    if (!reference) throw new MissingHeadersError(['x-organization']);
    const organizationId = await this.organizationIdFor(reference);
    if (!organizationId) throw new OrganizationAccessDeniedError();
    if (this.caller.kind === 'apiKey' && this.caller.organizationId !== organizationId) throw new OrganizationAccessDeniedError();
    const [organization, membership] = await Promise.all([
      getOrganization(this.store, organizationId),
      getMembership(this.store, organizationId, this.caller.userId),
    ]);
    if (!organization || !membership) throw new OrganizationAccessDeniedError();
    return { organization, membership };
  }

  private async organizationIdFor(reference: string): Promise<string | undefined> {
    if (isUuid(reference)) return reference.toLowerCase();
    if (reference.startsWith('@') && !reference.includes('/')) return findOrganizationIdBySlug(this.store, reference.slice(1));
    throw new BadRequestError('x-organization must be an organization UUID or @org_slug', { header: 'x-organization' });
  }

  private async resolveLibrary(): Promise<LibraryAccess> {
    const reference = this.headers.library;
    if (!reference) throw new MissingHeadersError(['x-library']);
    const access = await this.organization();
    const libraryId = await this.libraryIdFor(reference, access.organization);
    if (this.caller.kind === 'apiKey' && this.caller.libraryId !== libraryId) {
      throw new LibraryAccessDeniedError('x-library does not name the library this API key was created for');
    }
    const library = libraryId ? await getLibrary(this.store, access.organization.id, libraryId) : undefined;
    if (!library) throw new LibraryAccessDeniedError();
    return { ...access, library };
  }

  private async libraryIdFor(reference: string, organization: OrganizationRecord): Promise<string | undefined> {
    if (isUuid(reference)) return reference.toLowerCase();
    const path = /^@([^/]+)\/([^/]+)$/.exec(reference);
    if (!path) throw new BadRequestError('x-library must be a library UUID or @org_slug/library_slug', { header: 'x-library' });
    // A path into another organization is not a library of this one.
    if (path[1] !== organization.slug) return undefined;
    return findLibraryIdBySlug(this.store, organization.id, path[2]!);
  }
}
