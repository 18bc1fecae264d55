import { randomUUID } from 'node:crypto';
import { stringify } from 'csv-stringify/sync';
import type { ImportProblem } from '../errors.js';
import { normalizeName } from '../sourcing/input.js';
import { byRank } from '../sourcing/model.js';
import { approvals, lifecycles, type VendorKind } from '../store/sourcing.js';
import { numberCell } from '../csvCells.js';
import { escapedRows, parseTable } from './csv.js';
import type { ExportedComponent } from './format.js';
import type { ExportedComponentSourcing, ExportedManifestSourcing, ExportedVendor } from './sourcing.js';

/**
 * sourcing.csv: the manufacturer parts and quotes of the library, one row per quote price break, or per quote
 * without breaks, or per part without quotes. Columns: cpn, manufacturer, mpn, lifecycle, approval, rank,
 * distributor, distributorPN, minQuantity, unitPrice, currency, moq, orderMultiple, leadTimeDays, stock,
 * validUntil, primary, legacy. Vendors by name (an import matches them by name or alias, or creates them).
 * `primary`: `true` on the rows of the primary quote (or of the primary part when it has no quote), `part`
 * on the rows of a primary part whose quotes are none primary. `legacy`: `true` the part and the quote are
 * `isLegacyImport` (the part, on a row without a quote), `part` only the part, `quote` only the quote, empty
 * or `false` neither (an import of a legacy cost sheet sets both on every row: ImportSource `legacy`).
 * `quote`: the quote's number within its part (1, 2, ...), so that two quotes of one part with the same
 * distributor and terms stay two; a hand-written sheet may leave it out (rows of one part with the same
 * distributor, distributor PN, currency and terms are then one quote).
 * Cells are escaped against formula injection as in csv.ts.
 */
export const sourcingColumns = [
  'cpn',
  'manufacturer',
  'mpn',
  'lifecycle',
  'approval',
  'rank',
  'distributor',
  'distributorPN',
  'minQuantity',
  'unitPrice',
  'currency',
  'moq',
  'orderMultiple',
  'leadTimeDays',
  'stock',
  'validUntil',
  'primary',
  'legacy',
  'quote',
] as const;

