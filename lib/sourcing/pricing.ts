/**
 * The price rule of the cost roll-up (pure): what is bought for a needed quantity, at which price break,
 * and the conversion between currencies with a library's exchange rates.
 */

export interface PriceBreak {
  minQuantity: number;
  /** Null: the quote names no price at this break (never counted as zero). */
  unitPrice: number | null;
}

export interface QuoteTerms {
  priceBreaks: readonly PriceBreak[];
  moq: number | null;
  orderMultiple: number | null;
}

export type PriceOutcome =
  | { priced: true; orderQuantity: number; breakMinQuantity: number; unitPrice: number; extendedCost: number }
  | { priced: false; orderQuantity: number; breakMinQuantity: number | null; reason: 'NO_PRICE' };

/** Amounts are rounded to 6 decimals (a millionth of a currency unit) so sums do not carry float noise. */
export const roundAmount = (value: number) => Math.round(value * 1e6) / 1e6;

/**
 * The quantity bought for `needed` units: at least the need (whole units: a fractional need rounds up), at
 * least the MOQ and the smallest price break, then rounded up to the order multiple.
 */
export function orderQuantity(needed: number, terms: QuoteTerms): number {
  const smallestBreak = terms.priceBreaks.length ? Math.min(...terms.priceBreaks.map((b) => b.minQuantity)) : 1;
  const atLeast = Math.max(Math.ceil(needed - 1e-9), terms.moq ?? 1, smallestBreak, 1);
  const multiple = terms.orderMultiple ?? 1;
  return Math.ceil(atLeast / multiple) * multiple;
}

/**
 * The price of `needed` units under a quote: the order quantity, the price break it reaches (the largest
 * minQuantity not above it) and its unit price; extendedCost = orderQuantity × unitPrice (what is paid).
 * A break without a price gives NO_PRICE, not zero.
 */
export function priceFor(needed: number, terms: QuoteTerms): PriceOutcome {
  const quantity = orderQuantity(needed, terms);
  const reached = [...terms.priceBreaks].filter((b) => b.minQuantity <= quantity).sort((a, b) => b.minQuantity - a.minQuantity)[0];
  if (!reached || reached.unitPrice === null) return { priced: false, orderQuantity: quantity, breakMinQuantity: reached?.minQuantity ?? null, reason: 'NO_PRICE' };
  return { priced: true, orderQuantity: quantity, breakMinQuantity: reached.minQuantity, unitPrice: reached.unitPrice, extendedCost: roundAmount(quantity * reached.unitPrice) };
}

export interface ExchangeRates {
  baseCurrency: string;
  /** Units of the base currency one unit of each currency is worth (the base itself is 1). */
  rates: Readonly<Record<string, number>>;
}

/** `amount` of `from` in `to`, or null when a rate is missing. */
export function convert(amount: number, from: string, to: string, rates: ExchangeRates): number | null {
  if (from === to) return amount;
  const rateOf = (currency: string) => (currency === rates.baseCurrency ? 1 : rates.rates[currency]);
  const fromRate = rateOf(from);
  const toRate = rateOf(to);
  if (fromRate === undefined || toRate === undefined) return null;
  return (amount * fromRate) / toRate;
}

const knownCurrencies = new Set(Intl.supportedValuesOf('currency'));

/** ISO 4217 codes as the runtime knows them (Intl.supportedValuesOf('currency')). */
export function isCurrency(code: string): boolean {
  return knownCurrencies.has(code);
}
