import * as z from 'zod';
import { maxAccessEntries, readAccesses, writeDesignations } from '../model/attributeAccess.js';
import { configTypes } from '../store/libraryConfig.js';
import { bomLine, bomRecord, documentLink, documentLinksRecord } from '../store/bom.js';
import { componentRecord } from '../store/component.js';
import { componentHistoryRecord } from '../store/componentHistory.js';
import { commentRecord } from '../store/comment.js';
import { watchRecord } from '../store/watch.js';
import { exportedComponentSourcing, exportedManifestSourcing } from './sourcing.js';

/**
 * The library export format, version 1. One library as data, independent of the table: ids are the
 * source library's and serve as references inside the export; an import gives every component, BOM line
 * and document link a new id and rewrites the references (BOM lines, pins to child versions, document links,
 * history changes that name them). CPNs are the identity users see and are kept.
 *
 * The whole (JSON) is a manifest and the components:
 * - `library.json` (the manifest): format, formatVersion, exportedAt, source, the four configuration
 *   documents, the attribute access policy (null when the library has none), the CPN counters and counts,
 *   and (optional: files written before they were carried import without them) the library's own change
 *   order templates with their participants' emails, and the records of the uploaded files its components
 *   name (the bytes: `files/<id>` beside it, or, for the API's single file, the source library's file store);
 * - `components.json`: every component with all its fields, attribute values, history records, its current
 *   BOM and BOM snapshots (assemblies), its document links, comments (threads, tombstones) and watches;
 * - `audit.jsonl`: the organization's audit entries about the library, one JSON object a line (read only).
 * Through the API the same whole is ONE file: the manifest with `components` (and `auditEntries`) inside (`bundle`).
 * The CSV files (`components.csv`, `bom.csv`, see csv.ts) are the spreadsheet view.
 */
export const formatName = 'plm-library';
export const formatVersion = 1;

export const exportedHistoryRecord = componentHistoryRecord.omit({ componentId: true, writeId: true });
export type ExportedHistoryRecord = z.infer<typeof exportedHistoryRecord>;

/** A BOM line as stored; ids are references inside the export (rewritten on import). */
export const exportedBomLine = bomLine.extend({ lineId: z.string().min(1), childId: z.string().min(1), substitutes: z.array(z.string().min(1)).default([]) });
export type ExportedBomLine = z.infer<typeof exportedBomLine>;

export const exportedBom = bomRecord.pick({ bomVersion: true, updatedAt: true, updatedBy: true }).extend({ lines: z.array(exportedBomLine) });
export const exportedBomSnapshot = exportedBom.extend({ actingIntegrationId: z.string().nullable() });

export const exportedDocumentLinks = documentLinksRecord.pick({ updatedAt: true }).extend({ links: z.array(documentLink.extend({ linkId: z.string().min(1), documentId: z.string().min(1) })) });

/**
 * The component fields an export carries as they are: every stored field but the id (a reference inside
 * the export), the tenant ids, the copies of status and category names (derived from the configuration),
 * the lock of a change order and the write id.
 */
export const carriedComponentFields = componentRecord.omit({ id: true, organizationId: true, libraryId: true, category: true, status: true, lockedBy: true, writeId: true });
export type CarriedComponentFields = z.infer<typeof carriedComponentFields>;

export function carriedFieldsOf(record: CarriedComponentFields): CarriedComponentFields {
  const fields = {} as Record<string, unknown>;
  for (const key of Object.keys(carriedComponentFields.shape)) fields[key] = record[key as keyof CarriedComponentFields];
  return fields as CarriedComponentFields;
}

/**
 * A comment on the component as stored, but its tenant ids and target (the component it is under). Ids
 * (id, rootId, parentId) are references inside the export: an import gives each a new time-ordered id and
 * keeps the threads. People (createdBy, editedBy, deletedBy, resolvedBy, mentions) are the source's user ids;
 * `manifest.people` gives their names and emails (discussion.ts matches them in the target organization).
 */
export const exportedComment = commentRecord.omit({ organizationId: true, libraryId: true, targetType: true, targetId: true });
export type ExportedComment = z.infer<typeof exportedComment>;

/** A watch of the component (an assembly's with its children flag), unwatched ones (active false) included. */
export const exportedWatch = watchRecord.pick({ userId: true, withChildren: true, active: true, automatic: true, createdAt: true });
export type ExportedWatch = z.infer<typeof exportedWatch>;

/**
 * An audit entry of the source organization's log about the library (its targets name the library or one of
 * its exported components, comments, files or templates), with the columns of the audit log's export
 * (lib/audit/export.ts). Read only: an import never writes one (see discussion.ts).
 */
export const exportedAuditEntry = z.object({
  seq: z.number().int().nullable(),
  at: z.string(),
  entryId: z.string(),
  organizationId: z.string().nullable(),
  actorType: z.string(),
  actorId: z.string(),
  actorUserId: z.string().nullable(),
  integrationId: z.string().nullable(),
  operation: z.string(),
  targets: z.array(z.string()),
  summary: z.string(),
  result: z.string(),
  errorCode: z.string().nullable(),
  sourceIp: z.string().nullable(),
  userAgent: z.string().nullable(),
  prevHash: z.string().nullable(),
  hash: z.string().nullable(),
});
export type ExportedAuditEntry = z.infer<typeof exportedAuditEntry>;

