import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { systemRoles } from '../../lib/access/roles.js';
import { createComponents } from '../../lib/components/service.js';
import { loadLibraryConfiguration } from '../../lib/config/libraryConfig.js';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { plans } from '../../lib/orgs/plans.js';
import { createStore } from '../../lib/store/client.js';
import { adminCli } from '../support/admin.js';

const stack = inject('stack');
/** The CLI against a table of its own in the test stack's DynamoDB Local (the shared table is large and busy). */
const admin = (table: string, ...args: string[]) => adminCli(args, { table });

async function allItems(table: string) {
  const store = createStore({ DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: table, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.ddb.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  store.ddb.destroy();
  return items.sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

describe('operations (npm run admin)', () => {
  const source = `plm-ops-${randomUUID().slice(0, 8)}`;
  let dir: string;
  let organizationId: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plm-backup-'));
    // An empty backup restored creates an empty table from the one table definition.
    await writeFile(join(dir, 'empty.jsonl'), '');
    expect(JSON.parse((await admin(source, 'restore', '--in', join(dir, 'empty.jsonl'))).stdout.trim())).toEqual({ table: source, in: join(dir, 'empty.jsonl'), items: 0 });
    const booted = JSON.parse(
      (await admin(source, 'bootstrap', '--org-name', 'Ops', '--org-slug', 'ops', '--library-name', 'Main', '--library-slug', 'main', '--email', 'ops@example.com', '--plan', 'team')).stdout.trim(),
    );
    organizationId = booted.organization.id;
    // Components through the domain, on this table: their search entries hold compressed (binary) projections.
    const store = createStore({ DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: source, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
    const scope = { organizationId, libraryId: booted.library.id, userId: booted.user.id };
    await createComponents(
      store,
      {
        ...scope,
        at: new Date().toISOString(),
        config: await loadLibraryConfiguration(store, scope.organizationId, scope.libraryId),
        entitlements: plans.team,
        permissions: systemRoles.SITE_ADMIN.permissions,
        principalId: nativePrincipalId,
        actingIntegrationId: null,
        checkFiles: async () => {},
      },
      [
        { name: 'Backed up', categoryId: 'mechanical', labels: ['a', 'b'] },
        { name: 'Also backed up', categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 4700 }] },
      ],
    );
    store.ddb.destroy();
  }, 120_000);

  it('tenants list names every organization of the stack with its plan', async () => {
    const tenants = JSON.parse((await admin(source, 'tenants', 'list')).stdout.trim());
    expect(tenants).toEqual([expect.objectContaining({ id: organizationId, slug: 'ops', name: 'Ops', plan: 'team', type: 'PRODUCTION', archived: false })]);
  }, 60_000);

  it('backup writes every item as a line; restore into a new table gives the same items, binary values included', async () => {
    const file = join(dir, 'table.jsonl');
    // The table as the backup reads it (the backup's own audit entry is written after it, so it is not in it).
    const original = await allItems(source);
    const backup = JSON.parse((await admin(source, 'backup', '--out', file)).stdout.trim());
    expect(backup).toEqual({ table: source, out: file, items: original.length });
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(original.length);
    const target = `${source}-restored`;
    expect(JSON.parse((await admin(source, 'restore', '--in', file, '--table', target)).stdout.trim())).toEqual({ table: target, in: file, items: original.length });
    const copy = await allItems(target);
    expect(copy).toEqual(original);
    expect(copy.some((item) => item.projection instanceof Uint8Array)).toBe(true);
    // The restore target must be empty: a second restore into it is refused.
    await expect(admin(source, 'restore', '--in', file, '--table', target)).rejects.toMatchObject({ stderr: expect.stringContaining('not empty') });
  }, 60_000);
});
