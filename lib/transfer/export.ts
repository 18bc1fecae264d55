import { loadLibraryConfiguration } from '../config/libraryConfig.js';
import type { LibraryRef } from '../model/scope.js';
import type { Store } from '../store/client.js';
import { getLibrary } from '../store/library.js';
import { configTypes } from '../store/libraryConfig.js';
import { listBomRecords, listBomSnapshotRecords, listComponentRecords, listCpnCounters, listDocumentLinkRecords, listHistoryRecords } from '../store/libraryTransfer.js';
import { committedWriteIds } from '../store/pendingWrite.js';
import { listFileRecords } from '../store/file.js';
import { carriedFieldsOf, countsOf, fileFields, formatName, formatVersion, type ExportedComponent, type ExportedFile, type LibraryExport } from './format.js';
import { exportTemplates } from './templates.js';
import { exportSourcing } from './sourcing.js';
import { withholdSourcing } from '../sourcing/model.js';
import { withheldAttributes, withholdChanges } from '../model/attributeAccess.js';
import { exportAuditEntries, exportDiscussion } from './discussion.js';

export interface ExportOptions {
  /** Whether the export carries the organization's audit entries about the library (true by default: the operator CLI); the API asks for them only for callers who may read the log. */
  auditEntries?: boolean;
}

/** Fields of a component and of its history changes that name an uploaded file. */

/**
 * Reads a whole library: one paginated Query per kind of item (components, history, BOMs, BOM snapshots,
 * document links, counters, change order templates, files) over the library partition, and the configuration.
 * The files are the records of those the components name; their bytes stay in the file store
 * (`fileStorageKeys` says where: writeExportDirectory copies them). Items of a large write that
 * has not committed are left out, as every reader leaves them out. Components come in CPN order.
 */
