import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { CategoriesDocument, CategoryDefinition } from '../config/categories.js';
import type { StatusesDocument } from '../config/statuses.js';
import { escapeCell, escapedRows, numberCell, unescapeCell } from '../csvCells.js';
import type { ImportProblem } from '../errors.js';
import type { ExportedComponent } from './format.js';

/**
 * The spreadsheet view of a library (what Arena, Duro and spreadsheet users exchange), RFC 4180 CSV in
 * UTF-8 with a header row, read and written with csv-parse / csv-stringify.
 *
 * components.csv: one row per component. Columns (any order; unknown columns are refused):
 *   cpn (required, unique), name (required), category (id or name, required), status (id or name; empty:
 *   the default status), revision (empty: the scheme's initial revision for the status), state (RELEASED or
 *   MODIFIED; empty: MODIFIED), description, eid, labels, documentFormats, notRevisionManaged,
 *   lastReleasedNotRevisionManaged, isArchived (true/false; empty: false, null for lastReleased…),
 *   documents (CPNs of the linked document components), and one column `attr:<attributeId>` per attribute
 *   (empty: no value; numbers, integers and booleans as text, dates YYYY-MM-DD, enums as the option).
 * List cells (labels, documentFormats, documents) separate values with `;`. A value that itself holds a `;`
 * or starts with `[` is written as a JSON array cell (`["a;b","c"]`), which is also accepted on input.
 *
 * bom.csv: one row per BOM line, in line order per assembly: parentCpn, childCpn (required), quantity,
 * refDes, itemNumber, notes.
 *
 * Formula injection (OWASP "CSV injection"): a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`,
 * a tab or a carriage return as a formula. Such a data cell is written with a leading single quote, which
 * spreadsheets show as text; so is a cell that really starts with a single quote, which makes the escaping
 * unambiguous: reading a data cell removes exactly one leading single quote. A plain number (`-5`, `+1e3`)
 * is not a formula and is written as is, so numeric attributes stay numbers in a spreadsheet.
 */

export const componentColumns = [
  'cpn',
  'name',
  'category',
  'status',
  'revision',
  'state',
  'description',
  'eid',
  'labels',
  'documentFormats',
  'notRevisionManaged',
  'lastReleasedNotRevisionManaged',
  'isArchived',
  'documents',
] as const;
export const bomColumns = ['parentCpn', 'childCpn', 'quantity', 'refDes', 'itemNumber', 'notes'] as const;
const attributePrefix = 'attr:';

// The escaping is shared with every CSV the service writes (the audit log's too).
export { escapeCell, escapedRows, unescapeCell };

function listCell(values: readonly string[] | null): string {
  if (!values || values.length === 0) return '';
  return values.some((v) => v.includes(';') || v.trimStart().startsWith('[') || v !== v.trim()) ? JSON.stringify(values) : values.join(';');
}

function valueCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** Attribute columns: every attribute of the configuration in category order, then ids only values use. */
function attributeIds(categories: CategoriesDocument, components: ExportedComponent[]): string[] {
  const ids = new Set(categories.categories.flatMap((c) => c.attributes.map((a) => a.id)));
  for (const c of components) for (const id of Object.keys(c.attributeValues)) ids.add(id);
  return [...ids];
}

export function componentsToCsv(components: ExportedComponent[], categories: CategoriesDocument): string {
  const attributes = attributeIds(categories, components);
  const cpnOf = new Map(components.map((c) => [c.id, c.cpn]));
  const rows = components.map((c) => [
    c.cpn,
    c.name,
    c.categoryId,
    c.statusId,
    c.revisionValue,
    c.state,
    c.description ?? '',
    c.eid ?? '',
    listCell(c.labels),
    listCell(c.documentFormats),
    String(c.notRevisionManaged),
    c.lastReleasedNotRevisionManaged === null ? '' : String(c.lastReleasedNotRevisionManaged),
    String(c.isArchived),
    listCell((c.documentLinks?.links ?? []).map((l) => cpnOf.get(l.documentId) ?? l.documentId)),
    ...attributes.map((id) => valueCell(c.attributeValues[id])),
  ]);
  return stringify([[...componentColumns, ...attributes.map((id) => `${attributePrefix}${id}`)], ...escapedRows(rows)]);
}

export function bomToCsv(components: ExportedComponent[]): string {
  const cpnOf = new Map(components.map((c) => [c.id, c.cpn]));
  const rows = components.flatMap((c) =>
    (c.bom?.lines ?? []).map((line) => [
      c.cpn,
      cpnOf.get(line.childId) ?? line.childId,
      line.quantity === null ? '' : String(line.quantity),
      line.refDes ?? '',
      line.itemNumber ?? '',
      line.notes ?? '',
    ]),
  );
  return stringify([[...bomColumns], ...escapedRows(rows)]);
}

/** A component row as read, before it is checked against the configuration. */
export interface CsvComponentRow {
  row: number;
  cpn: string;
  name: string;
  category: string;
  status: string;
  revision: string;
  state: string;
  description: string;
  eid: string;
  labels: string[];
  documentFormats: string[] | null;
  notRevisionManaged: string;
  lastReleasedNotRevisionManaged: string;
  isArchived: string;
  documents: string[];
  attributes: Map<string, string>;
}

export interface CsvBomRow {
  row: number;
  parentCpn: string;
  childCpn: string;
  quantity: string;
  refDes: string;
  itemNumber: string;
  notes: string;
}