const text = (v: string | number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** The sourcing.csv of an export; null when no component has a manufacturer part. */
export function sourcingToCsv(components: ExportedComponent[], sourcing: ExportedManifestSourcing | undefined): string | null {
  if (!components.some((c) => (c.sourcing?.parts.length ?? 0) > 0)) return null;
  const names = new Map((sourcing?.vendors ?? []).map((v) => [v.id, v.name]));
  const rows: string[][] = [];
  for (const c of components) {
    const s = c.sourcing;
    if (!s) continue;
    for (const part of [...s.parts].sort(byRank)) {
      const isPrimary = s.primaryPartId === part.id;
      const head = [c.cpn, names.get(part.manufacturerId) ?? part.manufacturerId, part.mpn, part.lifecycle, part.approval, text(part.rank)];
      if (part.quotes.length === 0) {
        rows.push([...head, '', '', '', '', '', '', '', '', '', '', isPrimary ? 'true' : '', part.isLegacyImport ? 'true' : '', '']);
        continue;
      }
      for (const [number, quote] of part.quotes.entries()) {
        const primary = isPrimary ? (s.primaryQuoteId === quote.id ? 'true' : s.primaryQuoteId === null ? 'part' : '') : '';
        const tail = [
          quote.currency,
          text(quote.moq),
          text(quote.orderMultiple),
          text(quote.leadTimeDays),
          text(quote.stock),
          text(quote.validUntil),
          primary,
          part.isLegacyImport ? (quote.isLegacyImport ? 'true' : 'part') : quote.isLegacyImport ? 'quote' : '',
          String(number + 1),
        ];
        const distributor = [names.get(quote.distributorId) ?? quote.distributorId, text(quote.distributorPartNumber)];
        const breaks = quote.priceBreaks.length > 0 ? quote.priceBreaks : [null];
        for (const pb of breaks) rows.push([...head, ...distributor, text(pb?.minQuantity), text(pb?.unitPrice), ...tail]);
      }
    }
  }
  return stringify([[...sourcingColumns], ...escapedRows(rows)]);
}

/**
 * Reads sourcing.csv into the components' sourcing (by CPN) and a vendor list (one per distinct name and
 * kind, matched or created by the import as exported vendors are). Rows of one part (same CPN, manufacturer
 * and MPN) merge; rows of one quote (same distributor, distributor PN, currency and terms) give its price
 * breaks. Cell problems name `sourcing.csv row N`; the rest is checked as a JSON import's sourcing.
 */
export function sourcingFromCsv(
  csvText: string,
  components: ExportedComponent[],
  legacyFile: boolean,
  at: string,
  problems: ImportProblem[],
): { sourcing: ExportedManifestSourcing; rows: Map<string, number> } {
  /** The first row of each part and quote (by id), for the problems found after reading. */
  const rows = new Map<string, number>();
  const file = 'sourcing.csv';
  const table = parseTable(csvText, file, (c) => (sourcingColumns as readonly string[]).includes(c), ['cpn', 'manufacturer', 'mpn'], problems);
  const byCpn = new Map(components.map((c) => [c.cpn.toLowerCase(), c]));
  const vendors = new Map<string, ExportedVendor>();
  const vendorId = (kind: VendorKind, name: string) => {
    const key = `${kind}#${normalizeName(name)}`;
    if (!vendors.has(key)) vendors.set(key, { id: `csv:${key}`, kind, name: name.trim().replace(/\s+/g, ' '), website: null, aliases: [] });
    return vendors.get(key)!.id;
  };
  const sourcing = new Map<ExportedComponent, ExportedComponentSourcing>();
  /** The quotes of each part by their number in the sheet (column `quote`), and the quotes that have one. */
  type SheetQuote = ExportedComponentSourcing['parts'][number]['quotes'][number];
  const quoteNumbers = new Map<object, Map<number, SheetQuote>>();
  const numbered = new Set<SheetQuote>();
  for (const { row, cells } of table) {
    const where = (column: string) => `${file} row ${row} ${column}`;
    const bad = (column: string, message: string) => problems.push({ path: where(column), code: 'CSV_INVALID_CELL', message });
    const int = (column: string, min: number): number | null => {
      const v = (cells[column] ?? '').trim();
      if (v === '') return null;
      const n = numberCell(v);
      if (n === undefined || !Number.isInteger(n) || n < min) bad(column, `expected a whole number of at least ${min} (got "${v}")`);
      return n !== undefined && Number.isInteger(n) ? n : null;
    };
    const cell = (column: string) => (cells[column] ?? '').trim();
    const component = byCpn.get(cell('cpn').toLowerCase());
    if (!component) {
      problems.push({ path: where('cpn'), code: 'COMPONENT_NOT_FOUND', message: `CPN "${cell('cpn')}" is not a component of the import` });
      continue;
    }
    if (cell('manufacturer') === '' || cell('mpn') === '') {
      bad(cell('manufacturer') === '' ? 'manufacturer' : 'mpn', 'manufacturer and mpn are required');
      continue;
    }
    const lifecycle = cell('lifecycle').toUpperCase() || 'UNKNOWN';
    const approval = cell('approval').toUpperCase() || 'NOT_APPROVED';
    if (!(lifecycles as readonly string[]).includes(lifecycle)) bad('lifecycle', `expected one of ${lifecycles.join(', ')} (got "${cell('lifecycle')}")`);
    if (!(approvals as readonly string[]).includes(approval)) bad('approval', `expected one of ${approvals.join(', ')} (got "${cell('approval')}")`);
    const legacyCell = cell('legacy').toLowerCase();
    if (!['', 'true', 'false', 'part', 'quote'].includes(legacyCell)) bad('legacy', `expected true, part, quote or false (got "${cell('legacy')}")`);
    const partLegacy = legacyFile || legacyCell === 'true' || legacyCell === 'part';
    const quoteLegacy = legacyFile || legacyCell === 'true' || legacyCell === 'quote';
    const primary = cell('primary').toLowerCase();
    if (!['', 'true', 'false', 'part'].includes(primary)) bad('primary', `expected true, part or false (got "${cell('primary')}")`);

    const s = sourcing.get(component) ?? { parts: [], primaryPartId: null, primaryQuoteId: null, updatedAt: at };
    sourcing.set(component, s);
    const manufacturerId = vendorId('MANUFACTURER', cell('manufacturer'));
    let part = s.parts.find((p) => p.manufacturerId === manufacturerId && p.mpn.toLowerCase() === cell('mpn').toLowerCase());
    if (!part) {
      part = {
        id: randomUUID(),
        manufacturerId,
        mpn: cell('mpn'),
        description: null,
        datasheetUrl: null,
        lifecycle: (lifecycles as readonly string[]).includes(lifecycle) ? (lifecycle as (typeof lifecycles)[number]) : 'UNKNOWN',
        approval: (approvals as readonly string[]).includes(approval) ? (approval as (typeof approvals)[number]) : 'NOT_APPROVED',
        rank: int('rank', 0),
        isLegacyImport: partLegacy,
        quotes: [],
        createdAt: at,
        updatedAt: at,
      };
      s.parts.push(part);
      rows.set(part.id, row);
    }
    if (primary === 'true' || primary === 'part') s.primaryPartId = part.id;
    if (cell('distributor') === '') {
      if (cell('currency') !== '' || cell('unitPrice') !== '') bad('distributor', 'a row with a price or currency needs its distributor');
      continue;
    }
    const currency = cell('currency').toUpperCase();
    if (currency === '') {
      bad('currency', 'a quote needs its currency');
      continue;
    }
    const terms = {
      distributorId: vendorId('DISTRIBUTOR', cell('distributor')),
      distributorPartNumber: cell('distributorPN') || null,
      currency,
      moq: int('moq', 1),
      orderMultiple: int('orderMultiple', 1),
      leadTimeDays: int('leadTimeDays', 0),
      stock: int('stock', 0),
      validUntil: cell('validUntil') || null,
    };
    if (terms.validUntil && Number.isNaN(Date.parse(terms.validUntil))) bad('validUntil', `expected a date (got "${terms.validUntil}")`);
    const same = (q: typeof terms) => (Object.keys(terms) as (keyof typeof terms)[]).every((k) => q[k] === terms[k]);
    // Rows of one quote: the same quote number within the part when the sheet numbers them, else the same terms.
    const quoteNumber = int('quote', 1);
    const partQuotes = quoteNumbers.get(part) ?? new Map();
    quoteNumbers.set(part, partQuotes);
    let quote = quoteNumber !== null ? partQuotes.get(quoteNumber) : part.quotes.find((q) => !numbered.has(q) && same(q));
    if (quote && !same(quote)) bad('quote', `quote ${quoteNumber} of this part is on an earlier row with another distributor, currency or terms`);
    if (!quote) {
      quote = { id: randomUUID(), ...terms, priceBreaks: [], isLegacyImport: quoteLegacy, createdAt: at, updatedAt: at };
      part.quotes.push(quote);
      rows.set(quote.id, row);
      if (quoteNumber !== null) {
        partQuotes.set(quoteNumber, quote);
        numbered.add(quote);
      }
    }
    if (primary === 'true') s.primaryQuoteId = quote.id;
    const minQuantity = int('minQuantity', 1);
    const priceText = cell('unitPrice');
    const unitPrice = priceText === '' ? null : (numberCell(priceText) ?? Number.NaN);
    if (unitPrice !== null && Number.isNaN(unitPrice)) bad('unitPrice', `expected a number (got "${priceText}")`);
    if (minQuantity !== null || unitPrice !== null) quote.priceBreaks.push({ minQuantity: minQuantity ?? terms.moq ?? 1, unitPrice: unitPrice !== null && Number.isNaN(unitPrice) ? null : unitPrice });
  }
  for (const [component, s] of sourcing) {
    for (const p of s.parts) for (const q of p.quotes) q.priceBreaks.sort((a, b) => a.minQuantity - b.minQuantity);
    component.sourcing = s;
  }
  return { sourcing: { vendors: [...vendors.values()], exchangeRates: null }, rows };
}

/** Where a sourcing problem of a CSV import is: `@<component index>.sourcing.parts[j].quotes[q].<field>` becomes `sourcing.csv row N <field>`. */
export const csvSourcingPrefix = '@';
export function csvSourcingPath(path: string, components: ExportedComponent[], rows: Map<string, number>): string {
  const match = /^@(\d+)\.sourcing\.(?:parts\[(\d+)\](?:\.quotes\[(\d+)\])?|(primaryPartId|primaryQuoteId))\.?(.*)$/.exec(path);
  if (!match) return path;
  const component = components[Number(match[1])];
  const s = component?.sourcing;
  if (!component || !s) return path;
  const part = match[2] !== undefined ? s.parts[Number(match[2])] : s.parts.find((p) => p.id === s.primaryPartId);
  const quote = match[3] !== undefined ? part?.quotes[Number(match[3])] : match[4] === 'primaryQuoteId' ? part?.quotes.find((q) => q.id === s.primaryQuoteId) : undefined;
  const row = rows.get(quote?.id ?? '') ?? rows.get(part?.id ?? '');
  const field = match[4] ? 'primary' : match[5] || (match[3] !== undefined ? 'distributor' : 'mpn');
  return row === undefined ? `sourcing.csv (CPN ${component.cpn}) ${field}` : `sourcing.csv row ${row} ${field}`;
}
