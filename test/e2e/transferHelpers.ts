import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createLibrary } from '../../lib/orgs/libraries.js';
import { createComponents, updateComponents } from '../../lib/components/service.js';
import { writeItems } from '../../lib/items/writer.js';
import type { Store } from '../../lib/store/client.js';
import type { ComponentRecord } from '../../lib/store/component.js';
import { libraryPartition } from '../../lib/store/library.js';
import { searchPartition } from '../../lib/search/entries.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import type { LibraryExport } from '../../lib/transfer/format.js';
import { markReleased, seedComponents, seedContext, type SeedTarget } from './searchHelpers.js';

export interface LibraryTarget extends SeedTarget {
  ref: { organizationId: string; libraryId: string };
}

/** A new, empty library in the tenant's organization (as library.create makes it). */
export async function newEmptyLibrary(store: Store, target: SeedTarget, slug: string): Promise<LibraryTarget> {
  const library = await createLibrary(store, target.organization.id, { name: `Import ${slug}`, slug }, target.user.id);
  return { ...target, library: { id: library.id }, ref: { organizationId: target.organization.id, libraryId: library.id } };
}

/**
 * A library as data with its ids replaced by CPNs (lines and links by their place), so that two libraries
 * compare equal when they hold the same components, values, BOMs, links, configuration and history, whatever
 * their ids. Only ids and the manifest's export time and source differ between an exported and an imported library.
 */
export async function canonicalLibrary(store: Store, ref: { organizationId: string; libraryId: string }) {
  return canonical(await exportLibrary(store, ref));
}

/** canonicalLibrary of an export already read. */
export function canonical(exported: LibraryExport) {
  const cpnOf = new Map(exported.components.map((c) => [c.id, `cpn:${c.cpn}`]));
  const lineNames = new Map<string, string>();
  const named = (names: Map<string, string>, id: string, name: string) => {
    if (!names.has(id)) names.set(id, name);
    return names.get(id)!;
  };
  const ref2 = (id: unknown) => (typeof id === 'string' && cpnOf.has(id) ? cpnOf.get(id)! : id);
  const pin = (value: string | null) => (value === null ? null : `${ref2(value.slice(0, value.lastIndexOf(':')))}${value.slice(value.lastIndexOf(':'))}`);
  const line = (owner: string) => (l: LibraryExport['components'][number]['bom'] extends infer B ? (B extends { lines: (infer L)[] } ? L : never) : never, index: number) => ({
    ...l,
    lineId: named(lineNames, l.lineId, `${owner}/line-${index}`),
    childId: ref2(l.childId),
    childHistoryId: pin(l.childHistoryId),
  });
  const change = (c: { field: string; from: unknown; to: unknown }) => {
    const list = (v: unknown, map: (e: unknown) => unknown) => (Array.isArray(v) ? v.map(map) : v);
    if (c.field === 'children') {
      const summary = (e: unknown) => ({ ...(e as object), childId: ref2((e as { childId: string }).childId), childHistoryId: pin((e as { childHistoryId: string | null }).childHistoryId) });
      return { ...c, from: list(c.from, summary), to: list(c.to, summary) };
    }
    if (c.field === 'documentLinks') return { ...c, from: list(c.from, ref2), to: list(c.to, ref2) };
    return c;
  };
  const components = exported.components.map((c) => {
    const owner = cpnOf.get(c.id)!;
    return {
      ...c,
      id: owner,
      history: c.history.map((h) => ({ ...h, changes: h.changes.map(change) })),
      bom: c.bom ? { ...c.bom, lines: c.bom.lines.map(line(owner)) } : null,
      bomHistory: c.bomHistory.map((s) => ({ ...s, lines: s.lines.map(line(owner)) })),
      documentLinks: c.documentLinks ? { ...c.documentLinks, links: c.documentLinks.links.map((l, i) => ({ ...l, linkId: `${owner}/link-${i}`, documentId: ref2(l.documentId) })) } : null,
    };
  });
  const { exportedAt: _at, source: _source, ...manifest } = exported.manifest;
  return { manifest, components };
}

/** Every item of the library's partitions (its own and its search partition), for "nothing changed" checks. */
export async function partitionSnapshot(store: Store, ref: { organizationId: string; libraryId: string }): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (const pk of [libraryPartition(ref.organizationId, ref.libraryId), searchPartition(ref.organizationId, ref.libraryId)]) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await store.ddb.send(new QueryCommand({ TableName: store.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: start, ConsistentRead: true }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return items;
}

/**
 * A library of `count` seeded components (searchHelpers' seeding) and their BOMs: every 25th component is
 * an assembly (pcba) whose BOM holds the 20 components after it, set by one item write of 10 assemblies.
 */
export async function seedLibraryWithBoms(store: Store, target: SeedTarget, count: number): Promise<ComponentRecord[]> {
  const seeded = await seedComponents(store, target, count, {
    input: (n) => ({
      ...(n % 25 === 0 ? { cpn: `400-${60_000 + n / 25}`, name: `assembly ${n}`, categoryId: 'pcba', statusId: 'design', labels: ['top'] } : seedInputOf(n)),
    }),
  });
  const assemblies = seeded.filter((c) => c.category.type === 'ASSEMBLY');
  const byIndex = new Map(seeded.map((c, i) => [c.id, i]));
  const ctx = await seedContext(store, target, new Date().toISOString());
  const inputs = assemblies.map((a) => {
    const i = byIndex.get(a.id)!;
    const children = seeded.slice(i + 1, i + 21).filter((c) => c.category.type === 'PART');
    return { id: a.id, expectedVersion: a.version, children: children.map((c, k) => ({ childId: c.id, quantity: k + 1, refDes: `R${k + 1}` })) };
  });
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let start = next; start < inputs.length; start = next) {
        next += 10;
        await writeItems(store, ctx, 'update', inputs.slice(start, start + 10), {});
      }
    }),
  );
  return seeded;
}

import { seededInput as seedInputOf } from './searchHelpers.js';
export { createComponents, updateComponents, markReleased };
