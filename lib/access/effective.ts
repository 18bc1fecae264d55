import type { Store } from '../store/client.js';
import type { MembershipRecord } from '../store/membership.js';
import { getRole, getRoles, type RoleRecord } from '../store/role.js';
import { getTeams, type TeamRecord } from '../store/team.js';
import { isUuid } from '../model/slugs.js';
import { allPermissions, isPermissionName, type PermissionName } from './permissions.js';
import { isAdminPermissionSet, isSystemRoleId, systemRoleFor, type Role } from './roles.js';

/** One source of permissions: the person's direct grants, or one team they belong to. */
export interface Grant {
  teamId: string | null;
  orgRoleId: string | null;
  libraryRoles: Readonly<Record<string, string>>;
}

/**
 * A person's effective permissions in one organization (spec: Role resolution). Each grant gives, in a
 * library, its library role there if it has one (widening or narrowing) and otherwise its organization
 * role; the person holds the union over all grants. Organization-level permissions are the union of the
 * grants' organization roles.
 */
export class EffectiveAccess {
  constructor(
    readonly grants: readonly Grant[],
    private readonly roleOf: (roleId: string) => Role | undefined,
    /** An API key's role: the permissions are those of the grants that the role also holds (undefined: no cap). */
    readonly cap?: ReadonlySet<PermissionName>,
  ) {}

  /** The same grants, capped by a role: an API key acts with at most its role's permissions, and at most its owner's. */
  capped(cap: ReadonlySet<PermissionName>): EffectiveAccess {
    return new EffectiveAccess(this.grants, this.roleOf, this.cap ? new Set([...cap].filter((p) => this.cap!.has(p))) : cap);
  }

  /** Whether any grant gives anything: a membership with none is no membership. */
  get hasAnyGrant(): boolean {
    return this.grants.some((grant) => grant.orgRoleId !== null || Object.keys(grant.libraryRoles).length > 0);
  }

  organizationPermissions(): ReadonlySet<PermissionName> {
    return this.union(this.grants.map((grant) => grant.orgRoleId));
  }

  libraryPermissions(libraryId: string): ReadonlySet<PermissionName> {
    return this.union(this.grants.map((grant) => grant.libraryRoles[libraryId] ?? grant.orgRoleId));
  }

  /** Whether the person holds SITE_ADMIN, directly or through a team (and, for an API key, its role holds every permission). */
  get isSiteAdmin(): boolean {
    const cap = this.cap;
    if (cap && !allPermissions.every((p) => cap.has(p.name))) return false;
    return this.grants.some((grant) => grant.orgRoleId === 'SITE_ADMIN');
  }

  private union(roleIds: (string | null)[]): ReadonlySet<PermissionName> {
    const permissions = new Set<PermissionName>();
    for (const id of roleIds) {
      if (id === null) continue;
      for (const permission of this.roleOf(id)?.permissions ?? []) if (!this.cap || this.cap.has(permission)) permissions.add(permission);
    }
    return permissions;
  }
}

/** A stored custom role as the access model sees it. */
export function customRole(record: RoleRecord): Role {
  const permissions = new Set(record.permissions.filter(isPermissionName));
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    type: record.type,
    isAdmin: isAdminPermissionSet(record.type, permissions),
    isSystemRole: false,
    permissions,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The grants of a membership: its direct roles, and those of each team that is not archived. */
export function grantsOf(membership: MembershipRecord, teams: ReadonlyMap<string, TeamRecord>): Grant[] {
  const grants: Grant[] = [{ teamId: null, orgRoleId: membership.role, libraryRoles: membership.libraryRoles }];
  for (const teamId of membership.teamIds) {
    const team = teams.get(teamId);
    if (team && !team.archived) grants.push({ teamId, orgRoleId: team.orgRoleId, libraryRoles: team.libraryRoles });
  }
  return grants;
}

const roleIdsOf = (grants: readonly Grant[]) => grants.flatMap((grant) => [grant.orgRoleId, ...Object.values(grant.libraryRoles)]).filter((id): id is string => id !== null);

/**
 * Reads what a membership's grants refer to: its teams, then the custom roles named anywhere (system roles
 * need no read). A membership with system roles and no teams costs nothing more.
 */
export async function loadEffectiveAccess(store: Store, membership: MembershipRecord): Promise<EffectiveAccess> {
  const orgId = membership.organizationId;
  const teams = membership.teamIds.length > 0 ? await getTeams(store, orgId, membership.teamIds) : new Map<string, TeamRecord>();
  const grants = grantsOf(membership, teams);
  const customIds = [...new Set(roleIdsOf(grants).filter((id) => !isSystemRoleId(id)))];
  const roles = customIds.length > 0 ? await getRoles(store, orgId, customIds) : new Map<string, RoleRecord>();
  const resolved = new Map([...roles].map(([id, record]) => [id, customRole(record)]));
  return new EffectiveAccess(grants, (id) => systemRoleFor(id) ?? resolved.get(id));
}

/**
 * The effective access of many memberships of one organization, reading what they refer to once: one
 * BatchGetItem round for all their teams, one for all the custom roles named (100 keys a request).
 * The same as `loadEffectiveAccess` for each, in two rounds instead of two per membership. Keyed by user id.
 */
export async function loadEffectiveAccesses(store: Store, orgId: string, memberships: readonly MembershipRecord[]): Promise<Map<string, EffectiveAccess>> {
  const teamIds = [...new Set(memberships.flatMap((membership) => membership.teamIds))];
  const teams = teamIds.length > 0 ? await getTeams(store, orgId, teamIds) : new Map<string, TeamRecord>();
  const grants = new Map(memberships.map((membership) => [membership.userId, grantsOf(membership, teams)]));
  const customIds = [...new Set([...grants.values()].flatMap((g) => roleIdsOf(g)).filter((id) => !isSystemRoleId(id)))];
  const roles = customIds.length > 0 ? await getRoles(store, orgId, customIds) : new Map<string, RoleRecord>();
  const resolved = new Map([...roles].map(([id, record]) => [id, customRole(record)]));
  const roleOf = (id: string) => systemRoleFor(id) ?? resolved.get(id);
  return new Map([...grants].map(([userId, g]) => [userId, new EffectiveAccess(g, roleOf)]));
}

/** A role of the organization by id (system or custom), or undefined. */
export async function findRole(store: Store, orgId: string, roleId: string): Promise<Role | undefined> {
  const system = systemRoleFor(roleId);
  if (system) return system;
  if (!isUuid(roleId)) return undefined;
  const record = await getRole(store, orgId, roleId.toLowerCase());
  return record ? customRole(record) : undefined;
}
