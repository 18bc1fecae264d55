import * as z from 'zod';
import { InvalidInputError } from '../errors.js';
import { classifications, type Classification } from '../model/vocabulary.js';

/**
 * A library's revision scheme: one to four segments joined by a delimiter, each a letter sequence
 * (A..Z, AA, AB, ...: bijective base 26 over the allowed letters) or a number. Per-status rules set the
 * initial revision and whether a component in such a status may have none.
 */
export interface RevisionScheme {
  delimiter: string;
  segments: RevisionSegment[];
  rules: RevisionRule[];
}

export type RevisionSegment = { type: 'LETTERS'; excludedLetters: string[] } | { type: 'INTEGER'; min: number; padWidth: number };

export interface RevisionRule {
  mapsTo: Classification[];
  initialValue: string;
  allowBlank: boolean;
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Characters of a revision at most, delimiters included (a rule's initialValue has the same bound). */
export const maxRevisionLength = 64;

const revisionSegment = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('LETTERS'),
      excludedLetters: z.array(z.string().regex(/^[A-Z]$/, 'must be a single uppercase letter A-Z')).default([]),
    })
    .strict(),
  z
    .object({
      type: z.literal('INTEGER'),
      min: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(1),
      padWidth: z.number().int().min(0).max(12).default(0),
    })
    .strict(),
]);

const revisionRule = z
  .object({
    mapsTo: z.array(z.enum(classifications)).min(1),
    initialValue: z.string().max(maxRevisionLength),
    allowBlank: z.boolean().default(false),
  })
  .strict();

const revisionSchemeObject = z
  .object({
    delimiter: z.enum(['.', '-', '_']).default('.'),
    segments: z.array(revisionSegment).min(1).max(4),
    rules: z.array(revisionRule).default([]),
  })
  .strict()
  .superRefine((scheme, ctx) => {
    scheme.segments.forEach((segment, index) => {
      if (segment.type === 'LETTERS' && allowedLetters(segment).length < 2) {
        ctx.addIssue({ code: 'custom', path: ['segments', index, 'excludedLetters'], message: 'excludedLetters must leave at least 2 letters' });
      }
    });
    const ruleOf = new Map<Classification, number>();
    scheme.rules.forEach((rule, index) => {
      for (const classification of rule.mapsTo) {
        const earlier = ruleOf.get(classification);
        if (earlier !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['rules', index, 'mapsTo'], message: `${classification} already has a rule (rules[${earlier}]); a classification appears in at most one rule` });
        }
        ruleOf.set(classification, index);
      }
    });
    scheme.rules.forEach((rule, index) => {
      const problem = rule.initialValue === '' && rule.allowBlank ? null : validateRevision(scheme, rule.initialValue);
      if (problem) ctx.addIssue({ code: 'custom', path: ['rules', index, 'initialValue'], message: rule.initialValue === '' ? 'initialValue may be blank only when allowBlank is true' : problem });
    });
  });

/** The revision scheme document of a library; parse with `.safeParse`, defaults are filled. */
export const revisionSchemeDocument: z.ZodType<RevisionScheme, z.input<typeof revisionSchemeObject>> = revisionSchemeObject;

export const defaultRevisionScheme: RevisionScheme = { delimiter: '.', segments: [{ type: 'LETTERS', excludedLetters: [] }], rules: [] };

function allowedLetters(segment: Extract<RevisionSegment, { type: 'LETTERS' }>): string {
  return [...alphabet].filter((letter) => !segment.excludedLetters.includes(letter)).join('');
}

function ruleFor(scheme: RevisionScheme, mapsTo: Classification): RevisionRule | undefined {
  return scheme.rules.find((rule) => rule.mapsTo.includes(mapsTo));
}

function formatInteger(segment: Extract<RevisionSegment, { type: 'INTEGER' }>, value: bigint): string {
  return value.toString().padStart(segment.padWidth, '0');
}

/** Why one segment's text is not a value of the segment, or null. */
function segmentProblem(segment: RevisionSegment, text: string): string | null {
  if (segment.type === 'LETTERS') {
    const allowed = allowedLetters(segment);
    const letters = segment.excludedLetters.length ? `uppercase letters A-Z except ${[...segment.excludedLetters].sort().join(', ')}` : 'uppercase letters A-Z';
    if (!/^[A-Z]+$/.test(text)) return `"${text}" must be ${letters}`;
    const excluded = [...text].find((letter) => !allowed.includes(letter));
    return excluded ? `"${text}" uses the excluded letter ${excluded} (allowed: ${letters})` : null;
  }
  if (!/^[0-9]+$/.test(text)) return `"${text}" must be a whole number`;
  const value = BigInt(text);
  if (value < BigInt(segment.min)) return `"${text}" is below the minimum ${formatInteger(segment, BigInt(segment.min))}`;
  const canonical = formatInteger(segment, value);
  if (canonical !== text) return `"${text}" must be written as "${canonical}"${segment.padWidth ? ` (padded to ${segment.padWidth} digits)` : ' (no leading zeros)'}`;
  return null;
}

