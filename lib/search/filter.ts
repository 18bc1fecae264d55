import type { ComponentFilter } from './query.js';
import { validateRevision, type RevisionScheme } from '../config/revisionScheme.js';
import { InvalidInputError } from '../errors.js';
import { likePatternProblem } from './like.js';

/**
 * The filter language of the spec (Filter inputs), as the domain receives it from GraphQL. Every field is
 * optional; several operators in one object, and several fields in one condition, must all hold.
 */
export interface StringOperators {
  eq?: string | null;
  neq?: string | null;
  in?: readonly string[] | null;
  notIn?: readonly string[] | null;
  /** Case-insensitive substring; the way to match a literal % or _. */
  contains?: string | null;
  notContains?: string | null;
  /** % any sequence, _ one character, case-insensitive, whole value; at most 500 characters and 100 wildcards (like.ts). */
  like?: string | null;
  notLike?: string | null;
}

export interface DescriptionOperators {
  contains?: string | null;
  doesNotContain?: string | null;
  like?: string | null;
  notLike?: string | null;
}

/** Values are dates (YYYY-MM-DD, a whole UTC day) or timestamps (ISO 8601 with a zone). */
export interface DateOperators {
  /** Exclusive: before the day starts, or before the instant. */
  before?: string | null;
  /** Exclusive: after the day ends, or after the instant. */
  after?: string | null;
  /** The same UTC day. */
  on?: string | null;
  /** Inclusive: from the day's start, or from the instant. */
  rangeStart?: string | null;
  /** Inclusive: to the day's end, or to the instant. */
  rangeEnd?: string | null;
}

/** lt and gt order by the library's revision scheme (A < B < ... < Z < AA, integers numerically, segment by segment). */
export interface RevisionOperators {
  eq?: string | null;
  neq?: string | null;
  in?: readonly string[] | null;
  notIn?: readonly string[] | null;
  lt?: string | null;
  gt?: string | null;
}

export interface BooleanOperators {
  eq?: boolean | null;
}

export interface FilterCondition {
  status?: { id?: StringOperators | null; name?: StringOperators | null; mapsTo?: StringOperators | null } | null;
  category?: { id?: StringOperators | null; name?: StringOperators | null; type?: StringOperators | null } | null;
  state?: { eq?: 'RELEASED' | 'MODIFIED' | null } | null;
  revision?: { value?: RevisionOperators | null } | null;
  createdBy?: { id?: StringOperators | null } | null;
  updatedBy?: { id?: StringOperators | null } | null;
  /** Positive operators match when some label matches; negative ones when none does. */
  labels?: { name?: StringOperators | null } | null;
  isPinned?: BooleanOperators | null;
  isBookmarked?: BooleanOperators | null;
  /** An addition to the spec: archived components are left out unless a condition names isArchived. */
  isArchived?: BooleanOperators | null;
  createdAt?: DateOperators | null;
  updatedAt?: DateOperators | null;
  name?: StringOperators | null;
  /** displayValue matches the CPN. */
  identifier?: { displayValue?: StringOperators | null } | null;
  description?: DescriptionOperators | null;
  /** An addition to the spec: some manufacturer part's MPN (compared normalized: no spaces, upper case). */
  mpn?: StringOperators | null;
  /** An addition to the spec: some manufacturer part's manufacturer (directory id). */
  manufacturer?: { id?: StringOperators | null } | null;
}

/** Every `and` condition and, when `or` is given, at least one `or` condition. */
export interface AdvancedFilter {
  and?: readonly FilterCondition[] | null;
  or?: readonly FilterCondition[] | null;
}

/** What a search filters by: findAll's simple filter, the advanced filter, or both (both must hold). */
export interface SearchFilter {
  simple?: ComponentFilter | null;
  advanced?: AdvancedFilter | null;
}

/** What a filter needs besides the search data: the caller's marks and the revision order. */
export interface FilterContext {
  pinnedIds?: ReadonlySet<string>;
  bookmarkedIds?: ReadonlySet<string>;
  revisionScheme?: RevisionScheme;
}

export function conditionsOf(filter: AdvancedFilter | null | undefined): FilterCondition[] {
  return [...(filter?.and ?? []), ...(filter?.or ?? [])];
}

/** Reads the filter needs besides the search data: the caller's pins or bookmarks, the revision scheme. */
export function filterNeeds(filter: SearchFilter): { pins: boolean; bookmarks: boolean; revisionScheme: boolean; sourcing: 'mpn' | 'manufacturer' | null } {
  const conditions = conditionsOf(filter.advanced);
  return {
    pins: conditions.some((c) => typeof c.isPinned?.eq === 'boolean'),
    bookmarks: conditions.some((c) => typeof c.isBookmarked?.eq === 'boolean'),
    revisionScheme: conditions.some((c) => !!c.revision?.value?.lt || !!c.revision?.value?.gt),
    // Conditions on manufacturer parts: the caller must be allowed to read them (sourcing.parts).
    sourcing: conditions.some((c) => c.mpn != null) ? 'mpn' : conditions.some((c) => c.manufacturer != null) ? 'manufacturer' : null,
  };
}

