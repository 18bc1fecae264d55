import { ComponentNotFoundError } from '../errors.js';
import type { LibraryRef } from '../model/scope.js';
import { getBoms, type BomLine } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { getSourcings, readRollupStart } from '../store/sourcing.js';
import { SourcingError } from './errors.js';
import { convert, isCurrency, priceFor, roundAmount } from './pricing.js';
import { defaultRates } from './rates.js';

/**
 * The cost of building `quantity` of a component: its BOM walked down every level (one BatchGetItem of
 * BOMs per level), each purchased component (a component without BOM lines) with its quantity summed over
 * every place it is used (line quantities multiplied down the levels; an unset quantity counts as 1),
 * priced with its primary source's quote (read 100 components per BatchGetItem). Lines that cannot be
 * priced are listed in `missing` with the reason, never counted as zero.
 */

export const maxRollupDepth = 25;
export const maxRollupQuantity = 1_000_000_000;
/**
 * The most units one line may need or order: orderQuantity is a GraphQL Int (32 bits), so a build whose BOM
 * quantities multiply past it is refused (BAD_USER_INPUT on quantity) rather than answered with an error
 * where the number cannot be written.
 */
export const maxRollupLineQuantity = 2_147_483_647;

export type MissingReason = 'NO_SOURCE' | 'NO_PRICE' | 'NO_RATE';

export interface CostLine {
  componentId: string;
  extendedQuantity: number;
  orderQuantity: number;
  partId: string;
  quoteId: string;
  priceBreakMinQuantity: number;
  quoteCurrency: string;
  quoteUnitPrice: number;
  /** The quote's unit price in the roll-up's currency. */
  unitCost: number;
  /** orderQuantity × unitCost. */
  extendedCost: number;
}

export interface MissingLine {
  componentId: string;
  extendedQuantity: number;
  reason: MissingReason;
  message: string;
  partId: string | null;
  quoteId: string | null;
}

export interface CostRollupView {
  componentId: string;
  quantity: number;
  currency: string;
  total: number;
  isComplete: boolean;
  lines: CostLine[];
  missing: MissingLine[];
}

/** Purchased components in first-use order with their summed quantities (the DAG in topological order). */
function extendedQuantities(rootId: string, quantity: number, boms: Map<string, BomLine[]>): Map<string, number> {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string) => {
    if (state.get(id) === 'done') return;
    // Writes refuse cycles; old data that had one is not walked twice.
    if (state.get(id) === 'visiting') return;
    state.set(id, 'visiting');
    for (const line of boms.get(id) ?? []) visit(line.childId);
    state.set(id, 'done');
    order.push(id);
  };
  visit(rootId);
  const totals = new Map<string, number>([[rootId, quantity]]);
  const leaves = new Map<string, number>();
  for (const id of order.reverse()) {
    const own = totals.get(id) ?? 0;
    const lines = boms.get(id) ?? [];
    if (lines.length === 0) {
      leaves.set(id, own);
      continue;
    }
    for (const line of lines) totals.set(line.childId, (totals.get(line.childId) ?? 0) + own * (line.quantity ?? 1));
  }
  // First-use order (depth first in line order), for a stable answer.
  const firstUse: string[] = [];
  const seen = new Set<string>();
  const walk = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    const lines = boms.get(id) ?? [];
    if (lines.length === 0) firstUse.push(id);
    for (const line of lines) walk(line.childId);
  };
  walk(rootId);
  return new Map(firstUse.map((id) => [id, roundAmount(leaves.get(id) ?? 0)]));
}