function schemeName(scheme: RevisionScheme): string {
  return scheme.segments.map((segment) => segment.type).join(scheme.delimiter);
}

/** Null when `value` is a revision of the scheme (blank only where the rule of `mapsTo` allows it), else why not. */
export function validateRevision(scheme: RevisionScheme, value: string, mapsTo?: Classification): string | null {
  if (value === '') {
    if (mapsTo === undefined) return 'revision must not be blank';
    return ruleFor(scheme, mapsTo)?.allowBlank ? null : `revision must not be blank for components in ${mapsTo} statuses`;
  }
  // Before anything quotes it: a message never carries more than the bound of the value.
  if (value.length > maxRevisionLength) return `revision must be at most ${maxRevisionLength} characters (got ${value.length})`;
  const mismatch = (detail: string) => `revision "${value}" does not match the library scheme ${schemeName(scheme)}: ${detail}`;
  const parts = value.split(scheme.delimiter);
  if (parts.length !== scheme.segments.length) {
    const expected = scheme.segments.length === 1 ? `a single segment without "${scheme.delimiter}"` : `${scheme.segments.length} segments separated by "${scheme.delimiter}"`;
    return mismatch(`expected ${expected}, got ${parts.length}`);
  }
  for (const [index, segment] of scheme.segments.entries()) {
    const problem = segmentProblem(segment, parts[index] ?? '');
    if (problem) return mismatch(scheme.segments.length > 1 ? `segment ${index + 1} ${problem}` : problem);
  }
  return null;
}

/** The segment texts of a valid non-blank revision, or null. */
function parseRevision(scheme: RevisionScheme, value: string): string[] | null {
  return value !== '' && validateRevision(scheme, value) === null ? value.split(scheme.delimiter) : null;
}

function compareSegment(segment: RevisionSegment, a: string, b: string): number {
  if (segment.type === 'INTEGER') {
    const difference = BigInt(a) - BigInt(b);
    return difference === 0n ? 0 : difference < 0n ? -1 : 1;
  }
  // Bijective base 26: shorter sequences come first, equal lengths compare letter by letter.
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Orders revisions by the scheme: letters A < B < ... < Z < AA, integers numerically, segment by segment.
 * Blank sorts first; values that are not revisions of the scheme sort after all valid ones, by string.
 */
export function compareRevisions(scheme: RevisionScheme, a: string, b: string): number {
  if (a === '' || b === '') return a === b ? 0 : a === '' ? -1 : 1;
  const left = parseRevision(scheme, a);
  const right = parseRevision(scheme, b);
  if (!left || !right) {
    if (left) return -1;
    if (right) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (const [index, segment] of scheme.segments.entries()) {
    const order = compareSegment(segment, left[index] ?? '', right[index] ?? '');
    if (order !== 0) return order;
  }
  return 0;
}

function firstValue(segment: RevisionSegment): string {
  return segment.type === 'LETTERS' ? allowedLetters(segment).charAt(0) : formatInteger(segment, BigInt(segment.min));
}

/** The revision of a new component in a status of this classification. */
export function initialRevision(scheme: RevisionScheme, mapsTo: Classification): string {
  return ruleFor(scheme, mapsTo)?.initialValue ?? scheme.segments.map(firstValue).join(scheme.delimiter);
}

function nextSegmentValue(segment: RevisionSegment, text: string): string {
  if (segment.type === 'INTEGER') return formatInteger(segment, BigInt(text) + 1n);
  const allowed = allowedLetters(segment);
  const first = allowed.charAt(0);
  const last = allowed.charAt(allowed.length - 1);
  const letters = [...text];
  for (let index = letters.length - 1; index >= 0; index--) {
    const letter = letters[index] ?? first;
    if (letter !== last) {
      letters[index] = allowed.charAt(allowed.indexOf(letter) + 1);
      return letters.join('');
    }
    letters[index] = first;
  }
  return first + letters.join('');
}

/**
 * The revision after `value`: the last segment incremented (A -> B, Z -> AA, 09 -> 10). A blank value
 * gets the scheme's first value; a value that is not a revision of the scheme is refused.
 */
export function nextRevision(scheme: RevisionScheme, value: string): string {
  if (value === '') return scheme.segments.map(firstValue).join(scheme.delimiter);
  const parts = parseRevision(scheme, value);
  const lastIndex = scheme.segments.length - 1;
  const lastSegment = scheme.segments[lastIndex];
  if (!parts || !lastSegment) throw new InvalidInputError(validateRevision(scheme, value) ?? `revision "${value}" cannot be incremented`, { revisionValue: value });
  parts[lastIndex] = nextSegmentValue(lastSegment, parts[lastIndex] ?? '');
  return parts.join(scheme.delimiter);
}

/** A one-line description for messages and settings screens, e.g. "LETTERS.INTEGER (e.g. A.1)". */
export function describeRevisionScheme(scheme: RevisionScheme): string {
  return `${schemeName(scheme)} (e.g. ${scheme.segments.map(firstValue).join(scheme.delimiter)})`;
}
