import { allPermissions, type PermissionName } from '../../../lib/access/permissions.js';
import { systemRoleFor, type Role } from '../../../lib/access/roles.js';
import { InvalidInputError, LibraryAccessDeniedError, MissingHeadersError, OrganizationAccessDeniedError, PermissionDeniedError } from '../../../lib/errors.js';
import { addAllowlistEntry, allowlistOf, removeAllowlistEntry } from '../../../lib/orgs/allowlist.js';
import { acceptInvitation, bulkInvite, declineInvitation, invitationsForUser, invitationsOfOrganization } from '../../../lib/orgs/invitations.js';
import { listMembers, removeOrgRole, updateLibraryAccess, updateMemberRole } from '../../../lib/orgs/members.js';
import type { LibraryAccessGrant } from '../../../lib/orgs/model.js';
import { findRole } from '../../../lib/access/effective.js';
import { createRole, deleteRole, updateRole } from '../../../lib/orgs/roles.js';
import { addTeamMembers, createTeam, getTeam, listTeamMemberIds, removeTeamMembers, renameTeam, setTeamArchived, setTeamRoles, teamsOfOrganization, teamsByIds } from '../../../lib/orgs/teams.js';
import { isUuid } from '../../../lib/model/slugs.js';
import { findLibrary } from '../../../lib/orgs/libraries.js';
import type { Organization as OrganizationRecord } from '../../../lib/orgs/model.js';
import { findOrganization } from '../../../lib/orgs/organizations.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { keyOrganizationOf, userById, userOfOrganization } from './shared.js';

/** The organization of x-organization and the caller's grants in it (both resolved once per request). */
async function organizationContext(context: GraphQLContext) {
  const [{ organization }, effective] = await Promise.all([context.access.organization(), context.access.effective()]);
  return { organization, effective };
}

/**
 * A field of an Organization that only its members with `permission` may read: the organization must be
 * the one in x-organization (an organization reached through an invitation or a domain shows no more).
 */
export async function requireInOrganization(context: GraphQLContext, organization: OrganizationRecord, permission: PermissionName): Promise<void> {
  const current = (await context.access.organization()).organization;
  if (current.id !== organization.id) throw new PermissionDeniedError(permission);
  await context.access.requireOrganizationPermission(permission);
}

/**
 * Whether the caller reads people's addresses in an organization: it is the one in x-organization and they
 * hold organization.users.read there. False without x-organization (user-scoped operations), never an error.
 */
async function mayReadAddressesIn(context: GraphQLContext, organizationId: string): Promise<boolean> {
  try {
    if ((await context.access.organization()).organization.id !== organizationId) return false;
    return (await context.access.organizationPermissions()).has('organization.users.read');
  } catch (error) {
    if (error instanceof MissingHeadersError || error instanceof OrganizationAccessDeniedError || error instanceof LibraryAccessDeniedError) return false;
    throw error;
  }
}

/** A role by id in an organization, read once per request. */
function roleById(context: GraphQLContext, organizationId: string, roleId: string): Promise<Role | undefined> {
  const system = systemRoleFor(roleId);
  if (system) return Promise.resolve(system);
  return context.once(`role:${organizationId}:${roleId}`, () => findRole(context.store, organizationId, roleId));
}

/** A role that must exist: a grant whose custom role is gone (it cannot be, while held) reads as an error, not null. */
async function requiredRole(context: GraphQLContext, organizationId: string, roleId: string): Promise<Role> {
  const role = await roleById(context, organizationId, roleId);
  if (!role) throw new Error(`Role ${roleId} of organization ${organizationId} is missing`);
  return role;
}

const describe = (resource: string, action: string) => `Allows ${action.replace(/[._]/g, ' ')} on ${resource.replace(/_/g, ' ')}`;

/** A membership's teams, read once per request. */
function teamsOfMembership(context: GraphQLContext, membership: { organizationId: string; userId: string; teamIds: string[] }) {
  return context.once(`teams:${membership.organizationId}:${membership.userId}`, () => teamsByIds(context.store, membership.organizationId, membership.teamIds));
}

const grantsOfLibraries = (organizationId: string, libraryRoles: Readonly<Record<string, string>>, teamId: string | null): LibraryAccessGrant[] =>
  Object.entries(libraryRoles).map(([libraryId, roleId]) => ({ organizationId, libraryId, roleId, teamId }));

