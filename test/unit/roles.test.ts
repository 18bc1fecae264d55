import { describe, expect, it } from 'vitest';
import { allPermissions } from '../../lib/access/permissions.js';
import { systemRoles } from '../../lib/access/roles.js';

describe('system roles', () => {
  it('gives the Site Admin every permission of the catalogue', () => {
    expect([...systemRoles.SITE_ADMIN.permissions].sort()).toEqual(allPermissions.map((p) => p.name).sort());
  });

  it('names permissions resource.action as the spec writes them', () => {
    const names = allPermissions.map((p) => p.name);
    expect(names).toContain('components.revision.create');
    expect(names).toContain('organization.users.update_role');
    expect(names).toContain('integrations.configure');
    expect(names).toHaveLength(41);
  });

  it('keeps viewers to reading', () => {
    expect([...systemRoles.VIEWER.permissions].every((name) => name.endsWith('.read'))).toBe(true);
    expect(systemRoles.VIEWER.permissions.has('components.update')).toBe(false);
  });
});
