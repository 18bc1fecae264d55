import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { newTenant, tenantHeaders, testStore } from '../support/api.js';
import { ok } from './accessHelpers.js';

const stack = inject('stack');
const run = promisify(execFile);
const admin = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'infra/admin/cli.ts', ...args], {
    env: { ...process.env, NODE_NO_WARNINGS: '1', DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: stack.tableName, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' },
    maxBuffer: 64 * 1024 * 1024,
  });

async function partition(tableName: string, pk: string) {
  const store = testStore();
  const page = await store.ddb.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }));
  return (page.Items ?? []).sort((a, b) => String(a.SK).localeCompare(String(b.SK)));
}

describe('operations (npm run admin)', () => {
  it('tenants list names every organization of the stack with its plan', async () => {
    const tenant = await newTenant({ plan: 'team' });
    const { stdout } = await admin('tenants', 'list');
    const tenants = JSON.parse(stdout.trim()) as { id: string; slug: string; plan: string; type: string }[];
    expect(tenants).toContainEqual(expect.objectContaining({ id: tenant.organization.id, slug: tenant.organization.slug, plan: 'team', type: 'PRODUCTION', archived: false }));
  });

  it('backup writes every item as a line; restore into a new table gives the same items, binary (compressed) search entries included', { timeout: 120_000 }, async () => {
    const tenant = await newTenant();
    const headers = tenantHeaders(tenant);
    await ok(headers, 'mutation { component { create(inputs: [{ name: "Backed up", categoryId: "mechanical", labels: ["a", "b"] }, { name: "Also backed up", categoryId: "resistor", attributeValues: [{ attributeId: "resistance", value: 4700 }] }]) { id } } }');
    // Each component write puts a search entry whose projection is compressed binary.
    expect((await ok(headers, 'query { component { filter { totalCount } } }')).component.filter.totalCount).toBe(2);
    const dir = await mkdtemp(join(tmpdir(), 'plm-backup-'));
    const file = join(dir, 'table.jsonl');
    const backup = JSON.parse((await admin('backup', '--out', file)).stdout.trim());
    expect(backup).toMatchObject({ table: stack.tableName, out: file });
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(backup.items);
    const restoredTable = `plm-restored-${tenant.organization.slug}`;
    const restored = JSON.parse((await admin('restore', '--in', file, '--table', restoredTable)).stdout.trim());
    expect(restored).toEqual({ table: restoredTable, in: file, items: backup.items });
    const libraryPk = `ORG#${tenant.organization.id}#LIB#${tenant.library.id}`;
    for (const pk of [`ORG#${tenant.organization.id}`, libraryPk, `${libraryPk}#SEARCH`]) {
      const [original, copy] = await Promise.all([partition(stack.tableName, pk), partition(restoredTable, pk)]);
      expect(copy.length).toBeGreaterThan(0);
      expect(copy).toEqual(original);
      if (pk.endsWith('#SEARCH')) expect(copy.some((item) => item.projection instanceof Uint8Array)).toBe(true);
    }
    // The restore target must be empty: a second restore into it is refused.
    await expect(admin('restore', '--in', file, '--table', restoredTable)).rejects.toMatchObject({ stderr: expect.stringContaining('not empty') });
  });
});
