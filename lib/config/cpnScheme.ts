import * as z from 'zod';

/**
 * A library's CPN (component part number) scheme: a sequence of elements joined by a delimiter, as the
 * commercial PLMs publish it. Elements are constants, the category's prefix, a value chosen from a list,
 * auto-incremented counters, and groups of those rendered inline.
 */
export interface CpnScheme {
  delimiter: string;
  elements: CpnElement[];
  settings: CpnSettings;
}

export interface CpnSettings {
  /** Callers may supply a counter's value instead of having it allocated. */
  allow_override: boolean;
  /** Callers may give a CPN that does not follow the elements at all. */
  allow_freeform: boolean;
  /** Whether CPNs that differ only in letter case are different CPNs. */
  case_sensitive: boolean;
}

export type CpnElement =
  | { type: 'CONSTANT'; name: string; value: string }
  | { type: 'CATEGORY_PREFIX'; name: string }
  | { type: 'LIST'; name: string; options: { value: string; label: string }[] }
  | { type: 'COUNTER'; name: string; base: 10 | 16; digits: number; min: number; max: number; scope: 'LIBRARY' | 'PREFIX' }
  | { type: 'GROUP'; name: string; elements: CpnElement[] };

export type CpnCounterElement = Extract<CpnElement, { type: 'COUNTER' }>;
/** An element that renders text itself (every element but GROUP). */
export type CpnLeafElement = Exclude<CpnElement, { type: 'GROUP' }>;

const elementName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'must be 1 to 64 letters, digits, hyphens or underscores, starting with a letter');
const elementText = z.string().regex(/^[A-Za-z0-9._/-]{1,32}$/, 'must be 1 to 32 letters, digits or . _ / -');

const leafElement = z.discriminatedUnion('type', [
  z.object({ type: z.literal('CONSTANT'), name: elementName, value: elementText }).strict(),
  z.object({ type: z.literal('CATEGORY_PREFIX'), name: elementName }).strict(),
  z
    .object({
      type: z.literal('LIST'),
      name: elementName,
      options: z
        .array(z.object({ value: elementText, label: z.string().trim().min(1).max(100) }).strict())
        .min(1)
        .max(500),
    })
    .strict(),
  z
    .object({
      type: z.literal('COUNTER'),
      name: elementName,
      base: z.union([z.literal(10), z.literal(16)]).default(10),
      digits: z.number().int().min(1).max(12).default(5),
      min: z.number().int().min(0).default(1),
      /** Defaults to the largest value that fits in `digits` digits of `base`. */
      max: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      scope: z.enum(['LIBRARY', 'PREFIX']).default('PREFIX'),
    })
    .strict()
    .transform((counter) => ({ ...counter, max: counter.max ?? counter.base ** counter.digits - 1 })),
]);

const cpnElement = z.union([leafElement, z.object({ type: z.literal('GROUP'), name: elementName, elements: z.array(leafElement).min(1).max(8) }).strict()]);

