import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { LibraryImportError } from '../errors.js';
import type { Store } from './client.js';
import { accessPolicyKey } from './accessPolicy.js';
import { bomRecord, bomSnapshotRecord, documentLinksRecord } from './bom.js';
import { componentRecord } from './component.js';
import { componentHistoryRecord } from './componentHistory.js';
import { counterKey } from './counter.js';
import { batchWrite, listKeysWithPrefix, queryAll, queryPrefix, queryPrefixPage, transactWrite, updateIf, type Key } from './items.js';
import { libraryKey, libraryPartition } from './library.js';
import { libraryConfigKey, type ConfigType, type LibraryConfigRecord } from './libraryConfig.js';

/**
 * Whole-library reads and writes of export and import (lib/transfer). An import writes into an EMPTY
 * library that is closed while it runs: the library item carries `importing` from the start of the writes
 * to the commit, and every library-scoped request is refused meanwhile (LIBRARY_IMPORT_IN_PROGRESS), so
 * nothing written before the commit is ever seen. The commit is ONE transaction: the configuration
 * documents, the access policy and the removal of the mark. A failed import deletes what it wrote and
 * removes the mark; a crashed one is finished the same way by `abandonLibraryImport` (CLI `import-abort`).
 */

/** The sort-key prefixes of everything an import writes into the library partition (none exist in an empty library). */
export const importedPrefixes = ['C#', 'H#', 'CPN#', 'BOM#', 'BOMH#', 'DOCS#', 'USEDBY#', 'CTR#', 'SRC#', 'MPN#'] as const;
/**
 * Kinds an empty library may already hold (its own change order templates, uploaded files: the import's
 * own file among them; comments and watches of its change orders): an import tags the items of these kinds it writes with `importId`, and only those
 * are deleted when it is abandoned.
 */
export const trackedImportPrefixes = ['COTPL#', 'COTPLNAME#', 'FILE#', 'CMT#', 'CMTID#', 'CMTCOUNT#', 'WATCH#'] as const;

export const importMark = z.object({ importId: z.string(), startedAt: z.string(), startedBy: z.string() });
export type ImportMark = z.infer<typeof importMark>;

const hexDigits = '0123456789abcdef'.split('');

/**
 * Every item under a prefix followed by a (lower-case) UUID, read as 16 Queries in parallel, one per first
 * hex digit of the id (`SK BETWEEN <prefix>0 AND <prefix>0\uffff`, ...), concatenated in key order.
 */
async function queryIdRanges<S extends z.ZodType>(store: Store, orgId: string, libraryId: string, prefix: string, schema: S, what: string): Promise<z.infer<S>[]> {
  const ranges = await Promise.all(
    hexDigits.map((digit) =>
      queryAll(
        store,
        {
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': libraryPartition(orgId, libraryId), ':from': `${prefix}${digit}`, ':to': `${prefix}${digit}\uffff` },
        },
        schema,
        what,
      ),
    ),
  );
  return ranges.flat();
}

/** Every component item of the library (those of an uncommitted large item write included: the caller filters writeId). */
export const listComponentRecords = (store: Store, orgId: string, libraryId: string) => queryIdRanges(store, orgId, libraryId, 'C#', componentRecord, 'component');
/** Every history record of the library, in key order (per component, oldest first). */
export const listHistoryRecords = (store: Store, orgId: string, libraryId: string) => queryIdRanges(store, orgId, libraryId, 'H#', componentHistoryRecord, 'component history');
export const listBomRecords = (store: Store, orgId: string, libraryId: string) => queryIdRanges(store, orgId, libraryId, 'BOM#', bomRecord, 'BOM');
/** BOM snapshots in key order (per assembly, oldest first). */
export const listBomSnapshotRecords = (store: Store, orgId: string, libraryId: string) => queryIdRanges(store, orgId, libraryId, 'BOMH#', bomSnapshotRecord, 'BOM snapshot');
export const listDocumentLinkRecords = (store: Store, orgId: string, libraryId: string) => queryIdRanges(store, orgId, libraryId, 'DOCS#', documentLinksRecord, 'document links');