/** Parses a CSV file into records keyed by header; a malformed file is one problem naming the line. */
export function parseTable(text: string, file: string, known: (column: string) => boolean, required: string[], problems: ImportProblem[]): { row: number; cells: Record<string, string> }[] {
  let records: string[][];
  try {
    records = parse(text.replace(/^\uFEFF/, ''), { relax_column_count: false, skip_empty_lines: true, trim: false }) as string[][];
  } catch (error) {
    const e = error as { message: string; lines?: number };
    problems.push({ path: `${file}${e.lines ? ` line ${e.lines}` : ''}`, code: 'CSV_MALFORMED', message: e.message });
    return [];
  }
  const header = (records[0] ?? []).map((h) => h.trim());
  if (header.length === 0) {
    problems.push({ path: file, code: 'CSV_MALFORMED', message: 'the file has no header row' });
    return [];
  }
  let ok = true;
  for (const [index, column] of header.entries()) {
    if (!known(column)) {
      problems.push({ path: `${file} header`, code: 'CSV_UNKNOWN_COLUMN', message: `unknown column "${column}" (column ${index + 1})` });
      ok = false;
    }
    if (header.indexOf(column) !== index) {
      problems.push({ path: `${file} header`, code: 'CSV_DUPLICATE_COLUMN', message: `column "${column}" appears twice` });
      ok = false;
    }
  }
  for (const column of required) {
    if (!header.includes(column)) {
      problems.push({ path: `${file} header`, code: 'CSV_MISSING_COLUMN', message: `the required column "${column}" is missing` });
      ok = false;
    }
  }
  if (!ok) return [];
  // Row numbers are the spreadsheet's: the header is row 1.
  return records.slice(1).map((cells, index) => ({ row: index + 2, cells: Object.fromEntries(header.map((column, c) => [column, unescapeCell(cells[c] ?? '')])) }));
}

function parseList(cell: string, where: string, problems: ImportProblem[]): string[] {
  const text = cell.trim();
  if (text === '') return [];
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')) return parsed;
    } catch {
      // reported below
    }
    problems.push({ path: where, code: 'CSV_INVALID_CELL', message: `a list cell starting with "[" must be a JSON array of strings (got ${text.slice(0, 60)})` });
    return [];
  }
  return text
    .split(';')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

export function parseComponentsCsv(text: string, problems: ImportProblem[], file = 'components.csv'): CsvComponentRow[] {
  const table = parseTable(
    text,
    file,
    (c) => (componentColumns as readonly string[]).includes(c) || (c.startsWith(attributePrefix) && c.length > attributePrefix.length),
    ['cpn', 'name', 'category'],
    problems,
  );
  return table.map(({ row, cells }) => {
    const where = (column: string) => `${file} row ${row}, ${column}`;
    const attributes = new Map<string, string>();
    for (const [column, value] of Object.entries(cells)) if (column.startsWith(attributePrefix) && value.trim() !== '') attributes.set(column.slice(attributePrefix.length), value.trim());
    const formats = cells.documentFormats ?? '';
    return {
      row,
      cpn: (cells.cpn ?? '').trim(),
      name: cells.name ?? '',
      category: (cells.category ?? '').trim(),
      status: (cells.status ?? '').trim(),
      revision: (cells.revision ?? '').trim(),
      state: (cells.state ?? '').trim(),
      description: cells.description ?? '',
      eid: cells.eid ?? '',
      labels: parseList(cells.labels ?? '', where('labels'), problems),
      documentFormats: formats.trim() === '' ? null : parseList(formats, where('documentFormats'), problems),
      notRevisionManaged: (cells.notRevisionManaged ?? '').trim(),
      lastReleasedNotRevisionManaged: (cells.lastReleasedNotRevisionManaged ?? '').trim(),
      isArchived: (cells.isArchived ?? '').trim(),
      documents: parseList(cells.documents ?? '', where('documents'), problems),
      attributes,
    };
  });
}

export function parseBomCsv(text: string, problems: ImportProblem[], file = 'bom.csv'): CsvBomRow[] {
  const table = parseTable(text, file, (c) => (bomColumns as readonly string[]).includes(c), ['parentCpn', 'childCpn'], problems);
  return table.map(({ row, cells }) => ({
    row,
    parentCpn: (cells.parentCpn ?? '').trim(),
    childCpn: (cells.childCpn ?? '').trim(),
    quantity: (cells.quantity ?? '').trim(),
    refDes: cells.refDes ?? '',
    itemNumber: cells.itemNumber ?? '',
    notes: cells.notes ?? '',
  }));
}

/** A category or status named by id, or else by name (case-insensitive), as spreadsheet users write them. */
export function findByIdOrName<T extends { id: string; name: string }>(entries: readonly T[], text: string): T | undefined {
  return entries.find((e) => e.id === text) ?? entries.find((e) => e.name.toLowerCase() === text.toLowerCase());
}

/** An attribute cell as the attribute's type: numbers and booleans are parsed, the rest is text (the validator reports mismatches). */
export function attributeCellValue(category: CategoryDefinition, attributeId: string, cell: string): unknown {
  const attribute = category.attributes.find((a) => a.id === attributeId);
  if (!attribute) return cell;
  const number = attribute.valueType === 'NUMBER' || attribute.valueType === 'INTEGER' ? numberCell(cell) : undefined;
  if (number !== undefined) return number;
  if (attribute.valueType === 'BOOLEAN' && /^(true|false)$/i.test(cell)) return cell.toLowerCase() === 'true';
  return cell;
}

export type { StatusesDocument };