const cpnSchemeObject = z
  .object({
    delimiter: z.enum(['', '-', '.', '_', '/']).default('-'),
    elements: z.array(cpnElement).min(1).max(8),
    settings: z
      .object({
        allow_override: z.boolean().default(true),
        allow_freeform: z.boolean().default(false),
        case_sensitive: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((scheme, ctx) => {
    const names = new Set<string>();
    const check = (element: CpnElement, path: (string | number)[]) => {
      if (names.has(element.name)) ctx.addIssue({ code: 'custom', path: [...path, 'name'], message: `duplicate element name "${element.name}"` });
      names.add(element.name);
      const containsDelimiter = (text: string) => scheme.delimiter !== '' && text.includes(scheme.delimiter);
      if (element.type === 'CONSTANT' && containsDelimiter(element.value)) {
        ctx.addIssue({ code: 'custom', path: [...path, 'value'], message: `must not contain the delimiter "${scheme.delimiter}"` });
      }
      if (element.type === 'LIST') {
        const values = new Set<string>();
        element.options.forEach((option, index) => {
          const key = normalizeCpn(scheme, option.value);
          if (values.has(key)) ctx.addIssue({ code: 'custom', path: [...path, 'options', index, 'value'], message: `duplicate option "${option.value}"` });
          values.add(key);
          if (containsDelimiter(option.value)) ctx.addIssue({ code: 'custom', path: [...path, 'options', index, 'value'], message: `must not contain the delimiter "${scheme.delimiter}"` });
        });
      }
      if (element.type === 'COUNTER') {
        if (element.min > element.max) ctx.addIssue({ code: 'custom', path: [...path, 'min'], message: `min (${element.min}) must not exceed max (${element.max})` });
        if (element.max.toString(element.base).length > element.digits) {
          ctx.addIssue({ code: 'custom', path: [...path, 'max'], message: `max (${element.max}) does not fit in ${element.digits} ${baseName(element)} digits` });
        }
      }
      if (element.type === 'GROUP') element.elements.forEach((inner, index) => check(inner, [...path, 'elements', index]));
    };
    scheme.elements.forEach((element, index) => check(element, ['elements', index]));
  });

/** The CPN scheme document of a library; parse with `.safeParse`, defaults are filled. */
export const cpnSchemeDocument: z.ZodType<CpnScheme, z.input<typeof cpnSchemeObject>> = cpnSchemeObject;

/** `<3-digit category prefix>-<5-digit counter>`, one counter sequence per prefix. */
export const defaultCpnScheme: CpnScheme = {
  delimiter: '-',
  elements: [
    { type: 'CATEGORY_PREFIX', name: 'category' },
    { type: 'COUNTER', name: 'counter', base: 10, digits: 5, min: 1, max: 99999, scope: 'PREFIX' },
  ],
  settings: { allow_override: true, allow_freeform: false, case_sensitive: false },
};

export interface CpnInput {
  /** The category's 3-digit prefix, when the component's category is known. */
  categoryPrefix?: string;
  /** Element name -> value chosen by the caller (LIST values, counters when allow_override, whole GROUPs). */
  overrides: Record<string, string>;
  /** Counter element name -> value already allocated. */
  counters?: Record<string, number>;
}

export interface CpnRender {
  /** The CPN, with a run of X for every element that is not resolved. */
  displayValue: string;
  /** True only when no X placeholder was rendered. */
  isDeterministic: boolean;
  errors: { element: string; message: string }[];
  /**
   * Counters left unresolved whose sequence is known: scopeKey "LIBRARY", or "PREFIX:<normalized text
   * before the counter>" when everything before it is resolved. Allocate, then render again.
   */
  counterRequests: { element: string; scopeKey: string }[];
}

function baseName(counter: CpnCounterElement): string {
  return counter.base === 16 ? 'hexadecimal' : 'decimal';
}

/** Every element by name, including the elements inside groups. */
export function elementsByName(scheme: CpnScheme): Map<string, CpnElement> {
  const byName = new Map<string, CpnElement>();
  const visit = (elements: CpnElement[]) => {
    for (const element of elements) {
      byName.set(element.name, element);
      if (element.type === 'GROUP') visit(element.elements);
    }
  };
  visit(scheme.elements);
  return byName;
}

function leavesOf(elements: CpnElement[]): CpnLeafElement[] {
  return elements.flatMap((element) => (element.type === 'GROUP' ? leavesOf(element.elements) : [element]));
}

/** The counter's value as it appears in a CPN: zero-padded to `digits`, hexadecimal in uppercase. */
export function formatCounter(element: CpnCounterElement, value: number): string {
  return value.toString(element.base).toUpperCase().padStart(element.digits, '0');
}

/** For uniqueness: CPNs compare in uppercase unless the scheme is case-sensitive. */
export function normalizeCpn(scheme: CpnScheme, value: string): string {
  return scheme.settings.case_sensitive ? value : value.toUpperCase();
}

function placeholderWidth(element: CpnLeafElement): number {
  switch (element.type) {
    case 'CONSTANT':
      return element.value.length;
    case 'CATEGORY_PREFIX':
      return 3;
    case 'LIST':
      return Math.max(...element.options.map((option) => option.value.length));
    case 'COUNTER':
      return element.max.toString(element.base).length;
  }
}

function counterValueProblem(element: CpnCounterElement, text: string): string | null {
  const digitsPattern = element.base === 16 ? /^[0-9A-Fa-f]+$/ : /^[0-9]+$/;
  const value = Number.parseInt(text, element.base);
  if (digitsPattern.test(text) && text.length === element.digits && value >= element.min && value <= element.max) return null;
  return `"${text}" is not a value of counter ${element.name}: expected ${element.digits} ${baseName(element)} digits from ${formatCounter(element, element.min)} to ${formatCounter(element, element.max)}`;
}

function listOption(scheme: CpnScheme, element: Extract<CpnElement, { type: 'LIST' }>, text: string): string | undefined {
  const key = normalizeCpn(scheme, text);
  return element.options.find((option) => normalizeCpn(scheme, option.value) === key)?.value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function leafPattern(scheme: CpnScheme, element: CpnLeafElement): string {
  switch (element.type) {
    case 'CONSTANT':
      return escapeRegExp(element.value);
    case 'CATEGORY_PREFIX':
      return '[0-9]{3}';
    case 'LIST':
      return [...element.options]
        .map((option) => option.value)
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|');
    case 'COUNTER':
      return `${element.base === 16 ? (scheme.settings.case_sensitive ? '[0-9A-F]' : '[0-9A-Fa-f]') : '[0-9]'}{${element.digits}}`;
  }
}

/** Splits `value` into the values of `leaves` (canonical spelling), or null when it does not fit them. */
function matchLeaves(scheme: CpnScheme, leaves: CpnLeafElement[], value: string): Map<string, string> | null {
  const pattern = leaves.map((leaf) => `(${leafPattern(scheme, leaf)})`).join(escapeRegExp(scheme.delimiter));
  const match = new RegExp(`^${pattern}$`, scheme.settings.case_sensitive ? 'u' : 'iu').exec(value);
  if (!match) return null;
  const values = new Map<string, string>();
  for (const [index, leaf] of leaves.entries()) {
    const text = match[index + 1] ?? '';
    if (leaf.type === 'CONSTANT') values.set(leaf.name, leaf.value);
    if (leaf.type === 'CATEGORY_PREFIX') values.set(leaf.name, text);
    if (leaf.type === 'LIST') values.set(leaf.name, listOption(scheme, leaf, text) ?? text);
    if (leaf.type === 'COUNTER') {
      if (counterValueProblem(leaf, text)) return null;
      values.set(leaf.name, text.toUpperCase());
    }
  }
  return values;
}

/**
 * Best-effort split of a rendered CPN into element values: every element by name, groups as their
 * rendered text. Null when the CPN does not follow the scheme.
 */
export function parseCpn(scheme: CpnScheme, value: string): Record<string, string> | null {
  const values = matchLeaves(scheme, leavesOf(scheme.elements), value);
  if (!values) return null;
  const result: Record<string, string> = {};
  for (const element of elementsByName(scheme).values()) {
    result[element.name] =
      element.type === 'GROUP'
        ? leavesOf(element.elements)
            .map((leaf) => values.get(leaf.name) ?? '')
            .join(scheme.delimiter)
        : (values.get(element.name) ?? '');
  }
  return result;
}

type RenderError = CpnRender['errors'][number];

/** Element names such as "constructor" must not find what a plain object inherits. */
function ownValue<T>(record: Record<string, T> | undefined, name: string): T | undefined {
  return record && Object.hasOwn(record, name) ? record[name] : undefined;
}

/** Turns group overrides into overrides of their elements; an explicit element override must agree. */
function expandGroupOverrides(scheme: CpnScheme, overrides: Record<string, string>, errors: RenderError[]): Map<string, string> {
  const expanded = new Map(Object.entries(overrides));
  for (const element of elementsByName(scheme).values()) {
    const text = ownValue(overrides, element.name);
    if (element.type !== 'GROUP' || text === undefined) continue;
    expanded.delete(element.name);
    const leaves = leavesOf(element.elements);
    const values = matchLeaves(scheme, leaves, text);
    if (!values) {
      const shape = renderLeaves(scheme, leaves, { overrides: {} }, []).texts.join(scheme.delimiter);
      errors.push({ element: element.name, message: `"${text}" does not fit group ${element.name} (${shape})` });
      continue;
    }
    for (const [name, value] of values) {
      const explicit = expanded.get(name);
      if (explicit !== undefined && normalizeCpn(scheme, explicit) !== normalizeCpn(scheme, value)) {
        errors.push({ element: name, message: `"${explicit}" contradicts group ${element.name} ("${text}" gives "${value}")` });
      }
      if (explicit === undefined) expanded.set(name, value);
    }
  }
  return expanded;
}

/** The text of one element from the input, or null when it stays unresolved; problems go to `errors`. */
function resolveLeaf(scheme: CpnScheme, element: CpnLeafElement, input: CpnInput, override: string | undefined, errors: RenderError[]): string | null {
  const fail = (message: string) => {
    errors.push({ element: element.name, message });
    return null;
  };
  switch (element.type) {
    case 'CONSTANT':
      if (override !== undefined && normalizeCpn(scheme, override) !== normalizeCpn(scheme, element.value)) {
        errors.push({ element: element.name, message: `${element.name} is the constant "${element.value}" and cannot be overridden` });
      }
      return element.value;
    case 'CATEGORY_PREFIX':
      if (override === undefined) return input.categoryPrefix ?? null;
      if (input.categoryPrefix !== undefined && override !== input.categoryPrefix) {
        return fail(`${element.name} comes from the component's category (${input.categoryPrefix}) and cannot be set to "${override}"`);
      }
      return /^[0-9]{3}$/.test(override) ? override : fail(`"${override}" is not a category prefix: expected three digits`);
    case 'LIST': {
      if (override === undefined) return null;
      const option = listOption(scheme, element, override);
      const shown = element.options.slice(0, 20).map((o) => o.value);
      return option ?? fail(`"${override}" is not an option of ${element.name}; options: ${shown.join(', ')}${element.options.length > shown.length ? ', ...' : ''}`);
    }
    case 'COUNTER': {
      if (override !== undefined) {
        if (!scheme.settings.allow_override) return fail(`${element.name} is allocated automatically; this library does not allow overriding it`);
        const problem = counterValueProblem(element, override);
        return problem ? fail(problem) : override.toUpperCase();
      }
      const allocated = ownValue(input.counters, element.name);
      if (allocated === undefined) return null;
      if (Number.isInteger(allocated) && allocated >= element.min && allocated <= element.max) return formatCounter(element, allocated);
      return fail(`allocated value ${allocated} of counter ${element.name} is outside ${element.min}..${element.max}`);
    }
  }
}

function renderLeaves(scheme: CpnScheme, leaves: CpnLeafElement[], input: CpnInput, errors: RenderError[], overrides = new Map<string, string>()) {
  const texts: string[] = [];
  const counterRequests: CpnRender['counterRequests'] = [];
  let resolvedSoFar = true;
  for (const leaf of leaves) {
    const text = resolveLeaf(scheme, leaf, input, overrides.get(leaf.name), errors);
    if (text === null && leaf.type === 'COUNTER' && !overrides.has(leaf.name) && ownValue(input.counters, leaf.name) === undefined) {
      if (leaf.scope === 'LIBRARY') counterRequests.push({ element: leaf.name, scopeKey: 'LIBRARY' });
      else if (resolvedSoFar) counterRequests.push({ element: leaf.name, scopeKey: `PREFIX:${normalizeCpn(scheme, texts.map((t) => t + scheme.delimiter).join(''))}` });
    }
    resolvedSoFar &&= text !== null;
    texts.push(text ?? 'X'.repeat(placeholderWidth(leaf)));
  }
  return { texts, counterRequests, isDeterministic: resolvedSoFar };
}

/**
 * Renders the CPN of a component from the scheme and what the caller and the service know. Unresolved
 * elements show as X runs; counters that can be allocated are listed in counterRequests.
 */
export function renderCpn(scheme: CpnScheme, input: CpnInput): CpnRender {
  const errors: RenderError[] = [];
  const known = elementsByName(scheme);
  const overrides = expandGroupOverrides(scheme, input.overrides, errors);
  const rendered = renderLeaves(scheme, leavesOf(scheme.elements), input, errors, overrides);
  for (const name of Object.keys(input.overrides)) {
    if (!known.has(name)) errors.push({ element: name, message: `unknown CPN element "${name}"; elements: ${[...known.keys()].join(', ')}` });
  }
  return { displayValue: rendered.texts.join(scheme.delimiter), isDeterministic: rendered.isDeterministic, errors, counterRequests: rendered.counterRequests };
}

/** Null when `value` may be used as a free-form CPN, else why not. */
export function validateFreeformCpn(scheme: CpnScheme, value: string): string | null {
  if (!scheme.settings.allow_freeform) {
    return `this library does not allow free-form CPNs; CPNs follow the scheme ${renderCpn(scheme, { overrides: {} }).displayValue}`;
  }
  if (value.length < 1 || value.length > 64) return `a CPN must be 1 to 64 characters long (got ${value.length})`;
  if (/\p{Cc}/u.test(value)) return 'a CPN must not contain control characters';
  if (value.trim() !== value) return 'a CPN must not start or end with whitespace';
  return null;
}
