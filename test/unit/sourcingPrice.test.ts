import { describe, expect, it } from 'vitest';
import { convert, isCurrency, orderQuantity, priceFor } from '../../lib/sourcing/pricing.js';

const breaks = [
  { minQuantity: 1, unitPrice: 0.5 },
  { minQuantity: 100, unitPrice: 0.3 },
  { minQuantity: 1000, unitPrice: null },
];

describe('the price rule of cost roll-ups', () => {
  it('buys at least the need, the MOQ and the smallest break, rounded up to the order multiple', () => {
    expect(orderQuantity(7, { priceBreaks: breaks, moq: null, orderMultiple: null })).toBe(7);
    expect(orderQuantity(7, { priceBreaks: breaks, moq: 50, orderMultiple: null })).toBe(50);
    expect(orderQuantity(51, { priceBreaks: breaks, moq: 50, orderMultiple: 25 })).toBe(75);
    expect(orderQuantity(2.2, { priceBreaks: breaks, moq: null, orderMultiple: null })).toBe(3);
    expect(orderQuantity(3, { priceBreaks: [{ minQuantity: 10, unitPrice: 1 }], moq: null, orderMultiple: 4 })).toBe(12);
  });

  it('takes the largest break not above the order quantity', () => {
    expect(priceFor(99, { priceBreaks: breaks, moq: null, orderMultiple: null })).toEqual({ priced: true, orderQuantity: 99, breakMinQuantity: 1, unitPrice: 0.5, extendedCost: 49.5 });
    // The order multiple lifts 99 to 100, which reaches the next break.
    expect(priceFor(99, { priceBreaks: breaks, moq: null, orderMultiple: 10 })).toEqual({ priced: true, orderQuantity: 100, breakMinQuantity: 100, unitPrice: 0.3, extendedCost: 30 });
  });

  it('never counts a missing price as zero', () => {
    expect(priceFor(5000, { priceBreaks: breaks, moq: null, orderMultiple: null })).toEqual({ priced: false, orderQuantity: 5000, breakMinQuantity: 1000, reason: 'NO_PRICE' });
    expect(priceFor(1, { priceBreaks: [], moq: null, orderMultiple: null })).toMatchObject({ priced: false, reason: 'NO_PRICE' });
  });

  it('converts through the base currency and says when a rate is missing', () => {
    const rates = { baseCurrency: 'USD', rates: { EUR: 1.1, GBP: 1.25 } };
    expect(convert(10, 'EUR', 'USD', rates)).toBeCloseTo(11, 10);
    expect(convert(11, 'USD', 'EUR', rates)).toBeCloseTo(10, 10);
    expect(convert(10, 'EUR', 'GBP', rates)).toBeCloseTo(8.8, 10);
    expect(convert(10, 'JPY', 'USD', rates)).toBeNull();
    expect(isCurrency('EUR')).toBe(true);
    expect(isCurrency('XYZ')).toBe(false);
  });
});
