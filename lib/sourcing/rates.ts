import { ConcurrentWriteError } from '../errors.js';
import type { LibraryRef, LibraryScope } from '../model/scope.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite } from '../store/items.js';
import { exchangeRatesPut, getExchangeRates, type ExchangeRatesRecord } from '../store/sourcing.js';
import { parseInput, ratesInput } from './input.js';

/** A library's exchange rates for cost roll-ups (set with library.settings.update). Default: USD, no rates. */
export const defaultRates = (): ExchangeRatesRecord => ({ baseCurrency: 'USD', rates: {}, version: 0, updatedAt: new Date(0).toISOString(), updatedBy: '' });

export async function exchangeRatesOf(store: Store, ref: LibraryRef): Promise<ExchangeRatesRecord> {
  return (await getExchangeRates(store, ref.organizationId, ref.libraryId)) ?? defaultRates();
}

/** Replaces the library's rates: each rate is the base currency's units one unit of the currency is worth. */
export async function setExchangeRates(store: Store, scope: LibraryScope, raw: unknown): Promise<ExchangeRatesRecord> {
  const input = parseInput(ratesInput, raw);
  const before = await exchangeRatesOf(store, scope);
  const rates: Record<string, number> = {};
  for (const { currency, rate } of input.rates) if (currency !== input.baseCurrency) rates[currency] = rate;
  const after: ExchangeRatesRecord = { baseCurrency: input.baseCurrency, rates, version: before.version + 1, updatedAt: nowIso(), updatedBy: scope.userId };
  await transactWrite(store, [exchangeRatesPut(scope.organizationId, scope.libraryId, after, before.version, () => new ConcurrentWriteError("The library's exchange rates"))]);
  return after;
}
