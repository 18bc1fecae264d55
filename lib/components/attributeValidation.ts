import type { AttributeDefinition, CategoryDefinition } from '../config/categories.js';
import { compilePattern } from '../config/patterns.js';
import { storableNumberProblem } from '../numbers.js';

/**
 * What one component may hold whatever its category says, so that it and its history record (which holds a
 * changed value twice) stay well inside DynamoDB's 400 KB item: a STRING value at most 10,000 characters (an
 * attribute's own max may be lower), all values together at most 100,000 bytes of JSON.
 */
export const attributeValueLimits = { stringLength: 10_000, totalBytes: 100_000 } as const;

export interface AttributeError {
  attributeId: string;
  message: string;
}

/** Absent, null and "" all mean "no value". */
function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** A value as a message shows it: JSON for scalars (long strings cut), a word for lists and objects. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'string' && value.length > 60) return `${JSON.stringify(value.slice(0, 57))}...`;
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
}

function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return daysInMonth !== undefined && day >= 1 && day <= daysInMonth;
}

/** Why the value has the wrong type for the attribute, or null. */
function typeProblem(attribute: AttributeDefinition, value: unknown): string | null {
  const got = `got ${shown(value)}`;
  switch (attribute.valueType) {
    case 'STRING':
      return typeof value === 'string' ? null : `must be text, ${got}`;
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? storableNumberProblem(value) : `must be a number, ${got}`;
    case 'INTEGER':
      return Number.isInteger(value) ? storableNumberProblem(value as number) : `must be a whole number, ${got}`;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? null : `must be true or false, ${got}`;
    case 'DATE':
      return typeof value === 'string' && isCalendarDate(value) ? null : `must be a date written YYYY-MM-DD, ${got}`;
    case 'ENUM':
      return typeof value === 'string' && attribute.options?.includes(value) ? null : `must be one of ${(attribute.options ?? []).join(', ')}, ${got}`;
  }
}

/** Why a value of the right type breaks the attribute's bounds or pattern; empty when it does not. */
function limitProblems(attribute: AttributeDefinition, value: unknown): string[] {
  const problems: string[] = [];
  const { min, max, pattern } = attribute;
  if (typeof value === 'number') {
    if (min !== null && value < min) problems.push(`must be at least ${min} (got ${value})`);
    if (max !== null && value > max) problems.push(`must be at most ${max} (got ${value})`);
  }
  if (attribute.valueType === 'STRING' && typeof value === 'string') {
    const length = [...value].length;
    const longest = Math.min(max ?? attributeValueLimits.stringLength, attributeValueLimits.stringLength);
    if (min !== null && length < min) problems.push(`must be at least ${min} characters long (got ${length})`);
    if (length > longest) problems.push(`must be at most ${longest} characters long (got ${length})`);
    if (pattern !== null) problems.push(...patternProblems(pattern, value));
  }
  return problems;
}

/** The whole value must match; RE2 (config/patterns.ts), linear in the value whatever the pattern. */
function patternProblems(pattern: string, value: string): string[] {
  const expression = compilePattern(pattern);
  // The categories document refuses invalid patterns; a stored one that no longer compiles must not pass.
  if (!expression) return [`cannot be checked: the category's pattern ${pattern} is not a valid regular expression`];
  return expression.matchesWhole(value) ? [] : [`must match the pattern ${pattern} (got ${shown(value)})`];
}

function attributeProblems(attribute: AttributeDefinition, value: unknown, kept: boolean): string[] {
  if (isBlank(value)) return attribute.required && !attribute.archived ? ['is required'] : [];
  if (attribute.archived) return kept ? [] : ['is archived and can no longer be set'];
  const wrongType = typeProblem(attribute, value);
  return wrongType ? [wrongType] : limitProblems(attribute, value);
}

/** The values together past attributeValueLimits.totalBytes: one error, on the largest value. */
function totalSizeProblems(values: Record<string, unknown>): AttributeError[] {
  const sizes = Object.entries(values)
    .filter(([, value]) => !isBlank(value))
    .map(([attributeId, value]) => ({ attributeId, bytes: Buffer.byteLength(JSON.stringify(value)) + Buffer.byteLength(attributeId) }));
  const total = sizes.reduce((sum, size) => sum + size.bytes, 0);
  if (total <= attributeValueLimits.totalBytes) return [];
  const largest = sizes.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  return [
    {
      attributeId: largest.attributeId,
      message: `the attribute values of a component take at most ${attributeValueLimits.totalBytes} bytes together (these take ${total}; the largest is ${largest.attributeId})`,
    },
  ];
}

/**
 * Validates the resulting attribute values of a component of this category (after merge), e.g.
 * `{ resistance: 10000, package: '0603' }`. Errors follow the category's attribute order, then unknown
 * ids in input order; absent, null and "" are no value. `kept`: attributes whose stored values the write
 * leaves as they are; an archived one of them is kept, not set (archiving retires an attribute, it does not
 * take its values away nor lock the component's other attributes).
 */
export function validateAttributeValues(category: CategoryDefinition, values: Record<string, unknown>, kept: ReadonlySet<string> = new Set()): AttributeError[] {
  const errors: AttributeError[] = [];
  for (const attribute of category.attributes) {
    const value = Object.hasOwn(values, attribute.id) ? values[attribute.id] : undefined;
    for (const problem of attributeProblems(attribute, value, kept.has(attribute.id))) errors.push({ attributeId: attribute.id, message: `${attribute.name} ${problem}` });
  }
  const known = new Set(category.attributes.map((attribute) => attribute.id));
  const settable = category.attributes.filter((attribute) => !attribute.archived).map((attribute) => attribute.id);
  for (const [attributeId, value] of Object.entries(values)) {
    if (!known.has(attributeId) && !isBlank(value)) {
      errors.push({ attributeId, message: `unknown attribute "${attributeId}": category ${category.name} has ${settable.length ? settable.join(', ') : 'no attributes'}` });
    }
  }
  if (errors.length === 0) errors.push(...totalSizeProblems(values));
  return errors;
}
