import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { bootstrapTenant } from '../../lib/orgs/bootstrap.js';
import { createLibrary } from '../../lib/orgs/libraries.js';
import { plans } from '../../lib/orgs/plans.js';
import type { Store } from '../../lib/store/client.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import { readImportDirectory, writeExportDirectory } from '../../lib/transfer/files.js';
import { importLibrary } from '../../lib/transfer/import.js';
import { syntheticLibraryCsv } from '../../lib/transfer/synthetic.js';

export interface TransferResult {
  name: string;
  components: number;
  items: number | null;
  seconds: number;
  componentsPerSecond: number;
}

/**
 * Library export and import throughput (components per second) at `count` components: a library loaded
 * from generated CSV (400 assemblies with 20-line BOMs per 10,000 components, document links; the CSV import
 * is measured too), exported to a directory (library.json, components.json, components.csv, bom.csv), and
 * that directory imported into an empty library. What the CLI's export and import commands run.
 */
export async function measureTransfer(store: Store, count: number): Promise<TransferResult[]> {
  const slug = `bench-transfer-${Date.now()}`;
  const tenant = await bootstrapTenant(store, { orgName: 'Transfer bench', orgSlug: slug, libraryName: 'Source', librarySlug: 'source', email: `${slug}@bench.test` });
  const options = { actor: { userId: tenant.user.id, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() }, entitlements: plans.enterprise };
  const source = { organizationId: tenant.organization.id, libraryId: tenant.library.id };
  const rate = (name: string, components: number, items: number | null, ms: number): TransferResult => ({
    name,
    components,
    items,
    seconds: Number((ms / 1000).toFixed(1)),
    componentsPerSecond: Math.round(components / (ms / 1000)),
  });
  const results: TransferResult[] = [];

  const { componentsCsv, bomCsv } = syntheticLibraryCsv(count);
  let started = performance.now();
  const loaded = await importLibrary(store, source, { kind: 'csv', manifest: null, componentsCsv, bomCsv }, options);
  results.push(rate('import CSV (components.csv + bom.csv)', loaded.components, loaded.itemsWritten, performance.now() - started));

  const directory = await mkdtemp(join(tmpdir(), 'plm-bench-export-'));
  try {
    started = performance.now();
    const exported = await exportLibrary(store, source);
    await writeExportDirectory(directory, exported);
    results.push(rate('export (read + write the four files)', exported.components.length, null, performance.now() - started));

    const target = await createLibrary(store, tenant.organization.id, { name: 'Target', slug: 'target' }, tenant.user.id);
    started = performance.now();
    const imported = await importLibrary(store, { organizationId: tenant.organization.id, libraryId: target.id }, await readImportDirectory(directory), options);
    results.push(rate('import JSON (library.json + components.json)', imported.components, imported.itemsWritten, performance.now() - started));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return results;
}

export function renderTransfer(results: TransferResult[]): string {
  const header = '| library export / import | components | items written | seconds | components/s |\n| --- | ---: | ---: | ---: | ---: |';
  return [
    header,
    ...results.map((r) => `| ${r.name} | ${r.components.toLocaleString('en-US')} | ${r.items === null ? '' : r.items.toLocaleString('en-US')} | ${r.seconds} | ${r.componentsPerSecond} |`),
  ].join('\n');
}
