/**
 * A large library written the way an import into an empty library writes one (lib/search/table/bulkLoad.ts),
 * not one create at a time: the bench's libraries of up to 500,000 components (`npm run bench:search`) and the
 * e2e tests that read and page a large one. Per block of `blockRows` components it builds the records
 * createComponents would build (seededInput, 25 per minute of createdAt, as seedComponents), puts the
 * component items with BatchWriteItem and the block's column parts, and at the end the search manifest that
 * names every block. History records, CPN claims and search deltas are not written: a search reads none of
 * them, and component.update (what the bench's write measurements run) reads only the component. Tests about
 * component.create or about compaction seed through seed()/seedComponents instead.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CreateComponentCommand } from '../../lib/components/commands.js';
import { planCpn } from '../../lib/components/cpn.js';
import { buildNewComponent } from '../../lib/components/rules.js';
import { findCategory } from '../../lib/config/libraryConfig.js';
import { projectionOf } from '../../lib/search/entries.js';
import { bulkManifestItem } from '../../lib/search/table/bulkLoad.js';
import { maxBlockRows, packBlocks } from '../../lib/search/table/compaction.js';
import { rowFieldsOf } from '../../lib/search/table/rows.js';
import { writeParts, type BlockEntry } from '../../lib/search/table/storage.js';
import type { Store } from '../../lib/store/client.js';
import { componentItem, type ComponentRecord } from '../../lib/store/component.js';
import { putItemsInParallel } from '../../lib/store/libraryTransfer.js';
import { seedContext, seededInput, type SeedTarget } from '../e2e/searchHelpers.js';

/** BatchWriteItem calls at once for each block's component items (and as many slices of its parts). */
const writesPerBlock = 4;

/** items in count slices of about the same length (fewer when there are fewer items). */
const slices = <T>(items: T[], count: number): T[][] => {
  const size = Math.ceil(items.length / count);
  return size === 0 ? [] : Array.from({ length: Math.ceil(items.length / size) }, (_, n) => items.slice(n * size, (n + 1) * size));
};

/** The createdAt of the n-th component loadSearchLibrary writes: 25 a minute from 2024-01-01, as seedComponents. */
export const fixtureCreatedAt = (n: number) => Date.parse('2024-01-01T00:00:00.000Z') + Math.floor(n / 25) * 60_000;

/**
 * Loads count components (seededInput, or options.input: chosen CPNs only) and their search blocks of
 * options.blockRows rows (default maxBlockRows, as an import writes them), options.concurrency blocks at a
 * time; returns the component ids in creation order. `components` leaves out component items (the bench's
 * sampled tables); `records` is handed each block's records with the index of its first, for a caller that
 * keeps them (the bench's libraries are too large to keep).
 */
export async function loadSearchLibrary(
  store: Store,
  target: SeedTarget,
  count: number,
  options: {
    concurrency?: number;
    progress?: (done: number) => void;
    components?: (n: number, cpn: string) => boolean;
    input?: (n: number) => CreateComponentCommand;
    blockRows?: number;
    records?: (records: ComponentRecord[], first: number) => void;
  } = {},
): Promise<string[]> {
  const blockRows = options.blockRows ?? maxBlockRows;
  const base = await seedContext(store, target, new Date().toISOString());
  const library = { organizationId: target.organization.id, libraryId: target.library.id };
  const chunks = Math.ceil(count / blockRows);
  const ids: string[] = new Array(count);
  const blocks: BlockEntry[][] = new Array(chunks);
  let watermark = 0;
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let chunk = next++; chunk < chunks; chunk = next++) {
      const records: ComponentRecord[] = [];
      for (let n = chunk * blockRows; n < Math.min(count, (chunk + 1) * blockRows); n++) {
        const ctx = { ...base, at: new Date(fixtureCreatedAt(n)).toISOString() };
        const input = (options.input ?? seededInput)(n);
        const draft = buildNewComponent(ctx, input, n % 25, randomUUID());
        const plan = planCpn(ctx.config.cpnScheme, input, findCategory(ctx.config, draft.categoryId)!, n % 25);
        if (plan.kind !== 'chosen') throw new Error('a bulk library takes chosen CPNs only (no counters)');
        const record = { ...draft, cpn: plan.cpn };
        ids[n] = record.id;
        records.push(record);
      }
      options.records?.(records, chunk * blockRows);
      const rows = records.map((record) => rowFieldsOf(projectionOf(record)));
      const packed = packBlocks(rows, blockRows);
      // A block's items and parts in slices written at once: one block of 4,000 rows is 160 batches, which
      // one after another would wait on DynamoDB Local ~160 times in a row.
      const items = records.filter((record, i) => options.components?.(chunk * blockRows + i, record.cpn) ?? true).map((record) => componentItem(record) as unknown as Record<string, unknown>);
      await Promise.all([putItemsInParallel(store, items, writesPerBlock), ...slices(packed.parts, writesPerBlock).map((parts) => writeParts(store, library, parts))]);
      blocks[chunk] = packed.blocks;
      watermark = Math.max(watermark, ...rows.map((row) => row.createdAt));
      done += records.length;
      options.progress?.(done);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  await store.ddb.send(new PutCommand({ TableName: store.tableName, ...bulkManifestItem(library, watermark, blocks.flat()) }));
  return ids;
}
