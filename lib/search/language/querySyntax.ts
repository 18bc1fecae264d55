import { validateRevision } from '../../config/revisionScheme.js';
import { InvalidInputError } from '../../errors.js';
import { normalizeVendorName } from '../../store/sourcing.js';
import type { Clause, ClauseField, ClauseSet, NotFoundEntity } from './clauses.js';
import { parseCompactPeriod, periodClauses } from './dates.js';
import { resolveCategory, resolveLabel, resolveStatus, resolveType, resolveUser, type Resolved } from './resolve.js';
import type { Vocabulary, VocabularyPart } from './vocabulary.js';

/**
 * The search bar's key:value syntax (grammar in schema/README.md, "Search"):
 *
 *   query  = term { " " term }
 *   term   = key ( ":" | "!:" ) value { "," value }  |  value
 *   value  = bare | '"' quoted '"'
 *
 * `!:` negates, commas list alternatives, quotes allow spaces, and `*` in a text or name value is the
 * like wildcard. A value without a key is a name substring.
 */
export interface QueryTerm {
  key: string | null;
  negated: boolean;
  values: string[];
  /** Character offset in the query, for error messages. */
  at: number;
}

type KeyKind = 'text' | 'status' | 'lifecycle' | 'category' | 'type' | 'state' | 'revision' | 'label' | 'user' | 'date' | 'is' | 'mpn' | 'manufacturer';

const keys: Record<string, { kind: KeyKind; field?: ClauseField }> = {
  name: { kind: 'text', field: 'name' },
  desc: { kind: 'text', field: 'description' },
  description: { kind: 'text', field: 'description' },
  cpn: { kind: 'text', field: 'identifier.displayValue' },
  pn: { kind: 'text', field: 'identifier.displayValue' },
  status: { kind: 'status' },
  lifecycle: { kind: 'lifecycle' },
  category: { kind: 'category' },
  cat: { kind: 'category' },
  type: { kind: 'type' },
  state: { kind: 'state' },
  rev: { kind: 'revision' },
  revision: { kind: 'revision' },
  label: { kind: 'label' },
  labels: { kind: 'label' },
  tag: { kind: 'label' },
  by: { kind: 'user', field: 'updatedBy.id' },
  updatedby: { kind: 'user', field: 'updatedBy.id' },
  changedby: { kind: 'user', field: 'updatedBy.id' },
  createdby: { kind: 'user', field: 'createdBy.id' },
  author: { kind: 'user', field: 'createdBy.id' },
  created: { kind: 'date', field: 'createdAt' },
  updated: { kind: 'date', field: 'updatedAt' },
  changed: { kind: 'date', field: 'updatedAt' },
  is: { kind: 'is' },
  mpn: { kind: 'mpn', field: 'mpn' },
  manufacturer: { kind: 'manufacturer', field: 'manufacturer.id' },
  mfr: { kind: 'manufacturer', field: 'manufacturer.id' },
};

const queryKeys = Object.keys(keys);

function syntaxError(message: string, at: number): InvalidInputError {
  return new InvalidInputError(`query, at character ${at + 1}: ${message}`, { field: 'query', position: at });
}