export async function exportLibrary(store: Store, ref: LibraryRef, options: ExportOptions = {}): Promise<LibraryExport> {
  const { organizationId: org, libraryId: lib } = ref;
  const [library, config, components, history, boms, snapshots, documentLinks, counters, templates, fileRecords, sourcing] = await Promise.all([
    getLibrary(store, org, lib),
    loadLibraryConfiguration(store, org, lib),
    listComponentRecords(store, org, lib),
    listHistoryRecords(store, org, lib),
    listBomRecords(store, org, lib),
    listBomSnapshotRecords(store, org, lib),
    listDocumentLinkRecords(store, org, lib),
    listCpnCounters(store, org, lib),
    exportTemplates(store, org, lib),
    listFileRecords(store, org, lib),
    exportSourcing(store, ref),
  ]);
  const pending = [...components, ...history, ...boms, ...documentLinks].flatMap((r) => (r.writeId ? [r.writeId] : []));
  const committed = await committedWriteIds(store, org, lib, pending);
  const visible = <T extends { writeId?: string | null }>(record: T) => !record.writeId || committed.has(record.writeId);

  const historyOf = groupBy(history.filter(visible), (r) => r.componentId);
  const snapshotsOf = groupBy(snapshots, (r) => r.assemblyId);
  const bomOf = new Map(boms.filter(visible).map((b) => [b.assemblyId, b]));
  const linksOf = new Map(documentLinks.filter(visible).map((d) => [d.componentId, d]));

  const visibleComponents = components.filter(visible);
  const discussion = await exportDiscussion(store, ref, new Set(visibleComponents.map((c) => c.id)));
  const exported: ExportedComponent[] = visibleComponents
    .sort((a, b) => (a.cpn < b.cpn ? -1 : a.cpn > b.cpn ? 1 : 0))
    .map((c) => {
      const bom = bomOf.get(c.id);
      const links = linksOf.get(c.id);
      return {
        id: c.id,
        ...carriedFieldsOf(c),
        // A record past the component's version belongs to a release that has not committed.
        history: (historyOf.get(c.id) ?? [])
          .filter((h) => h.version <= c.version)
          .map((h) => ({ version: h.version, action: h.action, at: h.at, by: h.by, actingIntegrationId: h.actingIntegrationId, changes: h.changes })),
        bom: bom ? { bomVersion: bom.bomVersion, lines: bom.lines, updatedAt: bom.updatedAt, updatedBy: bom.updatedBy } : null,
        bomHistory: (snapshotsOf.get(c.id) ?? [])
          .filter((s) => !bom || s.bomVersion <= bom.bomVersion)
          .map((s) => ({ bomVersion: s.bomVersion, lines: s.lines, updatedAt: s.updatedAt, updatedBy: s.updatedBy, actingIntegrationId: s.actingIntegrationId })),
        documentLinks: links ? { updatedAt: links.updatedAt, links: links.links } : null,
        sourcing: sourcing.byComponent.get(c.id) ?? null,
        comments: discussion.commentsOf.get(c.id) ?? [],
        watches: discussion.watchesOf.get(c.id) ?? [],
      };
    });

  // The uploaded files the components name, now or in their history (others, such as earlier exports, stay).
  const named = new Set<string>();
  for (const c of exported) {
    for (const id of [c.fileId, c.imageFileId]) if (id) named.add(id);
    for (const h of c.history) for (const change of h.changes) if (fileFields.has(change.field)) for (const id of [change.from, change.to]) if (typeof id === 'string') named.add(id);
  }
  const files = fileRecords
    .filter((f) => f.status === 'READY' && named.has(f.id))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name) || a.sha256.localeCompare(b.sha256) || a.id.localeCompare(b.id));

  // The audit entries naming the library or anything the export holds (read only: see discussion.ts).
  const includeAudit = options.auditEntries ?? true;
  const auditIds = new Set([...exported.flatMap((c) => [c.id, ...(c.comments ?? []).map((comment) => comment.id)]), ...files.map((f) => f.id), ...templates.map((t) => t.id)]);
  const auditEntries = includeAudit ? await exportAuditEntries(store, ref, auditIds) : [];

  return {
    auditEntries,
    fileStorageKeys: Object.fromEntries(files.map((f) => [f.id, f.storageKey])),
    manifest: {
      format: formatName,
      formatVersion,
      exportedAt: new Date().toISOString(),
      source: library ? { organizationId: org, libraryId: lib, slug: library.slug, name: library.name } : null,
      configuration: Object.fromEntries(configTypes.map((type) => [type, config.records[type].document])) as LibraryExport['manifest']['configuration'],
      accessPolicy: config.accessPolicy.version > 0 || config.accessPolicy.entries.length > 0 ? { entries: config.accessPolicy.entries } : null,
      counters: counters.sort((a, b) => `${a.element}#${a.scopeKey}`.localeCompare(`${b.element}#${b.scopeKey}`)),
      counts: countsOf(exported),
      changeOrderTemplates: templates,
      files: files.map(
        (f): ExportedFile => ({ id: f.id, name: f.name, contentType: f.contentType, size: f.size, sha256: f.sha256, createdAt: f.createdAt, createdBy: f.createdBy, completedAt: f.completedAt }),
      ),
      sourcing: sourcing.manifest,
      people: discussion.people,
      audit: includeAudit
        ? {
            included: true,
            entries: auditEntries.length,
            note: 'The organization audit entries naming the library or its components, comments, files or templates; read only (an import writes none).',
          }
        : { included: false, entries: 0, note: 'Audit entries are exported only for callers who may read the audit log (organization.settings.update).' },
    },
    components: exported,
  };
}

/**
 * The export as `principal` may read it, as its reads leave things out (RECEIVE_ONLY or NO_ACCESS in the
 * library's access policy): withheld attribute values are left out of every component's attributeValues;
 * a withheld `sourcing.parts` leaves out each component's sourcing (no parts, quotes or primary source), a
 * withheld `sourcing.quotes` every quote and the primary quote (withholdSourcing's rule); the history changes
 * of what is withheld go too, and the primary quote of a `sourcing.primary` change (withholdChanges). The vendor directory and the exchange rates are not
 * designated and stay. The native principal reads everything: the export is unchanged.
 */
export function exportFor(library: LibraryExport, principal: string): LibraryExport {
  const withheld = withheldAttributes({ version: 0, entries: library.manifest.accessPolicy?.entries ?? [] }, principal);
  if (withheld.size === 0) return library;
  return {
    ...library,
    components: library.components.map((c) => ({
      ...c,
      attributeValues: Object.fromEntries(Object.entries(c.attributeValues).filter(([id]) => !withheld.has(id))),
      history: c.history.map((h) => ({ ...h, changes: withholdChanges(h.changes, withheld) })),
      // No sourcing at all without `sourcing.parts`: null, as a component without sourcing is exported.
      sourcing: !c.sourcing ? c.sourcing : withheld.has('sourcing.parts') ? null : withholdSourcing(c.sourcing, withheld),
      // What search filters on (the parts' MPNs and manufacturers) goes with the parts.
      ...(withheld.has('sourcing.parts') ? { sourcingIndex: undefined } : {}),
    })),
  };
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
