import type { ComponentPage, Pagination } from '../query.js';
import { InvalidInputError } from '../../errors.js';
import type { ComponentRecord } from '../../store/component.js';
import { defaultOrder, type Order } from '../cursor.js';
import { validateLikePatterns, type AdvancedFilter } from '../filter.js';
import { componentPage, filterContext, findComponentsByFilter, pageRequest, type SearchScope } from '../service.js';
import { interpret, type FilterValue, type NotFoundEntity } from './clauses.js';
import { compileQuery, parseQuery, vocabularyNeeded } from './querySyntax.js';
import { readSentence, type SentenceReading } from './sentence.js';
import { loadVocabulary, type Vocabulary } from './vocabulary.js';

/**
 * The filter-language model port of architecture.md: the default is the deterministic reader of
 * sentence.ts; a hosted model can be an adapter that returns the same reading (clauses over the same
 * vocabulary), chosen by configuration. Nothing requires one.
 */
export interface FilterLanguageModel {
  read(query: string, vocabulary: Vocabulary): Promise<SentenceReading>;
}

export const ruleBasedModel: FilterLanguageModel = { read: async (query, vocabulary) => readSentence(query, vocabulary) };

export interface QueryFilterResult {
  filterInput: AdvancedFilter;
  filterValues: FilterValue[];
  matchMode: 'all' | 'any';
  notFoundEntities: NotFoundEntity[];
}

/** Characters of a key:value query (filterWithQuery, buildFilterFromQuery). */
export const maxQueryLength = 1000;

/** component.buildFilterFromQuery: the advanced filter a key:value query stands for. */
export async function buildFilterFromQuery(scope: SearchScope, query: string): Promise<QueryFilterResult> {
  // Refused before any work: 500,000 one-letter terms (1 MB) took over 10 s of CPU to compile.
  if (query.length > maxQueryLength) throw new InvalidInputError(`query is at most ${maxQueryLength} characters (got ${query.length})`, { field: 'query', limit: maxQueryLength });
  const terms = parseQuery(query);
  const vocabulary = await loadVocabulary(scope, vocabularyNeeded(terms));
  const { clauses, notFound } = compileQuery(terms, vocabulary);
  const { filter, filterValues, matchMode } = interpret(clauses);
  validateLikePatterns(filter);
  return { filterInput: filter, filterValues, matchMode, notFoundEntities: notFound };
}

/** component.filterWithQuery: the key:value query run as component.filter. */
export async function filterWithQuery(scope: SearchScope, query: string, pagination: Pagination | null | undefined): Promise<ComponentPage> {
  const { filterInput } = await buildFilterFromQuery(scope, query);
  return findComponentsByFilter(scope, { advanced: filterInput }, pagination);
}

export interface AiFilterResult {
  filterInput: AdvancedFilter | null;
  filterValues: FilterValue[];
  matchMode: 'all' | 'any';
  success: boolean;
  error: string | null;
  notFoundEntities: NotFoundEntity[];
  interpretation: string | null;
}

function checkQuery(query: string | undefined): string {
  // The spec declares the input nullable; a missing one is the caller's mistake, not a server error.
  if (query === undefined) throw new InvalidInputError('input is required: { query: "..." }', { field: 'input' });
  const trimmed = query.trim();
  if (trimmed.length < 3 || trimmed.length > 500) throw new InvalidInputError(`query must be 3 to 500 characters (got ${trimmed.length})`, { field: 'query' });
  return trimmed;
}

/** component.buildFilterWithAI: a sentence over the library's vocabulary, read by the filter-language model. */
export async function buildFilterWithAI(scope: SearchScope, query: string | undefined, model: FilterLanguageModel = ruleBasedModel, now = new Date()): Promise<AiFilterResult> {
  const sentence = checkQuery(query);
  const vocabulary = await loadVocabulary(scope, new Set(['config', 'labels', 'users']), now);
  const reading = await model.read(sentence, vocabulary);
  const clauseCount = reading.clauses.and.length + reading.clauses.or.length;
  if (clauseCount === 0) {
    const missing = reading.notFound.map((e) => `${e.type} "${e.name}"`).join(', ');
    return {
      filterInput: null,
      filterValues: [],
      matchMode: 'all',
      success: false,
      error: missing ? `Not in this library: ${missing}` : 'No status, category, type, label, user, revision, date or name could be read from the query',
      notFoundEntities: reading.notFound,
      interpretation: null,
    };
  }
  const { filter, filterValues, matchMode, interpretation } = interpret(reading.clauses, reading.notFound);
  validateLikePatterns(filter);
  return { filterInput: filter, filterValues, matchMode, success: true, error: null, notFoundEntities: reading.notFound, interpretation };
}

export interface FilterWithAiResult extends Omit<AiFilterResult, 'filterInput'> {
  components: ComponentRecord[];
  totalCount: number;
  /** The advanced filter with pagination { first: limit, orderBy }: component.filter returns the same first page. */
  filterInput: (AdvancedFilter & { pagination: { first: number; orderBy: Order } }) | null;
}

/** component.filterWithAI: buildFilterWithAI, then the first `limit` matches (no cursors; page through component.filter). */
export async function filterWithAI(
  scope: SearchScope,
  input: { query: string; limit?: number | null; orderBy?: Order | null } | null | undefined,
  model: FilterLanguageModel = ruleBasedModel,
  now = new Date(),
): Promise<FilterWithAiResult> {
  if (!input) throw new InvalidInputError('input is required: { query: "...", limit, orderBy }', { field: 'input' });
  const limit = input.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new InvalidInputError('limit must be 1 to 100', { field: 'limit' });
  const built = await buildFilterWithAI(scope, input.query, model, now);
  if (!built.success || !built.filterInput) return { ...built, filterInput: null, components: [], totalCount: 0 };
  const pagination = { first: limit, orderBy: input.orderBy ?? defaultOrder };
  const filter = { advanced: built.filterInput };
  const context = await filterContext(scope, filter);
  const page = await componentPage(scope, await scope.index.find({ filter, context, ...pageRequest(pagination) }));
  return { ...built, filterInput: { ...built.filterInput, pagination }, components: page.edges.map((edge) => edge.node), totalCount: page.totalCount };
}
