import { nativePrincipalId } from '../model/attributeAccess.js';
import { getIntegration } from '../store/integration.js';
import { keyHasRole, memberAccess } from './keyRole.js';
import {
  ApiKeyRoleForbiddenError,
  BadRequestError,
  IntegrationAccessError,
  LibraryAccessDeniedError,
  LibraryImportError,
  MissingHeadersError,
  OrganizationAccessDeniedError,
  PermissionDeniedError,
} from '../errors.js';
import { isUuid } from '../model/slugs.js';
import type { Store } from '../store/client.js';
import { batchGetItems, keyString, parseItem, type Key } from '../store/items.js';
import { findLibraryIdBySlug, getLibrary, libraryKey, libraryRecord, librarySlugKey, type LibraryRecord } from '../store/library.js';
import { getMembership, membershipKey, membershipRecord, type MembershipRecord } from '../store/membership.js';
import { findOrganizationIdBySlug, getOrganization, organizationKey, organizationRecord, organizationSlugKey, type OrganizationRecord } from '../store/organization.js';
import type { Caller } from './caller.js';
import type { PermissionName } from './permissions.js';
import type { EffectiveAccess } from './effective.js';

/** What an operation needs from the request: which context headers, and which permission. */
export type OperationScope = 'user' | 'organization' | 'library';

export interface AccessRule {
  scope: OperationScope;
  /** null: any authenticated caller (e.g. user.me); the scope still applies. */
  permission: PermissionName | null;
  /** Answers in a library closed by an import (reading the import's own job); refused by default. */
  openDuringImport?: boolean;
  /** A person's own act (creating an organization, accepting an invitation): refused to an API key with a role. */
  personOnly?: boolean;
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
  private effectiveAccess?: Promise<EffectiveAccess>;
  private libraryAccess?: Promise<LibraryAccess>;

