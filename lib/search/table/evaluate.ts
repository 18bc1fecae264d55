import { normalizeMpn } from '../../store/component.js';
import { compareRevisions, type RevisionScheme } from '../../config/revisionScheme.js';
import {
  dateInterval,
  mentionsArchived,
  type FilterContext,
  parseDateOperand,
  type DateOperators,
  type DescriptionOperators,
  type FilterCondition,
  type RevisionOperators,
  type SearchFilter,
  type StringOperators,
} from '../filter.js';
import { likeMatcher, type LikeMatcher } from '../like.js';
import { minIndexedNeedle } from './nameIndex.js';
import type { FieldName, Row } from './rows.js';

type Test = (row: Row) => boolean;

export interface CompiledFilter {
  /** Fields the filter reads: the columns to load (a name needle's field is not among them: see needles). */
  fields: Set<FieldName>;
  /**
   * Lowercased needles of at least 3 code units that name `contains`/`notContains` (and findAll's name
   * filters) test through the NameMatcher: the name index answers them without the name column.
   */
  needles: Set<string>;
  /** The same for CPN (identifier.displayValue) contains/notContains: the CPN index answers them. */
  cpnNeedles: Set<string>;
  test: Test;
}

/** Whether a row's lowercased name includes a needle: by the name index (snapshot.ts) or by the row's name. */
export interface NameMatcher {
  contains(row: Row, needle: string): boolean;
}

/** Reads the row's name (loaded): what the name index answers must equal this. */
export const directNameMatcher: NameMatcher = { contains: (row, needle) => row.name !== undefined && row.name !== null && lower(row.name).includes(needle) };
export const directCpnMatcher: NameMatcher = { contains: (row, needle) => row.cpn !== undefined && row.cpn !== null && lower(row.cpn).includes(needle) };

/** like/notLike: % is any sequence, _ one character; everything else literal; case-insensitive, whole value (lib/search/like.ts: linear time, no regular expression). */
export function likePattern(pattern: string): LikeMatcher {
  return likeMatcher(pattern);
}

const lower = (value: string) => value.toLowerCase();

/** A name needle the name index can answer: at least 3 code units once lowercased. */
const indexable = (value: string | null | undefined): value is string => typeof value === 'string' && lower(value).length >= minIndexedNeedle;

/** One test per positive operator; the negative operators are their exact complements. */
function valueTests(ops: StringOperators | DescriptionOperators): { test: (value: string) => boolean; negate: boolean }[] {
  const tests: { test: (value: string) => boolean; negate: boolean }[] = [];
  const add = (present: unknown, negate: boolean, test: (value: string) => boolean) => {
    if (present !== null && present !== undefined) tests.push({ test, negate });
  };
  const s = ops as StringOperators;
  const d = ops as DescriptionOperators;
  add(s.eq, false, (v) => v === s.eq);
  add(s.neq, true, (v) => v === s.neq);
  if (s.in) {
    const set = new Set(s.in);
    add(s.in, false, (v) => set.has(v));
  }
  if (s.notIn) {
    const set = new Set(s.notIn);
    add(s.notIn, true, (v) => set.has(v));
  }
  for (const [value, negate] of [
    [s.contains, false],
    [s.notContains, true],
    [d.doesNotContain, true],
  ] as const) {
    if (value !== null && value !== undefined) {
      const needle = lower(value);
      add(value, negate, (v) => lower(v).includes(needle));
    }
  }
  for (const [value, negate] of [
    [s.like, false],
    [s.notLike, true],
  ] as const) {
    if (value !== null && value !== undefined) {
      const pattern = likePattern(value);
      add(value, negate, (v) => pattern.test(v));
    }
  }
  return tests;
}

/** A single-valued field: null matches no positive operator (and so every negative one). */
function stringTest(ops: StringOperators | DescriptionOperators | null | undefined, read: (row: Row) => string | null | undefined): Test | null {
  const tests = ops ? valueTests(ops) : [];
  if (tests.length === 0) return null;
  return (row) => {
    const value = read(row);
    return tests.every(({ test, negate }) => (value === null || value === undefined ? false : test(value)) !== negate);
  };
}

/** Labels: a positive operator matches when some label does, a negative one when none does. */
function labelsTest(ops: StringOperators | null | undefined, read: (row: Row) => string[] | undefined = (row) => row.labels): Test | null {
  const tests = ops ? valueTests(ops) : [];
  if (tests.length === 0) return null;
  return (row) => tests.every(({ test, negate }) => (read(row) ?? []).some(test) !== negate);
}

