import * as z from 'zod';
import { storableNumberProblem } from '../numbers.js';
import { normalizeMpn } from '../store/component.js';
import { approvals, lifecycles, maxVendorNameKeyBytes, normalizeVendorName, vendorKinds, vendorNameFits } from '../store/sourcing.js';
import { SourcingError } from './errors.js';
import { isCurrency } from './pricing.js';

/**
 * The edge of sourcing writes: GraphQL inputs parsed with zod into commands. A refusal names the field and
 * carries the code of its rule (INVALID_PRICE, UNKNOWN_CURRENCY, else BAD_USER_INPUT); nothing is written.
 */

export const limits = { partsPerComponent: 20, quotesPerPart: 10, priceBreaksPerQuote: 20, aliases: 20, text: 255, description: 2_000, url: 2_000 };

const text = (max = limits.text) => z.string().trim().min(1).max(max);
const optionalText = (max = limits.text) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v === undefined ? undefined : v === null || v === '' ? null : v));
const url = z
  .string()
  .trim()
  .max(limits.url)
  .url()
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http(s) URL')
  .nullish();
/**
 * The most bytes (UTF-8) of an MPN's search form (normalizeMpn: no spaces, upper case), the sort key of its MPN
 * index entry (`MPN#<mpn>#<componentId>`, at most 1,024 bytes in DynamoDB). Every 255-character MPN of the
 * Basic Multilingual Plane fits (3 bytes a character); a few letters grow when upper-cased (ΐ becomes three
 * characters), so 255 of them would not.
 */
export const maxMpnKeyBytes = 765;

/** Why an MPN cannot be kept (createPart, updatePart and a library import share it), or null. */
export function mpnProblem(mpn: string): string | null {
  if (mpn.trim() === '' || mpn.length > limits.text) return `an MPN is 1 to ${limits.text} characters`;
  if (Buffer.byteLength(normalizeMpn(mpn), 'utf8') > maxMpnKeyBytes) return `an MPN's search form (no spaces, upper case) is at most ${maxMpnKeyBytes} bytes of UTF-8`;
  return null;
}
const mpn = text().superRefine((v, ctx) => {
  const problem = mpnProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const count = (min: number) => z.number().int().min(min).max(1_000_000_000);
const price = z
  .number({ error: 'INVALID_PRICE: must be a number' })
  .refine((v) => storableNumberProblem(v) === null && v >= 0 && v <= 1e9, 'INVALID_PRICE: a unit price is a finite number from 0 to 1,000,000,000');
const currency = z
  .string()
  .trim()
  .transform((v) => v.toUpperCase())
  .refine(isCurrency, 'UNKNOWN_CURRENCY: not an ISO 4217 currency code');

const vendorName = text().superRefine((v, ctx) => {
  const problem = vendorNameProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const vendorInput = z.object({
  kind: z.enum(vendorKinds),
  name: vendorName,
  website: url,
  aliases: z.array(vendorName).max(limits.aliases).nullish(),
});
export const vendorUpdate = z.object({ id: z.string(), name: vendorName.optional(), website: url, aliases: z.array(vendorName).max(limits.aliases).nullish() });

/**
 * An update's explicit null is never ignored: it clears what may be empty and is refused (naming the field)
 * for what the record always has: a part's MPN, lifecycle, approval, legacy flag and manufacturer, a quote's
 * currency, legacy flag and distributor, a vendor's name.
 */
const vendorNotNull = (idField: string, nameField: string) => (input: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const field of [idField, nameField]) {
    if (input[field] === null && input[idField] == null && input[nameField] == null) {
      ctx.addIssue({ code: 'custom', path: [field], message: 'cannot be null: give the other vendor field, or omit both to keep the vendor' });
    }
  }
};

const partFields = {
  manufacturerId: z.string().nullish(),
  manufacturerName: text().nullish(),
  mpn,
  description: optionalText(limits.description),
  datasheetUrl: url,
  lifecycle: z.enum(lifecycles).nullish(),
  approval: z.enum(approvals).nullish(),
  rank: count(0).nullish(),
  isLegacyImport: z.boolean().nullish(),
};
export const partInput = z.object({ componentId: z.string(), ...partFields });
export const partUpdate = z
  .object({
    componentId: z.string(),
    id: z.string(),
    ...partFields,
    mpn: mpn.optional(),
    lifecycle: z.enum(lifecycles).optional(),
    approval: z.enum(approvals).optional(),
    isLegacyImport: z.boolean().optional(),
  })
  .superRefine(vendorNotNull('manufacturerId', 'manufacturerName'));

const priceBreak = z.object({ minQuantity: count(1), unitPrice: price.nullable() });
const quoteFields = {
  distributorId: z.string().nullish(),
  distributorName: text().nullish(),
  distributorPartNumber: optionalText(),
  currency,
  unitPrice: price.nullish(),
  priceBreaks: z.array(priceBreak).max(limits.priceBreaksPerQuote).nullish(),
  moq: count(1).nullish(),
  orderMultiple: count(1).nullish(),
  leadTimeDays: count(0).nullish(),
  stock: count(0).nullish(),
  validUntil: z.iso.date().or(z.iso.datetime()).nullish(),
  isLegacyImport: z.boolean().nullish(),
};
export const quoteInput = z.object({ componentId: z.string(), partId: z.string(), ...quoteFields });
export const quoteUpdate = z
  .object({ componentId: z.string(), id: z.string(), ...quoteFields, currency: currency.optional(), isLegacyImport: z.boolean().optional() })
  .superRefine(vendorNotNull('distributorId', 'distributorName'));

const rateRule = 'a rate is a positive finite number from 1e-130 to 1,000,000,000';

/** Why an exchange rate cannot be kept (setExchangeRates and a library import share it), or null. */
export function rateProblem(rate: number): string | null {
  return storableNumberProblem(rate) === null && rate > 0 && rate <= 1e9 ? null : rateRule;
}

export const ratesInput = z
  .object({
    baseCurrency: currency,
    rates: z
      .array(
        z.object({
          currency,
          // The stored number rule too: a rate DynamoDB cannot keep (below 1e-130) is refused here, not by the write.
          rate: z.number().refine((v) => rateProblem(v) === null, rateRule),
        }),
      )
      .max(200),
  })
  .superRefine((input, ctx) => {
    // Every rate given is kept or refused: a second rate for a currency, or one for the base (always 1), is not dropped.
    const seen = new Set<string>();
    input.rates.forEach(({ currency: code }, index) => {
      if (code === input.baseCurrency) ctx.addIssue({ code: 'custom', path: ['rates', index, 'currency'], message: `${code} is the base currency (its rate is 1)` });
      else if (seen.has(code)) ctx.addIssue({ code: 'custom', path: ['rates', index, 'currency'], message: `${code} has a rate already in this list` });
      seen.add(code);
    });
  });

/**
 * The API's field rules on a stored row an import brings (the fields its own checks do not cover): a part's
 * description and datasheet URL (http(s) only) and rank, a quote's distributor part number, quantities (at
 * most 1,000,000,000: they are GraphQL Ints) and validUntil, a vendor's website. An import wrote what
 * createPart, createQuote and createVendor refuse.
 */
const storedRows = {
  part: z.object({ description: optionalText(limits.description), datasheetUrl: url, rank: count(0).nullish() }),
  quote: z.object({
    distributorPartNumber: optionalText(),
    moq: count(1).nullish(),
    orderMultiple: count(1).nullish(),
    leadTimeDays: count(0).nullish(),
    stock: count(0).nullish(),
    validUntil: quoteFields.validUntil,
  }),
  vendor: z.object({ website: url }),
};

/** Each field of a stored row that breaks the API's rule, with the rule's message. */
export function storedRowProblems(kind: keyof typeof storedRows, row: unknown): { field: string; message: string }[] {
  const result = storedRows[kind].safeParse(row);
  return result.success ? [] : result.error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }));
}