/** Splits a query into terms. */
export function parseQuery(query: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  let i = 0;
  const readValue = (): string => {
    if (query[i] === '"') {
      const close = query.indexOf('"', i + 1);
      if (close < 0) throw syntaxError('a quote is not closed', i);
      const value = query.slice(i + 1, close);
      i = close + 1;
      return value;
    }
    const start = i;
    while (i < query.length && !/[\s,"]/.test(query[i]!)) i += 1;
    return query.slice(start, i);
  };
  while (i < query.length) {
    if (/\s/.test(query[i]!)) {
      i += 1;
      continue;
    }
    const at = i;
    const keyed = /^([A-Za-z][A-Za-z]*)(!?:)/.exec(query.slice(i));
    if (!keyed) {
      const value = readValue();
      if (query[i] && !/\s/.test(query[i]!)) throw syntaxError(`unexpected "${query[i]}" after "${value}"`, i);
      if (value) terms.push({ key: null, negated: false, values: [value], at });
      continue;
    }
    const key = keyed[1]!.toLowerCase();
    if (!keys[key]) throw syntaxError(`unknown key "${keyed[1]}" (keys: ${queryKeys.join(', ')})`, at);
    i += keyed[0].length;
    const values = [readValue()];
    while (query[i] === ',') {
      i += 1;
      values.push(readValue());
    }
    if (values.some((v) => v.trim() === '')) throw syntaxError(`"${keyed[1]}${keyed[2]}" needs a value (no empty values between commas)`, at);
    if (query[i] && !/\s/.test(query[i]!)) throw syntaxError(`unexpected "${query[i]}"`, i);
    terms.push({ key, negated: keyed[2] === '!:', values, at });
  }
  return terms;
}

/** The parts of the vocabulary the terms need. */
export function vocabularyNeeded(terms: QueryTerm[]): Set<VocabularyPart> {
  const parts = new Set<VocabularyPart>();
  for (const term of terms) {
    const kind = term.key ? keys[term.key]!.kind : 'text';
    if (kind === 'status' || kind === 'category' || kind === 'revision') parts.add('config');
    if (kind === 'label') parts.add('labels');
    if (kind === 'user') parts.add('users');
    if (kind === 'manufacturer') parts.add('manufacturers');
  }
  return parts;
}

const negation: Record<string, string> = { eq: 'neq', in: 'notIn', contains: 'notContains', like: 'notLike' };

/** Clauses for resolved values: one per field, eq or in, negated as neq or notIn. */
function enumClauses(resolved: Resolved[], negated: boolean): Clause[] {
  const byField = new Map<ClauseField, Resolved[]>();
  for (const r of resolved) byField.set(r.field, [...(byField.get(r.field) ?? []), r]);
  return [...byField.entries()].map(([field, values]) => {
    const comparator = values.length > 1 ? 'in' : 'eq';
    return {
      field,
      comparator: negated ? negation[comparator]! : comparator,
      value: values.length > 1 ? values.map((v) => v.value) : values[0]!.value,
      display: values.map((v) => v.display),
    };
  });
}

interface Compiled {
  clauses: ClauseSet;
  notFound: NotFoundEntity[];
}

/** Turns terms into clauses; alternatives that cannot be one in-list become the filter's `or` (one such term at most). */
export function compileQuery(terms: QueryTerm[], vocabulary: Vocabulary): Compiled {
  const and: Clause[] = [];
  const orGroups: { term: QueryTerm; clauses: Clause[] }[] = [];
  const notFound: NotFoundEntity[] = [];
  const add = (term: QueryTerm, clauses: Clause[]) => {
    if (clauses.length > 1 && !term.negated) orGroups.push({ term, clauses });
    else and.push(...clauses);
  };
  const resolveAll = (term: QueryTerm, type: NotFoundEntity['type'], resolve: (value: string) => Resolved | undefined, fallback: ClauseField) =>
    term.values.map((value) => {
      if (value.includes('*')) return { field: fallback, value: value.replaceAll('*', '%'), display: value, like: true };
      const found = resolve(value);
      if (found) return found;
      notFound.push({ type, name: value });
      return { field: fallback, value, display: value };
    });
  const enumerated = (term: QueryTerm, resolved: (Resolved & { like?: boolean })[]) => {
    const like = resolved.filter((r) => r.like).map((r): Clause => ({ field: r.field, comparator: term.negated ? 'notLike' : 'like', value: r.value, display: [r.display] }));
    add(term, [
      ...enumClauses(
        resolved.filter((r) => !r.like),
        term.negated,
      ),
      ...like,
    ]);
  };

  for (const term of terms) {
    const spec = term.key ? keys[term.key]! : { kind: 'text' as const, field: 'name' as const };
    switch (spec.kind) {
      case 'text': {
        const clauses = term.values.map((value): Clause => {
          const like = value.includes('*');
          const comparator = like ? 'like' : 'contains';
          const negated = spec.field === 'description' && comparator === 'contains' ? 'doesNotContain' : negation[comparator]!;
          return { field: spec.field!, comparator: term.negated ? negated : comparator, value: like ? value.replaceAll('*', '%') : value };
        });
        add(term, clauses);
        break;
      }
      case 'mpn': {
        // Exact MPNs (compared normalized) or * patterns; a component matches when one of its parts does.
        const exact = term.values.filter((v) => !v.includes('*'));
        const clauses: Clause[] = term.values.filter((v) => v.includes('*')).map((v) => ({ field: 'mpn', comparator: term.negated ? 'notLike' : 'like', value: v.replaceAll('*', '%') }));
        if (exact.length > 0)
          clauses.unshift(
            ...enumClauses(
              exact.map((v) => ({ field: 'mpn' as const, value: v, display: v })),
              term.negated,
            ),
          );
        add(term, clauses);
        break;
      }
      case 'manufacturer':
        // Names and aliases of the directory; * matches names and aliases (the ids of every match).
        enumerated(
          term,
          term.values.flatMap((value) => {
            const found = resolveManufacturers(vocabulary, value);
            if (found.length > 0) return found;
            notFound.push({ type: 'manufacturer', name: value });
            // Nobody's id: the term matches no component (and its negation every one).
            return [{ field: 'manufacturer.id' as const, value: `unknown:${value}`, display: value }];
          }),
        );
        break;
      case 'status':
        enumerated(
          term,
          resolveAll(term, 'status', (v) => resolveStatus(vocabulary, v), 'status.name'),
        );
        break;
      case 'lifecycle':
        enumerated(
          term,
          resolveAll(term, 'status', (v) => resolveStatus({ ...vocabulary, statuses: [] }, v), 'status.mapsTo'),
        );
        break;
      case 'category':
        enumerated(
          term,
          resolveAll(term, 'category', (v) => resolveCategory(vocabulary, v), 'category.name'),
        );
        break;
      case 'type':
        enumerated(term, resolveAll(term, 'type', resolveType, 'category.type'));
        break;
      case 'label':
        enumerated(
          term,
          resolveAll(term, 'label', (v) => resolveLabel(vocabulary, v), 'labels.name'),
        );
        break;
      case 'user':
        enumerated(
          term,
          resolveAll(
            term,
            'user',
            (v) => {
              const user = resolveUser(vocabulary, v);
              return user ? { field: spec.field!, value: user.id, display: user.display } : undefined;
            },
            spec.field!,
          ),
        );
        break;
      case 'state': {
        const states = term.values.map((v): string => {
          const state = v.toUpperCase() === 'UNRELEASED' ? 'MODIFIED' : v.toUpperCase();
          if (state !== 'RELEASED' && state !== 'MODIFIED') throw syntaxError(`state is released or modified, not "${v}"`, term.at);
          return state;
        });
        const wanted = new Set(term.negated ? ['RELEASED', 'MODIFIED'].filter((s) => !states.includes(s)) : states);
        if (wanted.size === 1) and.push({ field: 'state', comparator: 'eq', value: [...wanted][0]! });
        else if (wanted.size === 0) throw syntaxError('this state term matches nothing', term.at);
        break;
      }
      case 'revision':
        and.push(...revisionClauses(term, vocabulary, add));
        break;
      case 'date':
        and.push(...dateClauses(term, spec.field as 'createdAt' | 'updatedAt', vocabulary.now));
        break;
      case 'is':
        add(
          term,
          term.values.map((v) => flagClause(v, term)),
        );
        break;
    }
  }
  if (orGroups.length > 1) {
    throw syntaxError(
      `only one term may list alternatives that are not one field's values (found ${orGroups.length}: ${orGroups.map((g) => g.term.values.join(',')).join('; ')})`,
      orGroups[1]!.term.at,
    );
  }
  return { clauses: { and, or: orGroups[0]?.clauses ?? [] }, notFound };
}

/** The manufacturers a name or alias (case-insensitive; `*` a wildcard) names. */
function resolveManufacturers(vocabulary: Vocabulary, value: string): Resolved[] {
  const wanted = normalizeVendorName(value);
  const pattern = new RegExp(
    `^${wanted
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (vocabulary.manufacturers ?? [])
    .filter((m) => [m.name, ...m.aliases].some((name) => (value.includes('*') ? pattern.test(normalizeVendorName(name)) : normalizeVendorName(name) === wanted)))
    .map((m) => ({ field: 'manufacturer.id', value: m.id, display: m.name }));
}

function flagClause(value: string, term: QueryTerm): Clause {
  const v = value.toLowerCase();
  const flags: Record<string, ClauseField> = { pinned: 'isPinned', bookmarked: 'isBookmarked', archived: 'isArchived' };
  if (flags[v]) return { field: flags[v], comparator: 'eq', value: !term.negated };
  if (v === 'released' || v === 'modified' || v === 'unreleased') {
    const released = v === 'released' ? !term.negated : term.negated;
    return { field: 'state', comparator: 'eq', value: released ? 'RELEASED' : 'MODIFIED' };
  }
  throw syntaxError(`is: takes pinned, bookmarked, archived, released or modified, not "${value}"`, term.at);
}

function revisionClauses(term: QueryTerm, vocabulary: Vocabulary, add: (term: QueryTerm, clauses: Clause[]) => void): Clause[] {
  const compared = term.values.map((raw) => {
    const match = /^([<>])?(.*)$/.exec(raw)!;
    return { comparator: match[1] === '>' ? 'gt' : match[1] === '<' ? 'lt' : undefined, value: match[2]!.toUpperCase() };
  });
  const comparisons = compared.filter((c) => c.comparator);
  if (comparisons.length === 0) {
    add(
      term,
      enumClauses(
        compared.map((c) => ({ field: 'revision.value', value: c.value, display: c.value })),
        term.negated,
      ),
    );
    return [];
  }
  if (term.negated || compared.length > 1) throw syntaxError('a revision comparison (rev:>A, rev:<C) takes one value and no !', term.at);
  const { comparator, value } = comparisons[0]!;
  const problem = validateRevision(vocabulary.revisionScheme, value);
  if (problem) throw syntaxError(problem, term.at);
  return [{ field: 'revision.value', comparator: comparator!, value }];
}

function dateClauses(term: QueryTerm, field: 'createdAt' | 'updatedAt', now: Date): Clause[] {
  if (term.negated || term.values.length > 1) throw syntaxError(`${term.key}: takes one date, range or comparison, without !`, term.at);
  const raw = term.values[0]!;
  const period = (text: string) => {
    const found = parseCompactPeriod(text, now);
    if (!found) throw syntaxError(`"${text}" is not a date (YYYY-MM-DD, YYYY-MM, YYYY, today, yesterday)`, term.at);
    return found;
  };
  const range = /^(.+)\.\.(.+)$/.exec(raw);
  if (range) return [...periodClauses(field, 'since', period(range[1]!)), ...periodClauses(field, 'until', period(range[2]!))];
  const compare = /^(>=|<=|>|<)(.+)$/.exec(raw);
  if (!compare) return periodClauses(field, 'during', period(raw));
  const relation = ({ '>=': 'since', '<=': 'until', '>': 'after', '<': 'before' } as const)[compare[1] as '>=' | '<=' | '>' | '<'];
  return periodClauses(field, relation, period(compare[2]!));
}
