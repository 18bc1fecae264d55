/**
 * A large library for the e2e tests that read and page one: written the way an import writes a library
 * (lib/search/table/bulkLoad.ts), not one create at a time. The component items go by BatchWriteItem,
 * several calls at once; the search blocks are built from the records and named by a first manifest. No
 * history records, CPN claims or search deltas: a search reads none of them. Tests about component.create
 * or about compaction seed through seed()/seedComponents instead. (test/bench/searchFixture.ts loads the
 * bench's far larger libraries the same way, in blocks of up to 64,000 rows.)
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CreateComponentCommand } from '../../lib/components/commands.js';
import { planCpn } from '../../lib/components/cpn.js';
import { buildNewComponent } from '../../lib/components/rules.js';
import { findCategory } from '../../lib/config/libraryConfig.js';
import { projectionOf } from '../../lib/search/entries.js';
import { bulkManifestItem } from '../../lib/search/table/bulkLoad.js';
import { blockRows, packBlocks } from '../../lib/search/table/compaction.js';
import { rowFieldsOf } from '../../lib/search/table/rows.js';
import { writeParts } from '../../lib/search/table/storage.js';
import type { Store } from '../../lib/store/client.js';
import { componentItem, type ComponentRecord } from '../../lib/store/component.js';
import { batchWrite } from '../../lib/store/items.js';
import { seedContext, seededInput, type SeedTarget } from '../e2e/searchHelpers.js';

/**
 * count components (options.input, or searchHelpers.seededInput: chosen CPNs only, 25 a minute of createdAt from 2024-01-01, as
 * seedComponents) and their search index, in blocks of options.blockRows rows: by default compaction's
 * first block size (1,000), the layout seedComponents and a compaction leave, so a page crosses blocks.
 * Returns the records in creation order.
 */
export async function loadSearchLibrary(
  store: Store,
  target: SeedTarget,
  count: number,
  options: { input?: (n: number) => CreateComponentCommand; blockRows?: number; concurrency?: number } = {},
): Promise<ComponentRecord[]> {
  const base = await seedContext(store, target, new Date().toISOString());
  const startAt = Date.parse('2024-01-01T00:00:00.000Z');
  const records: ComponentRecord[] = Array.from({ length: count }, (_, n) => {
    const ctx = { ...base, at: new Date(startAt + Math.floor(n / 25) * 60_000).toISOString() };
    const input = (options.input ?? seededInput)(n);
    const draft = buildNewComponent(ctx, input, n % 25, randomUUID());
    const plan = planCpn(ctx.config.cpnScheme, input, findCategory(ctx.config, draft.categoryId)!, n % 25);
    if (plan.kind !== 'chosen') throw new Error('a bulk library takes chosen CPNs only (no counters)');
    return { ...draft, cpn: plan.cpn };
  });

  // 250 items a worker's turn (10 BatchWriteItem calls), several workers at once.
  const turns: ComponentRecord[][] = [];
  for (let start = 0; start < records.length; start += 250) turns.push(records.slice(start, start + 250));
  let next = 0;
  const worker = async () => {
    for (let turn = next++; turn < turns.length; turn = next++) {
      await batchWrite(
        store,
        turns[turn]!.map((record) => ({ put: componentItem(record) as unknown as Record<string, unknown> })),
      );
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));

  const library = { organizationId: target.organization.id, libraryId: target.library.id };
  const rows = records.map((record) => rowFieldsOf(projectionOf(record)));
  const packed = packBlocks(rows, options.blockRows ?? blockRows);
  await writeParts(store, library, packed.parts);
  const watermark = rows.reduce((max, row) => Math.max(max, row.createdAt), 0);
  await store.ddb.send(new PutCommand({ TableName: store.tableName, ...bulkManifestItem(library, watermark, packed.blocks) }));
  return records;
}