/** A component as exported: the carried fields, its history (versions 1 to `version`, oldest first), BOM, BOM snapshots (oldest first) and document links. */
export const exportedComponent = carriedComponentFields.extend({
  id: z.string().min(1),
  history: z.array(exportedHistoryRecord),
  bom: exportedBom.nullable(),
  bomHistory: z.array(exportedBomSnapshot),
  documentLinks: exportedDocumentLinks.nullable(),
  /** Its manufacturer parts, quotes and primary source (sourcing.ts); null: none; absent in files written before sourcing was carried. */
  sourcing: exportedComponentSourcing.nullable().optional(),
  /** Its comments in thread order (each thread's first comment, then its replies; tombstones included); absent in files written before comments were carried. */
  comments: z.array(exportedComment).optional(),
  /** Who watches it; absent in files written before watches were carried. */
  watches: z.array(exportedWatch).optional(),
});
export type ExportedComponent = z.infer<typeof exportedComponent>;

/**
 * An uploaded file a component names (fileId, imageFileId, or a history change of them): its record as
 * stored but the tenant ids, status (READY) and storage key. The import gives it a new id and storage key.
 */
export const exportedFile = z.object({
  id: z.string().uuid(),
  name: z.string().min(1).max(255),
  contentType: z.string().min(1).max(255),
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 is 64 lower-case hex digits'),
  createdAt: z.string(),
  createdBy: z.string(),
  completedAt: z.string().nullable(),
});
export type ExportedFile = z.infer<typeof exportedFile>;

/**
 * One of the library's own change order templates (the two defaults live in code and are not exported).
 * Its document names participants by user id, as stored; `participantEmails` gives each of those users'
 * primary email, by which the import finds them again in the target organization.
 */
export const exportedTemplate = z.object({
  id: z.string().min(1),
  name: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  document: z.record(z.string(), z.unknown()),
  participantEmails: z.record(z.string(), z.string()),
});
export type ExportedTemplate = z.infer<typeof exportedTemplate>;

export const exportedCounter = z.object({ element: z.string(), scopeKey: z.string(), value: z.number().int() });

export const manifestSchema = z.object({
  format: z.literal(formatName),
  formatVersion: z.literal(formatVersion),
  exportedAt: z.string(),
  source: z.object({ organizationId: z.string().uuid(), libraryId: z.string().uuid(), slug: z.string(), name: z.string() }).nullable(),
  /** The four documents as stored (validated again on import). */
  configuration: z.object(Object.fromEntries(configTypes.map((type) => [type, z.record(z.string(), z.unknown())])) as Record<(typeof configTypes)[number], z.ZodRecord<z.ZodString, z.ZodUnknown>>),
  accessPolicy: z
    .object({ entries: z.array(z.object({ attribute: z.string(), principal: z.string(), write: z.enum(writeDesignations), read: z.enum(readAccesses) })).max(maxAccessEntries) })
    .nullable(),
  /** The last value each CPN counter handed out; an import also advances them past every imported CPN. */
  counters: z.array(exportedCounter),
  counts: z.object({
    components: z.number().int(),
    bomLines: z.number().int(),
    documentLinks: z.number().int(),
    historyRecords: z.number().int(),
    bomSnapshots: z.number().int(),
    comments: z.number().int().optional(),
    watches: z.number().int().optional(),
  }),
  /** The library's own change order templates, by name (absent in files written before templates were carried). */
  changeOrderTemplates: z.array(exportedTemplate).optional(),
  /** The uploaded files the components name, oldest first (absent in files written before files were carried). */
  files: z.array(exportedFile).optional(),
  /** The organization's vendor directory and the library's exchange rates (sourcing.ts; absent in files written before sourcing was carried). */
  sourcing: exportedManifestSourcing.optional(),
  /** The people the comments and watches name, by source user id: name and primary email (absent in files written before comments were carried). */
  people: z.record(z.string(), z.object({ name: z.string(), email: z.string().nullable() })).optional(),
  /**
   * The audit entries about the library: how many the export holds (audit.jsonl beside library.json; the
   * bundle's `auditEntries`), or why it holds none (`included` false: the API's caller may not read the log).
   */
  audit: z.object({ included: z.boolean(), entries: z.number().int(), note: z.string() }).optional(),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** The whole library: what export produces and what a JSON import reads. */
export interface LibraryExport {
  manifest: Manifest;
  components: ExportedComponent[];
  /** Where the bytes of each exported file are in the source library's file store (not written to the files). */
  fileStorageKeys?: Record<string, string>;
  /** The audit entries about the library, oldest first (read only: an import counts them and writes none). */
  auditEntries?: ExportedAuditEntry[];
}

/** The single-file form (API): the manifest with the components inside. */
export const bundleSchema = manifestSchema.extend({ components: z.array(exportedComponent), auditEntries: z.array(exportedAuditEntry).optional() });

export function countsOf(components: ExportedComponent[]): Manifest['counts'] {
  return {
    components: components.length,
    bomLines: components.reduce((sum, c) => sum + (c.bom?.lines.length ?? 0), 0),
    documentLinks: components.reduce((sum, c) => sum + (c.documentLinks?.links.length ?? 0), 0),
    historyRecords: components.reduce((sum, c) => sum + c.history.length, 0),
    bomSnapshots: components.reduce((sum, c) => sum + c.bomHistory.length, 0),
    comments: components.reduce((sum, c) => sum + (c.comments?.length ?? 0), 0),
    watches: components.reduce((sum, c) => sum + (c.watches?.length ?? 0), 0),
  };
}

/** The component fields (and history change fields) that name files: an import gives the files new ids. */
export const fileFields = new Set(['fileId', 'imageFileId']);