export async function costRollup(store: Store, ref: LibraryRef, componentId: string, quantity: number, currency: string | null | undefined): Promise<CostRollupView> {
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > maxRollupQuantity) {
    throw new SourcingError('BAD_USER_INPUT', `quantity must be a whole number from 1 to ${maxRollupQuantity}`, { field: 'quantity' });
  }
  const wanted = currency?.trim().toUpperCase();
  if (wanted !== undefined && !isCurrency(wanted)) throw new SourcingError('UNKNOWN_CURRENCY', `currency: ${currency} is not an ISO 4217 currency code`, { field: 'currency' });
  const { organizationId: org, libraryId: lib } = ref;
  const start = await readRollupStart(store, org, lib, componentId);
  if (!start.component) throw new ComponentNotFoundError(componentId);
  const rates = start.rates ?? defaultRates();
  const target = wanted ?? rates.baseCurrency;

  const boms = new Map<string, BomLine[]>([[componentId, start.bom?.lines ?? []]]);
  let frontier = [...new Set((start.bom?.lines ?? []).map((l) => l.childId))].filter((id) => !boms.has(id));
  for (let level = 1; frontier.length > 0; level += 1) {
    if (level > maxRollupDepth) throw new SourcingError('BOM_TOO_DEEP', `The BOM of ${componentId} is deeper than ${maxRollupDepth} levels`, { field: 'id' });
    const loaded = await getBoms(store, org, lib, frontier);
    for (const id of frontier) boms.set(id, loaded.get(id)?.lines ?? []);
    frontier = [...new Set(frontier.flatMap((id) => boms.get(id)!.map((l) => l.childId)))].filter((id) => !boms.has(id));
  }

  const needs = extendedQuantities(componentId, quantity, boms);
  const tooMany = (id: string, units: number) =>
    new SourcingError(
      'BAD_USER_INPUT',
      `quantity: building ${quantity} of ${componentId} needs ${units} units of component ${id}, more than the ${maxRollupLineQuantity} a roll-up line can count; roll up a smaller quantity`,
      { field: 'quantity', componentId: id, limit: maxRollupLineQuantity },
    );
  for (const [id, extendedQuantity] of needs) {
    if (!Number.isFinite(extendedQuantity) || extendedQuantity > maxRollupLineQuantity) throw tooMany(id, extendedQuantity);
  }
  const sourcing = await getSourcings(store, org, lib, [...needs.keys()]);
  const lines: CostLine[] = [];
  const missing: MissingLine[] = [];
  for (const [id, extendedQuantity] of needs) {
    const s = sourcing.get(id);
    const part = s?.parts.find((p) => p.id === s.primaryPartId);
    const quote = part?.quotes.find((q) => q.id === s?.primaryQuoteId);
    const miss = (reason: MissingReason, message: string) => missing.push({ componentId: id, extendedQuantity, reason, message, partId: part?.id ?? null, quoteId: quote?.id ?? null });
    if (!part) {
      miss('NO_SOURCE', 'no primary source');
      continue;
    }
    if (!quote) {
      miss('NO_SOURCE', 'the primary part has no primary quote');
      continue;
    }
    const price = priceFor(extendedQuantity, quote);
    if (!price.priced) {
      miss('NO_PRICE', `the primary quote names no price for ${price.orderQuantity}`);
      continue;
    }
    if (price.orderQuantity > maxRollupLineQuantity) throw tooMany(id, price.orderQuantity);
    const unitCost = convert(price.unitPrice, quote.currency, target, rates);
    if (unitCost === null) {
      miss('NO_RATE', `no exchange rate between ${quote.currency} and ${target}`);
      continue;
    }
    lines.push({
      componentId: id,
      extendedQuantity,
      orderQuantity: price.orderQuantity,
      partId: part.id,
      quoteId: quote.id,
      priceBreakMinQuantity: price.breakMinQuantity,
      quoteCurrency: quote.currency,
      quoteUnitPrice: price.unitPrice,
      unitCost: roundAmount(unitCost),
      extendedCost: roundAmount(price.orderQuantity * unitCost),
    });
  }
  const total = roundAmount(lines.reduce((sum, line) => sum + line.extendedCost, 0));
  return { componentId, quantity, currency: target, total, isComplete: missing.length === 0, lines, missing };
}
