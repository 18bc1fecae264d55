import type { AccessRule } from '../../lib/access/requestAccess.js';

/**
 * Every GraphQL operation and what it needs: the context headers (scope) and the permission, checked in
 * one place (schema.ts) before its resolver runs, against the caller's effective role. An operation is a
 * root field, or a field of a namespace type, written as its path: `user.me`, `organization.membership.update`.
 * The schema refuses to build when an operation has no entry here, or an entry names no operation.
 */
export const operationRules: { query: Record<string, AccessRule>; mutation: Record<string, AccessRule> } = {
  query: {
    'user.me': { scope: 'user', permission: null },
    'organization.current': { scope: 'organization', permission: 'organization.read' },
    // Lists only the libraries in which the caller holds library.read.
    libraries: { scope: 'organization', permission: null },
    'user.orgCreationOptions': { scope: 'user', permission: null },
    'user.invitations': { scope: 'user', permission: null },
    'organization.invitations': { scope: 'organization', permission: 'organization.users.read' },
    'organization.members': { scope: 'organization', permission: 'organization.users.read' },
    'organization.teams': { scope: 'organization', permission: 'organization.users.read' },
    'organization.team': { scope: 'organization', permission: 'organization.users.read' },
    'organization.sandboxes': { scope: 'organization', permission: 'organization.read' },
    // Answers about the caller's own verified address only.
    'organization.discoverByDomain': { scope: 'user', permission: null },
    'roles.allPermissions': { scope: 'organization', permission: 'roles.read' },
    'roles.findById': { scope: 'organization', permission: 'roles.read' },
    'apiKey.findAllForUser': { scope: 'library', permission: 'library.read' },
    'apiKey.findOneForUser': { scope: 'library', permission: 'library.read' },
    'categories.findAll': { scope: 'library', permission: 'library.read' },
    customStatuses: { scope: 'library', permission: 'library.read' },
    configs: { scope: 'library', permission: 'library.read' },
    configSyncStatus: { scope: 'library', permission: 'library.read' },
    'component.findOne': { scope: 'library', permission: 'components.read' },
    'component.findAll': { scope: 'library', permission: 'components.read' },
    'component.validateAttributes': { scope: 'library', permission: 'components.read' },
    'component.validateAttributesBatch': { scope: 'library', permission: 'components.read' },
    'component.getAllPinnedComponents': { scope: 'library', permission: 'components.read' },
    'component.filter': { scope: 'library', permission: 'components.read' },
    'component.componentGroups': { scope: 'library', permission: 'components.read' },
    'component.componentsInGroup': { scope: 'library', permission: 'components.read' },
    'component.filterWithQuery': { scope: 'library', permission: 'components.read' },
    'component.buildFilterFromQuery': { scope: 'library', permission: 'components.read' },
    'component.filterWithAI': { scope: 'library', permission: 'components.read' },
    'component.buildFilterWithAI': { scope: 'library', permission: 'components.read' },
    'identifier.validateCompleteOverride': { scope: 'library', permission: 'components.read' },
    'identifier.validateOverrides': { scope: 'library', permission: 'components.read' },
    'identifier.overridePermissions': { scope: 'library', permission: 'components.read' },
    'identifier.reusableGroupInstances': { scope: 'library', permission: 'components.read' },
    'identifier.validateFreeformOverride': { scope: 'library', permission: 'components.read' },
    'file.findOne': { scope: 'library', permission: 'components.read' },
  },
  mutation: {
    // Checked inside: canCreateOrg, or Site Admin of the parent with sandbox headroom (behaviour rule 10).
    'organization.create': { scope: 'user', permission: null },
    // Checked inside: Site Admin of the sandbox or its parent (SANDBOX_ARCHIVE_FORBIDDEN).
    'organization.archiveSandboxOrganization': { scope: 'user', permission: null },
    'organization.bulkInvite': { scope: 'organization', permission: 'organization.users.invite' },
    // The invitee's own invitations; an administrator's revoke is checked inside (organization.users.invite).
    'organization.declineInvitation': { scope: 'user', permission: null },
    'organization.acceptInvitation': { scope: 'user', permission: null },
    'organization.membership.update': { scope: 'organization', permission: 'organization.users.update_role' },
    'organization.membership.updateLibraryAccess': { scope: 'organization', permission: 'roles.assign' },
    'organization.membership.removeOrgRole': { scope: 'organization', permission: 'organization.users.remove' },
    'organization.teams.create': { scope: 'organization', permission: 'roles.assign' },
    'organization.teams.rename': { scope: 'organization', permission: 'roles.assign' },
    'organization.teams.archive': { scope: 'organization', permission: 'roles.assign' },
    'organization.teams.restore': { scope: 'organization', permission: 'roles.assign' },
    'organization.teams.setRoles': { scope: 'organization', permission: 'roles.assign' },
    'organization.teams.addMembers': { scope: 'organization', permission: 'roles.assign' },
    'organization.teams.removeMembers': { scope: 'organization', permission: 'roles.assign' },
    'roles.create': { scope: 'organization', permission: 'roles.create' },
    'roles.update': { scope: 'organization', permission: 'roles.update' },
    'roles.delete': { scope: 'organization', permission: 'roles.delete' },
    'library.create': { scope: 'organization', permission: 'organization.settings.update' },
    'apiKey.create': { scope: 'library', permission: 'library.read' },
    'apiKey.rotate': { scope: 'library', permission: 'library.read' },
    'apiKey.deactivate': { scope: 'library', permission: 'library.read' },
    'apiKey.update': { scope: 'library', permission: 'library.read' },
    // Statuses and categories documents also need library.statuses.manage / library.categories.manage.
    'config.setLibraryConfig': { scope: 'library', permission: 'library.settings.update' },
    'config.manuallyProcessCategoriesConfig': { scope: 'library', permission: 'library.categories.manage' },
    'component.create': { scope: 'library', permission: 'components.create' },
    'component.update': { scope: 'library', permission: 'components.update' },
    'component.delete': { scope: 'library', permission: 'components.delete' },
    'component.pin': { scope: 'library', permission: 'components.read' },
    'component.unpin': { scope: 'library', permission: 'components.read' },
    'component.bookmark': { scope: 'library', permission: 'components.read' },
    'component.unbookmark': { scope: 'library', permission: 'components.read' },
    'item.create': { scope: 'library', permission: 'components.create' },
    'item.update': { scope: 'library', permission: 'components.update' },
    'assemblies.updateBOM': { scope: 'library', permission: 'assemblies.update' },
    'file.createUpload': { scope: 'library', permission: 'components.update' },
    'file.complete': { scope: 'library', permission: 'components.update' },
  },
};
