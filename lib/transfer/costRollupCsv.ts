import { stringify } from 'csv-stringify/sync';
import { componentsByIds } from '../components/queries.js';
import type { BlobStorage } from '../files/port.js';
import { storeGeneratedFile } from '../files/files.js';
import type { LibraryScope } from '../model/scope.js';
import { costRollup, type CostRollupView } from '../sourcing/rollup.js';
import type { Store } from '../store/client.js';
import type { FileRecord } from '../store/file.js';
import { escapedRows } from './csv.js';

export const costRollupCsvColumns = [
  'cpn',
  'name',
  'extendedQuantity',
  'orderQuantity',
  'priceBreakMinQuantity',
  'quoteCurrency',
  'quoteUnitPrice',
  'currency',
  'unitCost',
  'extendedCost',
  'missing',
  'message',
] as const;

/**
 * The cost roll-up as a spreadsheet: one row per purchased component (priced lines first, in roll-up order,
 * then the missing ones with their reason, never a zero), and a last row with the total and whether it is
 * complete. Cells a spreadsheet would run as a formula are escaped as in every export (csv.ts).
 */
export function costRollupToCsv(view: CostRollupView, names: Map<string, { cpn: string | null; name: string }>): string {
  const who = (componentId: string) => [names.get(componentId)?.cpn ?? '', names.get(componentId)?.name ?? componentId];
  const priced = view.lines.map((line) => [
    ...who(line.componentId),
    String(line.extendedQuantity),
    String(line.orderQuantity),
    String(line.priceBreakMinQuantity),
    line.quoteCurrency,
    String(line.quoteUnitPrice),
    view.currency,
    String(line.unitCost),
    String(line.extendedCost),
    '',
    '',
  ]);
  const missing = view.missing.map((line) => [...who(line.componentId), String(line.extendedQuantity), '', '', '', '', view.currency, '', '', line.reason, line.message]);
  const total = ['', `TOTAL for ${view.quantity}${view.isComplete ? '' : ' (incomplete: see the missing lines)'}`, '', '', '', '', '', view.currency, '', String(view.total), '', ''];
  return stringify([[...costRollupCsvColumns], ...escapedRows([...priced, ...missing, total])]);
}

/** Rolls up a component's cost at a build quantity and writes it to the library's file store as CSV (READY). */
export async function exportCostRollup(store: Store, blobs: BlobStorage, scope: LibraryScope, componentId: string, quantity: number, currency: string | null | undefined): Promise<FileRecord> {
  const view = await costRollup(store, scope, componentId, quantity, currency);
  const ids = [view.componentId, ...view.lines.map((line) => line.componentId), ...view.missing.map((line) => line.componentId)];
  const records = await componentsByIds(store, scope, [...new Set(ids)]);
  const names = new Map([...records].map(([id, record]) => [id, { cpn: record.cpn, name: record.name }]));
  const top = names.get(view.componentId);
  const name = `cost-rollup-${top?.cpn ?? view.componentId}-x${view.quantity}-${view.currency}.csv`.replace(/[^A-Za-z0-9._-]/g, '_');
  return storeGeneratedFile(store, blobs, scope, name, 'text/csv', Buffer.from(costRollupToCsv(view, names)));
}
