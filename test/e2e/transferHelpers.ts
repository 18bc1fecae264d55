import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createLibrary } from '../../lib/orgs/libraries.js';
import type { Store } from '../../lib/store/client.js';
import { libraryPartition } from '../../lib/store/library.js';
import { searchPartition } from '../../lib/search/entries.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import type { ExportedBomLine, LibraryExport } from '../../lib/transfer/format.js';
import type { SeedTarget } from './searchHelpers.js';

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
  const line = (owner: string) => (l: ExportedBomLine, index: number) => ({
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
