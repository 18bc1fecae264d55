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
    libraries: { scope: 'organization', permission: 'library.read' },
    'apiKey.findAllForUser': { scope: 'library', permission: 'library.read' },
    'apiKey.findOneForUser': { scope: 'library', permission: 'library.read' },
  },
  mutation: {
    'library.create': { scope: 'organization', permission: 'organization.settings.update' },
    'apiKey.create': { scope: 'library', permission: 'library.read' },
    'apiKey.rotate': { scope: 'library', permission: 'library.read' },
    'apiKey.deactivate': { scope: 'library', permission: 'library.read' },
    'apiKey.update': { scope: 'library', permission: 'library.read' },
  },
};
