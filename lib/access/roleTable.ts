import { allPermissions } from './permissions.js';
import { allSystemRoles } from './roles.js';

/**
 * The role model as one Markdown table, permission by system role (schema/README.md "Roles and permissions"; a unit
 * test keeps the API guide's copy equal to this).
 */
export function roleMatrixMarkdown(): string {
  const header = `| permission | ${allSystemRoles.map((role) => (role.type === 'LIBRARY' ? `Library ${role.name}` : role.name)).join(' | ')} |`;
  const rule = `| --- | ${allSystemRoles.map(() => ':-:').join(' | ')} |`;
  const rows = allPermissions.map((permission) => `| \`${permission.name}\` | ${allSystemRoles.map((role) => (role.permissions.has(permission.name) ? '✓' : '')).join(' | ')} |`);
  return [header, rule, ...rows].join('\n');
}