// CPN counters carry entity CpnCounter; other counters under CTR# (the change order number) may carry none.
const cpnCounterRow = z.object({ SK: z.string(), entity: z.string().optional(), value: z.number().int() });

/** The CPN counters of the library: element, scope key and the last value handed out. */
export async function listCpnCounters(store: Store, orgId: string, libraryId: string): Promise<{ element: string; scopeKey: string; value: number }[]> {
  const rows = await queryPrefix(store, libraryPartition(orgId, libraryId), 'CTR#', cpnCounterRow.passthrough(), 'counter');
  return rows
    .filter((row) => row.entity === 'CpnCounter')
    .map((row) => {
      const [, element, ...scope] = row.SK.split('#');
      return { element: element!, scopeKey: scope.join('#'), value: row.value };
    });
}

export function cpnCounterItem(orgId: string, libraryId: string, counter: { element: string; scopeKey: string; value: number }) {
  return { ...counterKey(orgId, libraryId, counter.element, counter.scopeKey), entity: 'CpnCounter', value: counter.value };
}

export function cpnClaimItem(orgId: string, libraryId: string, normalizedCpn: string, cpn: string, componentId: string, at: string) {
  return { PK: libraryPartition(orgId, libraryId), SK: `CPN#${normalizedCpn}`, entity: 'Cpn', cpn, componentId, deleted: false, createdAt: at };
}

/** A where-used entry naming every assembly that uses the child (a new library: no entry exists yet). */
export function usageItem(orgId: string, libraryId: string, childId: string, assemblyIds: string[]) {
  return { PK: libraryPartition(orgId, libraryId), SK: `USEDBY#${childId}`, entity: 'Usage', childId, assemblies: new Set(assemblyIds), rev: 1 };
}

/** Whether anything an import writes is already in the library (components, claimed CPNs, history: one page each). */
export async function libraryHasImportedKinds(store: Store, orgId: string, libraryId: string): Promise<boolean> {
  const pages = await Promise.all(
    ['C#', 'CPN#', 'H#'].map((prefix) => queryPrefixPage(store, libraryPartition(orgId, libraryId), prefix, 1, z.object({ PK: z.string() }), 'key', { ProjectionExpression: 'PK' })),
  );
  return pages.some((page) => page.length > 0);
}

/** Ids of the library's component items (keys only), to confirm that nobody else wrote one during an import. */
export async function listComponentIds(store: Store, orgId: string, libraryId: string): Promise<string[]> {
  const rows = await queryPrefix(store, libraryPartition(orgId, libraryId), 'C#', z.object({ SK: z.string() }), 'component key', { ProjectionExpression: 'SK' });
  return rows.map((row) => row.SK.slice(2));
}

/** Marks the library as importing; LIBRARY_IMPORT_IN_PROGRESS when another import holds it. */
export async function markLibraryImporting(store: Store, orgId: string, libraryId: string, mark: ImportMark): Promise<void> {
  const marked = await updateIf(
    store,
    {
      Key: libraryKey(orgId, libraryId),
      UpdateExpression: 'SET importing = :mark',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(importing)',
      ExpressionAttributeValues: { ':mark': mark },
    },
    { ownWrite: (old) => isDeepStrictEqual(old.importing, mark) },
  );
  if (!marked) throw new LibraryImportError('LIBRARY_IMPORT_IN_PROGRESS', 'Another import into this library is in progress (or was abandoned: npm run admin -- import-abort)');
}

/** Removes the mark of this import (a failed import, after its items are deleted). */
export async function clearImportMark(store: Store, orgId: string, libraryId: string, importId: string): Promise<void> {
  // Another import's mark (or none) stays.
  await updateIf(store, { Key: libraryKey(orgId, libraryId), UpdateExpression: 'REMOVE importing', ConditionExpression: 'importing.importId = :id', ExpressionAttributeValues: { ':id': importId } });
}

