import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { roleMatrixMarkdown } from '../../lib/access/roleTable.js';

describe('API guide role model', () => {
  it('shows exactly the permissions of the system roles in code', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../schema/README.md', import.meta.url)), 'utf8');
    expect(readme).toContain(roleMatrixMarkdown());
  });
});
