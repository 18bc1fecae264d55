import { z } from 'zod';
import { readAccesses, writeDesignations } from '../integrations/policy.js';
import { configTypes } from '../store/libraryConfig.js';

/**
 * The library export format, version 1. One library as data, independent of the table: ids are the
 * source library's and serve as references inside the export; an import gives every component, BOM line
 * and document link a new id and rewrites the references (BOM lines, pins to child versions, document links,
 * history changes that name them). CPNs are the identity users see and are kept.
 *
 * The whole (JSON) is a manifest and the components:
 * - `library.json` (the manifest): format, formatVersion, exportedAt, source, the four configuration
 *   documents, the attribute access policy (null when the library has none), the CPN counters and counts;
 * - `components.json`: every component with all its fields, attribute values, history records, its current
 *   BOM and BOM snapshots (assemblies), and its document links.
 * Through the API the same whole is ONE file: the manifest with `components` inside (`bundle`).
 * The CSV files (`components.csv`, `bom.csv`, see csv.ts) are the spreadsheet view.
 */
export const formatName = 'plm-library';
export const formatVersion = 1;

const isoTime = z.string().min(1);

export const exportedHistoryRecord = z.object({
  version: z.number().int().positive(),
  action: z.enum(['CREATE', 'UPDATE', 'RELEASE']),
  at: isoTime,
  by: z.string(),
  actingIntegrationId: z.string().nullable(),
  changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
});
export type ExportedHistoryRecord = z.infer<typeof exportedHistoryRecord>;

export const exportedBomLine = z.object({
  lineId: z.string().min(1),
  childId: z.string().min(1),
  quantity: z.number().nullable(),
  refDes: z.string().nullable(),
  itemNumber: z.string().nullable(),
  notes: z.string().nullable(),
  childHistoryId: z.string().nullable(),
  createdByIntegrationId: z.string().nullable(),
  createdAt: isoTime,
  createdBy: z.string(),
});
export type ExportedBomLine = z.infer<typeof exportedBomLine>;

export const exportedBom = z.object({ bomVersion: z.number().int().positive(), lines: z.array(exportedBomLine), updatedAt: isoTime, updatedBy: z.string() });
export const exportedBomSnapshot = exportedBom.extend({ actingIntegrationId: z.string().nullable() });

export const exportedDocumentLinks = z.object({
  updatedAt: isoTime,
  links: z.array(z.object({ linkId: z.string().min(1), documentId: z.string().min(1), createdAt: isoTime, createdBy: z.string() })),
});

/** A component as exported: every stored field but the copies of status and category names (derived from the configuration) and the lock of a change order. */
export const exportedComponent = z.object({
  id: z.string().min(1),
  cpn: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  categoryId: z.string(),
  statusId: z.string(),
  revisionValue: z.string(),
  state: z.enum(['RELEASED', 'MODIFIED']),
  version: z.number().int().positive(),
  eid: z.string().nullable(),
  labels: z.array(z.string()),
  attributeValues: z.record(z.string(), z.unknown()),
  documentFormats: z.array(z.string()).nullable(),
  isArchived: z.boolean(),
  notRevisionManaged: z.boolean(),
  lastReleasedNotRevisionManaged: z.boolean().nullable(),
  fileId: z.string().nullable(),
  imageFileId: z.string().nullable(),
  originIntegrationId: z.string().nullable(),
  links: z.array(z.string()),
  createdAt: isoTime,
  updatedAt: isoTime,
  createdBy: z.string(),
  updatedBy: z.string(),
  /** Oldest first: versions 1 to `version`. */
  history: z.array(exportedHistoryRecord),
  bom: exportedBom.nullable(),
  /** Oldest first. */
  bomHistory: z.array(exportedBomSnapshot),
  documentLinks: exportedDocumentLinks.nullable(),
});
export type ExportedComponent = z.infer<typeof exportedComponent>;

export const exportedCounter = z.object({ element: z.string(), scopeKey: z.string(), value: z.number().int() });

export const manifestSchema = z.object({
  format: z.literal(formatName),
  formatVersion: z.literal(formatVersion),
  exportedAt: isoTime,
  source: z.object({ organizationId: z.string(), libraryId: z.string(), slug: z.string(), name: z.string() }).nullable(),
  /** The four documents as stored (validated again on import). */
  configuration: z.object(Object.fromEntries(configTypes.map((type) => [type, z.record(z.string(), z.unknown())])) as Record<(typeof configTypes)[number], z.ZodRecord<z.ZodString, z.ZodUnknown>>),
  accessPolicy: z
    .object({ entries: z.array(z.object({ attribute: z.string(), principal: z.string(), write: z.enum(writeDesignations), read: z.enum(readAccesses) })) })
    .nullable(),
  /** The last value each CPN counter handed out; an import also advances them past every imported CPN. */
  counters: z.array(exportedCounter),
  counts: z.object({ components: z.number().int(), bomLines: z.number().int(), documentLinks: z.number().int(), historyRecords: z.number().int(), bomSnapshots: z.number().int() }),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** The whole library: what export produces and what a JSON import reads. */
export interface LibraryExport {
  manifest: Manifest;
  components: ExportedComponent[];
}

/** The single-file form (API): the manifest with the components inside. */
export const bundleSchema = manifestSchema.extend({ components: z.array(exportedComponent) });

export function countsOf(components: ExportedComponent[]): Manifest['counts'] {
  return {
    components: components.length,
    bomLines: components.reduce((sum, c) => sum + (c.bom?.lines.length ?? 0), 0),
    documentLinks: components.reduce((sum, c) => sum + (c.documentLinks?.links.length ?? 0), 0),
    historyRecords: components.reduce((sum, c) => sum + c.history.length, 0),
    bomSnapshots: components.reduce((sum, c) => sum + c.bomHistory.length, 0),
  };
}