/** MPN operands compare as stored: normalized (normalizeMpn); like and contains patterns are upper-cased. */
function mpnOperators(ops: StringOperators | null | undefined): StringOperators | null {
  if (!ops) return null;
  const one = (v: string | null | undefined) => (typeof v === 'string' ? normalizeMpn(v) : v);
  const text = (v: string | null | undefined) => (typeof v === 'string' ? v.trim().toUpperCase() : v);
  return {
    eq: one(ops.eq),
    neq: one(ops.neq),
    in: ops.in?.map(normalizeMpn),
    notIn: ops.notIn?.map(normalizeMpn),
    contains: text(ops.contains),
    notContains: text(ops.notContains),
    like: text(ops.like),
    notLike: text(ops.notLike),
  };
}

function revisionTest(ops: RevisionOperators | null | undefined, scheme: RevisionScheme | undefined): Test | null {
  if (!ops) return null;
  const equality = stringTest({ eq: ops.eq, neq: ops.neq, in: ops.in, notIn: ops.notIn }, (row) => row.revisionValue);
  const tests: Test[] = equality ? [equality] : [];
  if (ops.lt || ops.gt) {
    if (!scheme) throw new Error('revision lt/gt need the revision scheme');
    if (ops.lt) tests.push((row) => compareRevisions(scheme, row.revisionValue ?? '', ops.lt!) < 0);
    if (ops.gt) tests.push((row) => compareRevisions(scheme, row.revisionValue ?? '', ops.gt!) > 0);
  }
  return tests.length ? (row) => tests.every((t) => t(row)) : null;
}

function dateTest(ops: DateOperators | null | undefined, field: 'createdAt' | 'updatedAt'): Test | null {
  const intervals = Object.entries(ops ?? {}).flatMap(([operator, value]) =>
    typeof value === 'string' ? [dateInterval(operator as keyof DateOperators, parseDateOperand(value, `${field}.${operator}`))] : [],
  );
  if (intervals.length === 0) return null;
  return (row) => {
    const time = row[field] ?? NaN;
    return intervals.every(([from, to]) => time >= from && time < to);
  };
}

function markTest(eq: boolean | null | undefined, ids: ReadonlySet<string> | undefined): Test | null {
  if (typeof eq !== 'boolean') return null;
  if (!ids) throw new Error("isPinned/isBookmarked need the caller's marks");
  return (row) => ids.has(row.id ?? '') === eq;
}

interface Compiling {
  fields: Set<FieldName>;
  needles: Set<string>;
  names: NameMatcher;
  cpnNeedles: Set<string>;
  cpns: NameMatcher;
}

/**
 * A name (or CPN) condition: contains/notContains with an indexable needle through the matcher (a null value
 * contains nothing, so notContains holds for it: the exact complement), every other operator on the value itself.
 */
function nameTests(ops: StringOperators | null | undefined, compiling: Compiling, field: 'name' | 'cpn' = 'name'): { tests: Test[]; readsName: boolean } {
  const [needles, matcher] = field === 'name' ? [compiling.needles, compiling.names] : [compiling.cpnNeedles, compiling.cpns];
  if (!ops) return { tests: [], readsName: false };
  const tests: Test[] = [];
  const rest: StringOperators = { ...ops };
  for (const [operator, negate] of [
    ['contains', false],
    ['notContains', true],
  ] as const) {
    const value = ops[operator];
    if (!indexable(value)) continue;
    const needle = lower(value);
    needles.add(needle);
    tests.push((row) => matcher.contains(row, needle) !== negate);
    rest[operator] = undefined;
  }
  const others = stringTest(rest, (r) => (field === 'name' ? r.name : r.cpn));
  return { tests: others ? [...tests, others] : tests, readsName: others !== null };
}

/** The tests of one condition and the fields they read. */
function conditionTests(condition: FilterCondition, context: FilterContext, compiling: Compiling): Test[] {
  const fields = compiling.fields;
  const tests: Test[] = [];
  const use = (test: Test | null, ...read: FieldName[]) => {
    if (!test) return;
    tests.push(test);
    read.forEach((f) => fields.add(f));
  };
  use(
    stringTest(condition.status?.id, (r) => r.statusId),
    'statusId',
  );
  use(
    stringTest(condition.status?.name, (r) => r.statusName),
    'statusName',
  );
  use(
    stringTest(condition.status?.mapsTo, (r) => r.statusMapsTo),
    'statusMapsTo',
  );
  use(
    stringTest(condition.category?.id, (r) => r.categoryId),
    'categoryId',
  );
  use(
    stringTest(condition.category?.name, (r) => r.categoryName),
    'categoryName',
  );
  use(
    stringTest(condition.category?.type, (r) => r.categoryType),
    'categoryType',
  );
  const state = condition.state?.eq;
  use(state ? (r) => r.state === state : null, 'state');
  use(revisionTest(condition.revision?.value, context.revisionScheme), 'revisionValue');
  use(
    stringTest(condition.createdBy?.id, (r) => r.createdBy),
    'createdBy',
  );
  use(
    stringTest(condition.updatedBy?.id, (r) => r.updatedBy),
    'updatedBy',
  );
  use(labelsTest(condition.labels?.name), 'labels');
  // A component matches when one of its manufacturer parts does (as labels).
  use(
    labelsTest(mpnOperators(condition.mpn), (r) => r.mpns),
    'mpns',
  );
  use(
    labelsTest(condition.manufacturer?.id, (r) => r.manufacturerIds),
    'manufacturerIds',
  );
  use(markTest(condition.isPinned?.eq, context.pinnedIds), 'id');
  use(markTest(condition.isBookmarked?.eq, context.bookmarkedIds), 'id');
  const archived = condition.isArchived?.eq;
  use(typeof archived === 'boolean' ? (r) => r.isArchived === archived : null, 'isArchived');
  use(dateTest(condition.createdAt, 'createdAt'), 'createdAt');
  use(dateTest(condition.updatedAt, 'updatedAt'), 'updatedAt');
  const name = nameTests(condition.name, compiling);
  tests.push(...name.tests);
  if (name.readsName) fields.add('name');
  const cpn = nameTests(condition.identifier?.displayValue, compiling, 'cpn');
  tests.push(...cpn.tests);
  if (cpn.readsName) fields.add('cpn');
  use(
    stringTest(condition.description, (r) => r.description),
    'description',
  );
  return tests;
}