/** Parses an input; the first problem becomes the refusal. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.');
  const coded = /^(INVALID_PRICE|UNKNOWN_CURRENCY): (.*)$/.exec(issue.message);
  if (coded) throw new SourcingError(coded[1]!, `${field}: ${coded[2]}`, { field });
  throw new SourcingError('BAD_USER_INPUT', `${field || 'input'}: ${issue.message}`, { field });
}

/** The price breaks of a quote input: the list, or unitPrice as one break at the MOQ (or 1); sorted, distinct. */
export function breaksOf(input: { unitPrice?: number | null | undefined; priceBreaks?: { minQuantity: number; unitPrice: number | null }[] | null | undefined; moq?: number | null | undefined }) {
  if (input.priceBreaks && input.unitPrice !== undefined && input.unitPrice !== null) {
    throw new SourcingError('BAD_USER_INPUT', 'give unitPrice or priceBreaks, not both', { field: 'unitPrice' });
  }
  const breaks = input.priceBreaks ?? (input.unitPrice === undefined ? [] : [{ minQuantity: input.moq ?? 1, unitPrice: input.unitPrice }]);
  const sorted = [...breaks].sort((a, b) => a.minQuantity - b.minQuantity);
  sorted.forEach((b, i) => {
    if (i > 0 && sorted[i - 1]!.minQuantity === b.minQuantity) throw new SourcingError('BAD_USER_INPUT', `priceBreaks: minQuantity ${b.minQuantity} appears twice`, { field: 'priceBreaks' });
  });
  return sorted;
}

/** The compared form of a vendor name (the key of its name claim): NFKC, whitespace collapsed, lower case. */
export const normalizeName = normalizeVendorName;

/** Why a vendor name or alias cannot be claimed (createVendor, updateVendor and a library import share it), or null. */
export function vendorNameProblem(name: string): string | null {
  return vendorNameFits(normalizeVendorName(name)) ? null : `a name's compared form (NFKC, lower case) is at most ${maxVendorNameKeyBytes} bytes of UTF-8`;
}