  /**
   * `prefetched`: the items of apiKeyContextKeys, when the caller's authentication already read them in
   * the same round trip (an API key carries its organization, library and owner ids), and with them the
   * items read ahead for the operation (`readAheadKeys`, see readAhead).
   */
  constructor(
    private readonly store: Store,
    readonly caller: Caller,
    private readonly headers: ContextHeaders,
    private readonly prefetched?: ReadonlyMap<string, Record<string, unknown>>,
    private readonly readAheadKeys: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * An item of the caller's library that the context's read brought ahead for the operation: the item, null
   * when it was read and is absent, undefined when it was not read ahead (read it as usual). Answers only
   * once this request's library access holds, so an item read beside a credential that then fails, or
   * under headers that name another library, is never handed out.
   */
  readonly readAhead = async (key: Key): Promise<Record<string, unknown> | null | undefined> => {
    const name = keyString(key);
    if (!this.readAheadKeys.has(name)) return undefined;
    await this.library();
    return this.prefetched?.get(name) ?? null;
  };

  private principalId: Promise<string> | undefined;

  /** An organization item this request has already read (an API key's context batch), or undefined. */
  knownOrganization(organizationId: string): OrganizationRecord | undefined {
    const item = this.prefetched?.get(keyString(organizationKey(organizationId)));
    return item ? parseItem(organizationRecord, item, 'organization') : undefined;
  }

  async authorize(rule: AccessRule): Promise<void> {
    if (rule.personOnly && this.actsWithKeyRole) {
      throw new ApiKeyRoleForbiddenError("This operation is a person's own");
    }
    if (rule.scope === 'user') return;
    this.requireHeaders(rule.scope);
    if (rule.scope === 'organization') {
      await Promise.all([this.organization(), this.principal()]);
      // An API key belongs to one library: a mismatching x-library is refused even on organization operations
      // (the API-key context checks x-library whenever it is sent).
      this.requirePermission(rule.permission, await this.organizationPermissions());
      return;
    }
    const [permissions] = await Promise.all([this.libraryPermissions(), this.principal()]);
    this.requirePermission(rule.permission, permissions);
    // A library being imported into is closed until the import commits (lib/store/libraryTransfer.ts).
    if (!rule.openDuringImport && (await this.library()).library.importing) {
      throw new LibraryImportError('LIBRARY_IMPORT_IN_PROGRESS', 'An import into this library is in progress; the library opens when it commits');
    }
  }

  /** The integration the request acts for (its API key's), or null: a person acts as the native principal. */
  get actingIntegrationId(): string | null {
    return this.caller.kind === 'apiKey' ? this.caller.integrationId : null;
  }

  /**
   * The principal the request acts as: the integration of its API key, or the native principal. A key of a
   * disabled integration is refused on every request (403 INTEGRATION_DISABLED): one GetItem, for
   * integration keys only.
   */
  principal(): Promise<string> {
    this.principalId ??= this.resolvePrincipal();
    return this.principalId;
  }

  private async resolvePrincipal(): Promise<string> {
    const integrationId = this.actingIntegrationId;
    if (!integrationId || this.caller.kind !== 'apiKey') return nativePrincipalId;
    const integration = await getIntegration(this.store, this.caller.organizationId, integrationId);
    if (!integration || integration.disabled) {
      throw new IntegrationAccessError('INTEGRATION_DISABLED', `The integration this API key acts for (${integrationId}) is disabled`, { integrationId }, 403);
    }
    return integrationId;
  }

  /** Whether the request is made with an API key that acts with a role (every integration's key): not as its owner. */
  get actsWithKeyRole(): boolean {
    return this.caller.kind === 'apiKey' && keyHasRole(this.caller);
  }

  /** The caller's grants in the organization of x-organization (capped by an API key's role), resolved once per request. */
  effective(): Promise<EffectiveAccess> {
    this.effectiveAccess ??= this.organization().then(async (access) => {
      // An API key with a role acts with that role's permissions its owner also holds (keyRole.ts).
      const effective = await memberAccess(this.store, access.membership, this.caller.kind === 'apiKey' ? this.caller : undefined);
      if (!effective) throw new OrganizationAccessDeniedError();
      return effective;
    });
    return this.effectiveAccess;
  }

  /** The caller's organization-level permissions (union of their direct and team organization roles). */
  async organizationPermissions(): Promise<ReadonlySet<PermissionName>> {
    return (await this.effective()).organizationPermissions();
  }

  /** The caller's permissions in the library of x-library (organization roles overridden by library roles there). */
  async libraryPermissions(): Promise<ReadonlySet<PermissionName>> {
    const access = await this.library();
    return (await this.effective()).libraryPermissions(access.library.id);
  }

  /** Refuses unless the caller holds `permission` in the library of x-library (for checks inside an operation). */
  async requireLibraryPermission(permission: PermissionName): Promise<void> {
    this.requirePermission(permission, await this.libraryPermissions());
  }

  /** Refuses unless the caller holds `permission` in the organization (for checks inside an operation). */
  async requireOrganizationPermission(permission: PermissionName): Promise<void> {
    this.requirePermission(permission, await this.organizationPermissions());
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

  private requirePermission(permission: PermissionName | null, held: ReadonlySet<PermissionName>): void {
    if (permission && !held.has(permission)) throw new PermissionDeniedError(permission);
  }

  private async resolveOrganization(): Promise<OrganizationAccess> {
    if (this.caller.kind === 'apiKey') return this.apiKeyContext();
    const reference = this.headers.organization;
    if (!reference) throw new MissingHeadersError(['x-organization']);
    const organizationId = await this.organizationIdFor(reference);
    if (!organizationId) throw new OrganizationAccessDeniedError();
    const [organization, membership] = await Promise.all([getOrganization(this.store, organizationId), getMembership(this.store, organizationId, this.caller.userId)]);
    if (!organization || !membership || organization.archived) throw new OrganizationAccessDeniedError();
    return { organization, membership };
  }

  private async resolveLibrary(): Promise<LibraryAccess> {
    const reference = this.headers.library;
    if (!reference) throw new MissingHeadersError(['x-library']);
    if (this.caller.kind === 'apiKey') {
      const access = await this.apiKeyContext();
      if (!access.library) throw new LibraryAccessDeniedError();
      return access as LibraryAccess;
    }
    const access = await this.organization();
    const libraryId = await this.libraryIdFor(reference, access.organization);
    const library = libraryId ? await getLibrary(this.store, access.organization.id, libraryId) : undefined;
    if (!library) throw new LibraryAccessDeniedError();
    return { ...access, library };
  }

  private apiKeyAccess?: Promise<OrganizationAccess & { library?: LibraryRecord }>;

  /**
   * An API key names its organization and library, so everything the headers must be checked against is
   * read in one BatchGetItem: the organization, the membership, the library, and the slug items when the
   * headers are slugs. The headers must name exactly the key's organization and library.
   */
  private apiKeyContext(): Promise<OrganizationAccess & { library?: LibraryRecord }> {
    this.apiKeyAccess ??= this.resolveApiKeyContext();
    return this.apiKeyAccess;
  }

  private async resolveApiKeyContext(): Promise<OrganizationAccess & { library?: LibraryRecord }> {
    const caller = this.caller;
    if (caller.kind !== 'apiKey') throw new Error('not an API key caller');
    const orgRef = this.headers.organization;
    if (!orgRef) throw new MissingHeadersError(['x-organization']);
    const libRef = this.headers.library;
    const keys = apiKeyContextKeys(caller, this.headers);
    const orgSlug = keys.organizationSlug !== undefined;
    const libPath = libRef ? parseLibraryRef(libRef) : undefined;
    const items =
      this.prefetched ??
      (await batchGetItems(
        this.store,
        Object.values(keys).filter((key) => key !== undefined),
      ));
    const item = (key: { PK: string; SK: string } | undefined) => (key ? items.get(keyString(key)) : undefined);

    if (orgSlug ? item(keys.organizationSlug)?.organizationId !== caller.organizationId : orgRef.toLowerCase() !== caller.organizationId) {
      throw new OrganizationAccessDeniedError();
    }
    const organizationItem = item(keys.organization);
    const membershipItem = item(keys.membership);
    if (!organizationItem || !membershipItem) throw new OrganizationAccessDeniedError();
    const organization = parseItem(organizationRecord, organizationItem, 'organization');
    const membership = parseItem(membershipRecord, membershipItem, 'membership');
    if (organization.archived) throw new OrganizationAccessDeniedError();
    if (!libRef) return { organization, membership };

    const namesKeyLibrary = libPath ? libPath.organizationSlug === organization.slug && item(keys.librarySlug)?.libraryId === caller.libraryId : libRef.toLowerCase() === caller.libraryId;
    if (!namesKeyLibrary) throw new LibraryAccessDeniedError('x-library does not name the library this API key was created for');
    const libraryItem = item(keys.library);
    if (!libraryItem) throw new LibraryAccessDeniedError();
    return { organization, membership, library: parseItem(libraryRecord, libraryItem, 'library') };
  }

  private async libraryIdFor(reference: string, organization: OrganizationRecord): Promise<string | undefined> {
    const path = parseLibraryRef(reference);
    if (!path) return reference.toLowerCase();
    // A path into another organization is not a library of this one.
    if (path.organizationSlug !== organization.slug) return undefined;
    return findLibraryIdBySlug(this.store, organization.id, path.librarySlug);
  }

  private async organizationIdFor(reference: string): Promise<string | undefined> {
    const slug = parseOrganizationRef(reference);
    return slug ? findOrganizationIdBySlug(this.store, slug) : reference.toLowerCase();
  }
}

/** The slug of `@org_slug`, or undefined for a UUID; anything else is a malformed header. */
function parseOrganizationRef(reference: string): string | undefined {
  if (isUuid(reference)) return undefined;
  if (reference.startsWith('@') && reference.length > 1 && !reference.includes('/')) return reference.slice(1);
  throw new BadRequestError('x-organization must be an organization UUID or @org_slug', { header: 'x-organization' });
}

/** The slugs of `@org_slug/library_slug`, or undefined for a UUID; anything else is a malformed header. */
function parseLibraryRef(reference: string): { organizationSlug: string; librarySlug: string } | undefined {
  if (isUuid(reference)) return undefined;
  const path = /^@([^/]+)\/([^/]+)$/.exec(reference);
  if (!path) throw new BadRequestError('x-library must be a library UUID or @org_slug/library_slug', { header: 'x-library' });
  return { organizationSlug: path[1]!, librarySlug: path[2]! };
}

/**
 * Everything an API-key request's context is checked against, as keys of one BatchGetItem: the
 * organization, the membership, the library, and the slug items when the headers are slugs. Throws
 * BadRequestError for a malformed header.
 */
export function apiKeyContextKeys(caller: { organizationId: string; libraryId: string; userId: string }, headers: ContextHeaders) {
  const orgSlug = headers.organization ? parseOrganizationRef(headers.organization) : undefined;
  const libPath = headers.library ? parseLibraryRef(headers.library) : undefined;
  return {
    organization: organizationKey(caller.organizationId),
    membership: membershipKey(caller.organizationId, caller.userId),
    library: libraryKey(caller.organizationId, caller.libraryId),
    organizationSlug: orgSlug ? organizationSlugKey(orgSlug) : undefined,
    librarySlug: libPath ? librarySlugKey(caller.organizationId, libPath.librarySlug) : undefined,
  };
}