/** Whether the filter says anything about archived components; if not, they are left out. */
export function mentionsArchived(filter: SearchFilter): boolean {
  return (filter.simple?.isArchived ?? null) !== null || conditionsOf(filter.advanced).some((c) => typeof c.isArchived?.eq === 'boolean');
}

/** A date operand: a whole UTC day [start, next), or an instant. */
export type DateOperand = { kind: 'day'; start: number; next: number } | { kind: 'instant'; at: number };

const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const dayMs = 24 * 60 * 60 * 1000;

export function parseDateOperand(value: string, path: string): DateOperand {
  const day = dayPattern.exec(value);
  if (day) {
    const start = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    if (new Date(start).toISOString().slice(0, 10) !== value) throw new InvalidInputError(`${path}: "${value}" is not a calendar date`, { field: path });
    return { kind: 'day', start, next: start + dayMs };
  }
  const at = timestampPattern.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) throw new InvalidInputError(`${path}: "${value}" is neither a date (YYYY-MM-DD) nor an ISO 8601 timestamp with a zone`, { field: path });
  return { kind: 'instant', at };
}

/** The [from, to) interval of times a date operator accepts. */
export function dateInterval(operator: keyof DateOperators, operand: DateOperand): [number, number] {
  const day = operand.kind === 'day' ? operand : { start: Math.floor(operand.at / dayMs) * dayMs, next: Math.floor(operand.at / dayMs) * dayMs + dayMs };
  const instant = operand.kind === 'instant' ? operand.at : undefined;
  switch (operator) {
    case 'before':
      return [-Infinity, instant ?? day.start];
    case 'after':
      return [instant === undefined ? day.next : instant + 1, Infinity];
    case 'on':
      return [day.start, day.next];
    case 'rangeStart':
      return [instant ?? day.start, Infinity];
    case 'rangeEnd':
      return [-Infinity, instant === undefined ? day.next : instant + 1];
  }
}

/** Every like / notLike operand of a condition, with its path (name.like, labels.name.notLike, ...). */
function likeOperands(value: unknown, path: string[] = []): [string, string][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]): [string, string][] =>
    (key === 'like' || key === 'notLike') && typeof inner === 'string' ? [[[...path, key].join('.'), inner]] : likeOperands(inner, [...path, key]),
  );
}

/** Refuses like / notLike patterns over the limits (BAD_USER_INPUT, naming the condition): like.ts. */
export function validateLikePatterns(filter: AdvancedFilter | null | undefined): void {
  (['and', 'or'] as const).forEach((list) =>
    (filter?.[list] ?? []).forEach((condition, index) => {
      for (const [path, pattern] of likeOperands(condition)) {
        const problem = likePatternProblem(pattern);
        if (problem) throw new InvalidInputError(`${list}[${index}].${path}: ${problem}`, { field: path });
      }
    }),
  );
}

/** Conditions of a filter's and, and of its or (each evaluated over every row of the library). */
export const maxFilterConditions = 200;

/** Refuses malformed operands up front (dates, revisions to order by, like patterns over the limits), naming where they are. */
export function validateFilter(filter: SearchFilter, scheme: RevisionScheme | undefined): void {
  for (const list of ['and', 'or'] as const) {
    const count = filter.advanced?.[list]?.length ?? 0;
    if (count > maxFilterConditions) {
      throw new InvalidInputError(`${list}: a filter holds at most ${maxFilterConditions} conditions in ${list} (got ${count})`, { field: list, limit: maxFilterConditions });
    }
  }
  validateLikePatterns(filter.advanced);
  (['and', 'or'] as const).forEach((list) =>
    (filter.advanced?.[list] ?? []).forEach((condition, index) => {
      for (const field of ['createdAt', 'updatedAt'] as const) {
        for (const [operator, value] of Object.entries(condition[field] ?? {})) {
          if (typeof value === 'string') parseDateOperand(value, `${list}[${index}].${field}.${operator}`);
        }
      }
      for (const operator of ['lt', 'gt'] as const) {
        const value = condition.revision?.value?.[operator];
        const problem = value && scheme ? validateRevision(scheme, value) : null;
        if (problem) throw new InvalidInputError(`${list}[${index}].revision.value.${operator}: ${problem}`, { field: `revision.value.${operator}` });
      }
    }),
  );
}