export const accessResolvers: Resolvers = {
  RoleQueryNamespace: {
    allPermissions: () => [...allPermissions],
    findById: async (_parent, { id }, context) => (await roleById(context, (await context.access.organization()).organization.id, id.trim())) ?? null,
  },
  RoleMutationNamespace: {
    create: async (_parent, { input }, context) => {
      const { organization, effective } = await organizationContext(context);
      return createRole(context.store, organization.id, effective.organizationPermissions(), input);
    },
    update: async (_parent, { input }, context) => {
      const { organization, effective } = await organizationContext(context);
      return updateRole(context.store, organization.id, effective.organizationPermissions(), input);
    },
    delete: async (_parent, { input }, context) => {
      const { organization, effective } = await organizationContext(context);
      return deleteRole(context.store, organization.id, effective.organizationPermissions(), input.id);
    },
  },
  Role: {
    permissions: (role) => allPermissions.filter((permission) => role.permissions.has(permission.name)),
  },
  Permission: {
    id: (permission) => permission.name,
    description: (permission) => describe(permission.resource, permission.action),
  },
  MembershipMutationNamespace: {
    update: async (_parent, { userId, roleId }, context) => {
      const { organization, effective } = await organizationContext(context);
      return updateMemberRole(context.store, organization, effective.organizationPermissions(), userId.trim(), roleId);
    },
    updateLibraryAccess: async (_parent, { input }, context) => {
      const { organization, effective } = await organizationContext(context);
      return updateLibraryAccess(context.store, organization, effective, input);
    },
    removeOrgRole: async (_parent, { userId }, context) => removeOrgRole(context.store, (await context.access.organization()).organization, userId.trim()),
  },
  OrganizationRole: {
    user: (membership, _args, context) => userById(context, membership.userId, membership.organizationId),
    role: (membership) => {
      const role = membership.role ? systemRoleFor(membership.role) : undefined;
      return role?.type === 'ORG' ? (role.id as never) : null;
    },
    rbacRole: async (membership, _args, context) => {
      if (membership.role) return (await roleById(context, membership.organizationId, membership.role)) ?? null;
      const teams = await teamsOfMembership(context, membership);
      const viaTeam = membership.teamIds.map((id) => teams.get(id)).find((team) => team && !team.archived && team.orgRoleId);
      return viaTeam ? ((await roleById(context, membership.organizationId, viaTeam.orgRoleId!)) ?? null) : null;
    },
    hasDirectOrgRole: (membership) => membership.role !== null,
    libraryAccess: async (membership, _args, context) => {
      const teams = await teamsOfMembership(context, membership);
      return [
        ...grantsOfLibraries(membership.organizationId, membership.libraryRoles, null),
        ...membership.teamIds.flatMap((id) => {
          const team = teams.get(id);
          return team && !team.archived ? grantsOfLibraries(membership.organizationId, team.libraryRoles, team.id) : [];
        }),
      ];
    },
    teams: async (membership, _args, context) => {
      const teams = await teamsOfMembership(context, membership);
      return membership.teamIds.map((id) => teams.get(id)).filter((team) => team !== undefined);
    },
  },
  LibraryAccessDto: {
    library: (grant, _args, context) => findLibrary(context.store, grant.organizationId, grant.libraryId),
    role: (grant, _args, context) => requiredRole(context, grant.organizationId, grant.roleId),
    source: (grant) => (grant.teamId ? 'TEAM' : 'DIRECT'),
  },
  Invitation: {
    role: (invitation, _args, context) => requiredRole(context, invitation.organizationId, invitation.roleId),
    libraryRoles: (invitation) => grantsOfLibraries(invitation.organizationId, invitation.libraryRoles, null),
    invitedBy: async (invitation, _args, context) => {
      // Also read by the invitee (user.invitations), who is no member: the inviter is, or was, one of the inviting organization.
      const user = await userOfOrganization(context, invitation.organizationId, invitation.invitedById);
      if (!user) throw new Error(`User ${invitation.invitedById} is missing`);
      if (user.id === context.caller.userId || (await mayReadAddressesIn(context, invitation.organizationId))) return user;
      // Anyone else (the invitee, or an inviter without organization.users.read seeing another's pending
      // invitation) reads the inviter's name and primary address, not their other addresses.
      return { ...user, emails: [user.primaryEmail] };
    },
    accepted: (invitation) => invitation.status === 'ACCEPTED',
    organization: async (invitation, _args, context) => {
      const organization = await context.once(`organization:${invitation.organizationId}`, () => findOrganization(context.store, invitation.organizationId));
      if (!organization) throw new Error(`Organization ${invitation.organizationId} is missing`);
      return organization;
    },
  },
  Team: {
    orgRole: async (team, _args, context) => (team.orgRoleId ? ((await roleById(context, team.organizationId, team.orgRoleId)) ?? null) : null),
    libraryAccess: (team) => grantsOfLibraries(team.organizationId, team.libraryRoles, team.id),
    members: async (team, _args, context) => {
      const ids = await listTeamMemberIds(context.store, team.organizationId, team.id);
      const users = await Promise.all(ids.map((id) => userById(context, id, team.organizationId)));
      return users.filter((user) => user !== null);
    },
  },
  TeamMutationNamespace: {
    create: async (_parent, { input }, context) => {
      const { organization, effective } = await organizationContext(context);
      return createTeam(context.store, organization, effective, input);
    },
    rename: async (_parent, { id, name }, context) => renameTeam(context.store, (await context.access.organization()).organization, id, name),
    archive: async (_parent, { id }, context) => setTeamArchived(context.store, (await context.access.organization()).organization, id, true),
    restore: async (_parent, { id }, context) => setTeamArchived(context.store, (await context.access.organization()).organization, id, false),
    setRoles: async (_parent, { input }, context) => {
      const { organization, effective } = await organizationContext(context);
      return setTeamRoles(context.store, organization, effective, input);
    },
    addMembers: async (_parent, { id, userIds }, context) => addTeamMembers(context.store, (await context.access.organization()).organization, id, userIds),
    removeMembers: async (_parent, { id, userIds }, context) => removeTeamMembers(context.store, (await context.access.organization()).organization, id, userIds),
  },
  OrganizationQueryNamespace: {
    allowlist: async (_parent, _args, context) => allowlistOf(context.store, (await context.access.organization()).organization.id),
    invitations: async (_parent, { filter }, context) => invitationsOfOrganization(context.store, (await context.access.organization()).organization.id, filter),
    members: async (_parent, _args, context) => {
      const members = await listMembers(context.store, (await context.access.organization()).organization.id);
      return members.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    teams: async (_parent, { includeArchived }, context) => {
      const teams = await teamsOfOrganization(context.store, (await context.access.organization()).organization);
      return includeArchived ? teams : teams.filter((team) => !team.archived);
    },
    team: async (_parent, { id }, context) => {
      const organization = (await context.access.organization()).organization;
      return isUuid(id) ? ((await getTeam(context.store, organization.id, id.toLowerCase())) ?? null) : null;
    },
  },
  OrganizationMutationNamespace: {
    bulkInvite: async (_parent, { input }, context) => {
      if (!input) throw new InvalidInputError('input is required: the addresses to invite and their roles', { field: 'input' });
      const { organization, effective } = await organizationContext(context);
      const inviter = await userById(context, context.caller.userId);
      return bulkInvite(context.store, context.mail.mailer(), organization, effective, { userId: context.caller.userId, name: inviter?.name ?? 'A colleague' }, context.mail.appUrl, input);
    },
    declineInvitation: (_parent, { id }, context) =>
      declineInvitation(context.store, context.caller.userId, id.trim(), async () => {
        // The administrator's path needs x-organization and organization.users.invite there.
        try {
          const { organization } = await context.access.organization();
          await context.access.requireOrganizationPermission('organization.users.invite');
          return organization;
        } catch (error) {
          if (error instanceof MissingHeadersError || error instanceof OrganizationAccessDeniedError) return undefined;
          throw error;
        }
      }),
    acceptInvitation: (_parent, { id }, context) => acceptInvitation(context.store, context.caller.userId, id.trim()),
  },
  AllowlistMutationNamespace: {
    add: async (_parent, { input }, context) => {
      const { organization, effective } = await organizationContext(context);
      return addAllowlistEntry(context.store, organization, effective, context.caller.userId, input);
    },
    remove: async (_parent, { entry }, context) => removeAllowlistEntry(context.store, (await context.access.organization()).organization, entry),
  },
  AllowlistEntry: {
    role: (entry, _args, context) => requiredRole(context, entry.organizationId, entry.roleId),
  },
  UserQueryNamespace: {
    // Through an API key: its organization's invitations only (another organization's are not the key's to read).
    invitations: async (_parent, _args, context) => {
      const organizationId = keyOrganizationOf(context);
      const invitations = await invitationsForUser(context.store, context.caller.userId);
      return organizationId ? invitations.filter((invitation) => invitation.organizationId === organizationId) : invitations;
    },
  },
};