/** findAll's ComponentFilterInput (the one matcher of findAll: it is served by the search index like component.filter). */
function simpleTests(filter: NonNullable<SearchFilter['simple']>, compiling: Compiling): Test[] {
  const fields = compiling.fields;
  const tests: Test[] = [];
  const use = (test: Test, ...read: FieldName[]) => {
    tests.push(test);
    read.forEach((f) => fields.add(f));
  };
  if (filter.ids) {
    const ids = new Set(filter.ids);
    use((r) => ids.has(r.id ?? ''), 'id');
  }
  // A needle of at least 3 code units goes through the matcher (the name index); '' and shorter ones read names.
  if (filter.name && indexable(filter.name)) {
    const needle = lower(filter.name);
    compiling.needles.add(needle);
    tests.push((r) => compiling.names.contains(r, needle));
  } else if (filter.name) {
    const needle = lower(filter.name);
    use((r) => lower(r.name ?? '').includes(needle), 'name');
  }
  if (filter.names && filter.names.length > 0 && filter.names.every(indexable)) {
    const needles = filter.names.map(lower);
    needles.forEach((needle) => compiling.needles.add(needle));
    tests.push((r) => needles.some((needle) => compiling.names.contains(r, needle)));
  } else if (filter.names) {
    const needles = filter.names.map(lower);
    use((r) => needles.some((n) => lower(r.name ?? '').includes(n)), 'name');
  }
  if (filter.exactNames) {
    const names = new Set(filter.exactNames);
    use((r) => names.has(r.name ?? ''), 'name');
  }
  if (filter.cpns) {
    const cpns = new Set(filter.cpns.map((c) => c.toUpperCase()));
    use((r) => cpns.has((r.cpn ?? '').toUpperCase()), 'cpn');
  }
  if (filter.statusId) use((r) => r.statusId === filter.statusId, 'statusId');
  if (filter.categoryId) use((r) => r.categoryId === filter.categoryId, 'categoryId');
  if (filter.categoryType) use((r) => r.categoryType === filter.categoryType, 'categoryType');
  if (filter.eid) use((r) => r.eid === filter.eid, 'eid');
  if (typeof filter.isArchived === 'boolean') use((r) => r.isArchived === filter.isArchived, 'isArchived');
  return tests;
}

/**
 * The filter as one row test. Name and CPN needles (see CompiledFilter.needles) are tested through `names` and `cpns`: by
 * default the row's own name, which the caller must then load; the table engine passes the snapshot's matcher.
 */
export function compileFilter(filter: SearchFilter, context: FilterContext, names: NameMatcher = directNameMatcher, cpns: NameMatcher = directCpnMatcher): CompiledFilter {
  const fields = new Set<FieldName>();
  const compiling: Compiling = { fields, needles: new Set(), names, cpnNeedles: new Set(), cpns };
  const all: Test[] = filter.simple ? simpleTests(filter.simple, compiling) : [];
  if (!mentionsArchived(filter)) {
    fields.add('isArchived');
    all.push((r) => r.isArchived === false);
  }
  for (const condition of filter.advanced?.and ?? []) all.push(...conditionTests(condition, context, compiling));
  const any = (filter.advanced?.or ?? []).map((condition) => {
    const tests = conditionTests(condition, context, compiling);
    return (row: Row) => tests.every((t) => t(row));
  });
  return { fields, needles: compiling.needles, cpnNeedles: compiling.cpnNeedles, test: (row) => all.every((t) => t(row)) && (any.length === 0 || any.some((t) => t(row))) };
}