/**
 * Puts items with BatchWriteItem, `parallel` batches of 25 at a time (an import writes into a closed
 * library, so no item needs a condition); `onProgress` gets the number written so far.
 */
export async function putItemsInParallel(store: Store, items: Record<string, unknown>[], parallel: number, onProgress?: (written: number) => void): Promise<void> {
  const chunk = 25 * 4;
  let next = 0;
  let written = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let start = next; start < items.length; start = next) {
        next += chunk;
        const slice = items.slice(start, start + chunk);
        await batchWrite(
          store,
          slice.map((put) => ({ put })),
        );
        written += slice.length;
        onProgress?.(written);
      }
    }),
  );
}

/** Deletes keys with BatchWriteItem, `parallel` batches at a time. */
export async function deleteKeysInParallel(store: Store, keys: Key[], parallel: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let start = next; start < keys.length; start = next) {
        next += 100;
        await batchWrite(
          store,
          keys.slice(start, start + 100).map((key) => ({ delete: key })),
        );
      }
    }),
  );
}

/**
 * Keys of everything an import may have written into the library (for an abandoned import): every item
 * of the importedPrefixes (nothing else has them in an empty library), and the items of the
 * trackedImportPrefixes tagged with this import's id.
 */
export async function listImportedKeys(store: Store, orgId: string, libraryId: string, searchPartition: string, importId: string): Promise<Key[]> {
  const keyRow = z.object({ PK: z.string(), SK: z.string() });
  const lists = await Promise.all([
    ...importedPrefixes.map((prefix) => listKeysWithPrefix(store, libraryPartition(orgId, libraryId), prefix)),
    ...trackedImportPrefixes.map((prefix) =>
      queryPrefix(store, libraryPartition(orgId, libraryId), prefix, keyRow, 'key', {
        FilterExpression: 'importId = :importId',
        ExpressionAttributeValues: { ':importId': importId },
        ProjectionExpression: 'PK, SK',
      }),
    ),
    queryAll(store, { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': searchPartition }, ProjectionExpression: 'PK, SK' }, keyRow, 'search key'),
  ]);
  return lists.flat();
}

export function getImportMark(item: Record<string, unknown> | undefined): ImportMark | undefined {
  const parsed = importMark.safeParse(item?.importing);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The commit of an import: ONE transaction that writes the configuration documents (each conditioned on
 * the version read before the import), the access policy, the caller's other items (the search manifest
 * that names the imported search blocks), and removes the library's import mark
 * (conditioned on this import holding it). Until it lands the library is closed; after it, everything is there.
 */
export async function commitLibraryImport(
  store: Store,
  orgId: string,
  libraryId: string,
  importId: string,
  configs: { record: LibraryConfigRecord; previousVersion: number | null }[],
  accessPolicy: { version: number; entries: unknown[]; updatedAt: string; updatedBy: string } | null,
  otherItems: Record<string, unknown>[],
): Promise<void> {
  const items: Record<string, unknown>[] = configs.map(({ record, previousVersion }) => ({
    Put: {
      Item: { ...libraryConfigKey(orgId, libraryId, record.type as ConfigType), entity: 'LibraryConfig', ...record },
      ...(previousVersion === null ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': previousVersion } }),
    },
  }));
  if (accessPolicy) items.push({ Put: { Item: { ...accessPolicyKey(orgId, libraryId), entity: 'AccessPolicy', ...accessPolicy } } });
  items.push(...otherItems);
  items.push({
    Update: {
      Key: libraryKey(orgId, libraryId),
      UpdateExpression: 'REMOVE importing',
      ConditionExpression: 'importing.importId = :id',
      ExpressionAttributeValues: { ':id': importId },
    },
  });
  // The import's commit: an audited import (the operator CLI's) records its entry here.
  await transactWrite(store, items, { commit: true });
}
