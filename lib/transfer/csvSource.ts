import { randomUUID } from 'node:crypto';
import { normalizeCpn } from '../config/cpnScheme.js';
import { initialRevision } from '../config/revisionScheme.js';
import type { ImportProblem } from '../errors.js';
import { diffComponents } from '../components/rules.js';
import { bomChange } from '../items/bomRules.js';
import type { ComponentRecord } from '../store/component.js';
import { numberCell } from '../csvCells.js';
import { attributeCellValue, findByIdOrName, parseBomCsv, parseComponentsCsv } from './csv.js';
import type { ExportedBomLine, ExportedComponent } from './format.js';
import type { ImportConfiguration, Locations } from './validate.js';

/** Who imports, and when: what a CSV import records as creator, history author and BOM line author. */
export interface ImportActor {
  userId: string;
  /** The principal linked to the new components (the native one for people and the CLI). */
  principalId: string;
  actingIntegrationId: string | null;
  at: string;
}

function flag(cell: string, where: string, problems: ImportProblem[], empty: boolean | null): boolean | null {
  if (cell === '') return empty;
  if (/^(true|false)$/i.test(cell)) return cell.toLowerCase() === 'true';
  problems.push({ path: where, code: 'CSV_INVALID_CELL', message: `expected true or false (got "${cell}")` });
  return empty;
}

/**
 * Components from the spreadsheet files, as an export would hold them: each a new component at version 1
 * with ONE CREATE history record (by the importer, at the import's time, listing every field set, its BOM
 * lines and document links, as item.create records them), its BOM as bomVersion 1 with one snapshot.
 * Rows refer to each other by CPN. Cell problems go to `problems`; the rest is checked by validateComponents.
 */
export function componentsFromCsv(
  componentsText: string,
  bomText: string | null,
  config: ImportConfiguration,
  actor: ImportActor,
  problems: ImportProblem[],
): { components: ExportedComponent[]; locations: Locations } {
  const rows = parseComponentsCsv(componentsText, problems);
  const bomRows = bomText === null ? [] : parseBomCsv(bomText, problems);
  const idOfCpn = new Map<string, string>();
  for (const [i, row] of rows.entries()) {
    const key = normalizeCpn(config.cpnScheme, row.cpn);
    if (row.cpn && !idOfCpn.has(key)) idOfCpn.set(key, `row-${i}`);
  }
  // An unknown CPN stays a reference the validator reports (CHILD_NOT_FOUND, DOCUMENT_NOT_FOUND).
  const ref = (cpn: string) => idOfCpn.get(normalizeCpn(config.cpnScheme, cpn)) ?? `cpn:${cpn}`;

  const linesOf = new Map<string, { line: ExportedBomLine; row: number }[]>();
  for (const bomRow of bomRows) {
    const where = `bom.csv row ${bomRow.row}`;
    if (!bomRow.parentCpn || !bomRow.childCpn) {
      problems.push({ path: where, code: 'INVALID_BOM_LINE', message: 'parentCpn and childCpn are required' });
      continue;
    }
    const parentId = idOfCpn.get(normalizeCpn(config.cpnScheme, bomRow.parentCpn));
    if (!parentId) {
      problems.push({ path: where, code: 'CHILD_NOT_FOUND', message: `the assembly ${bomRow.parentCpn} is not in components.csv` });
      continue;
    }
    let quantity: number | null = null;
    if (bomRow.quantity !== '') {
      quantity = numberCell(bomRow.quantity) ?? Number.NaN;
      if (!Number.isFinite(quantity)) {
        problems.push({ path: where, code: 'INVALID_BOM_LINE', message: `quantity must be a number (got "${bomRow.quantity}")` });
        quantity = null;
      }
    }
    const text = (value: string) => (value.trim() === '' ? null : value.trim());
    const line: ExportedBomLine = {
      lineId: randomUUID(),
      childId: ref(bomRow.childCpn),
      quantity,
      refDes: text(bomRow.refDes),
      itemNumber: text(bomRow.itemNumber),
      notes: text(bomRow.notes),
      childHistoryId: null,
      substitutes: [],
      createdByIntegrationId: actor.actingIntegrationId,
      createdAt: actor.at,
      createdBy: actor.userId,
    };
    linesOf.set(parentId, [...(linesOf.get(parentId) ?? []), { line, row: bomRow.row }]);
  }

  const components = rows.map((row, i): ExportedComponent => {
    const where = (column: string) => `components.csv row ${row.row}, ${column}`;
    const id = `row-${i}`;
    const category = findByIdOrName(config.categories.categories, row.category);
    const status = row.status === '' ? config.statuses.statuses.find((s) => s.isDefault) : findByIdOrName(config.statuses.statuses, row.status);
    const state = row.state === '' ? 'MODIFIED' : row.state.toUpperCase();
    if (state !== 'RELEASED' && state !== 'MODIFIED') problems.push({ path: where('state'), code: 'CSV_INVALID_CELL', message: `state is RELEASED or MODIFIED (got "${row.state}")` });
    const attributeValues = Object.fromEntries([...row.attributes].map(([attributeId, cell]) => [attributeId, category ? attributeCellValue(category, attributeId, cell) : cell]));
    const lines = (linesOf.get(id) ?? []).map((entry) => entry.line);
    const documentIds = [...new Set(row.documents.map(ref))];
    const record = {
      id,
      cpn: row.cpn,
      name: row.name.trim(),
      description: row.description.trim() || null,
      categoryId: category?.id ?? row.category,
      statusId: status?.id ?? row.status,
      revisionValue: row.revision !== '' ? row.revision : status ? initialRevision(config.revisionScheme, status.mapsTo) : '',
      state: state === 'RELEASED' ? ('RELEASED' as const) : ('MODIFIED' as const),
      version: 1,
      eid: row.eid.trim() || null,
      labels: row.labels,
      attributeValues,
      documentFormats: row.documentFormats,
      isArchived: flag(row.isArchived, where('isArchived'), problems, false)!,
      notRevisionManaged: flag(row.notRevisionManaged, where('notRevisionManaged'), problems, false)!,
      lastReleasedNotRevisionManaged: flag(row.lastReleasedNotRevisionManaged, where('lastReleasedNotRevisionManaged'), problems, null),
      fileId: null,
      imageFileId: null,
      originIntegrationId: actor.principalId,
      links: [actor.principalId],
      createdAt: actor.at,
      updatedAt: actor.at,
      createdBy: actor.userId,
      updatedBy: actor.userId,
    };
    const relationChanges = [
      ...[
        bomChange(
          [],
          lines.map((l) => ({ ...l })),
        ),
      ].filter((c) => c !== null),
      ...(documentIds.length ? [{ field: 'documentLinks', from: [], to: documentIds }] : []),
    ];
    return {
      ...record,
      history: [
        {
          version: 1,
          action: 'CREATE',
          at: actor.at,
          by: actor.userId,
          actingIntegrationId: actor.actingIntegrationId,
          changes: [...diffComponents(null, record as unknown as ComponentRecord), ...relationChanges],
        },
      ],
      bom: lines.length ? { bomVersion: 1, lines, updatedAt: actor.at, updatedBy: actor.userId } : null,
      bomHistory: lines.length ? [{ bomVersion: 1, lines, updatedAt: actor.at, updatedBy: actor.userId, actingIntegrationId: actor.actingIntegrationId }] : [],
      documentLinks: documentIds.length ? { updatedAt: actor.at, links: documentIds.map((documentId) => ({ linkId: randomUUID(), documentId, createdAt: actor.at, createdBy: actor.userId })) } : null,
    };
  });

  const rowOf = components.map((_, i) => rows[i]!.row);
  const lineRows = new Map(components.map((c) => [c.id, (linesOf.get(c.id) ?? []).map((entry) => entry.row)]));
  return {
    components,
    locations: {
      component: (i) => `components.csv row ${rowOf[i]}`,
      line: (i, j) => `bom.csv row ${lineRows.get(components[i]!.id)?.[j]}`,
    },
  };
}
