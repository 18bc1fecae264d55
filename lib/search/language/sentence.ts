import { validateRevision } from '../../config/revisionScheme.js';
import type { Clause, ClauseField, ClauseSet, NotFoundEntity } from './clauses.js';
import { addDays, dayPeriod, isDay, monthOf, monthPeriod, periodClauses, shiftedStart, today, weekStart, yearPeriod, type DateRelation, type Period } from './dates.js';
import { resolveCategory, resolveLabel, resolveStatus, resolveType, resolveUser, type Resolved } from './resolve.js';
import type { Vocabulary } from './vocabulary.js';
import { combineItems, type Item, type Joiner } from './join.js';
import { changeVerbs, createVerbs, dateRelations, fillers, greaterWords, labelCues, lessWords, negated, negations, numberWords, revisionCues, units, tokenize, type Token } from './words.js';

/**
 * The default filter-language model: a deterministic reading of a sentence over the library's own
 * vocabulary (schema/README.md, "Search"). It scans left to right; cue words (by, label, status, rev, since, named,
 * not, or, ...) say how to read what follows, vocabulary names (statuses, categories, types, labels) stand
 * for themselves, and any other word that is not a filler is a name substring.
 */
export interface SentenceReading {
  clauses: ClauseSet;
  notFound: NotFoundEntity[];
}

class SentenceReader {
  private i = 0;
  private readonly items: Item[] = [];
  private readonly notFound: NotFoundEntity[] = [];
  private negate = false;
  private joiner: Joiner | null = null;
  private dateField: 'createdAt' | 'updatedAt' = 'createdAt';
  private userField: 'createdBy.id' | 'updatedBy.id' = 'createdBy.id';

  constructor(
    private readonly tokens: Token[],
    private readonly vocabulary: Vocabulary,
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }

  private word(offset = 0): string {
    return this.peek(offset)?.lower ?? '';
  }

  private push(clause: Clause, options: { leftover?: boolean; negatable?: boolean } = {}): void {
    let result = clause;
    if (this.negate && options.negatable !== false) {
      if (typeof clause.value === 'boolean') result = { ...clause, value: !clause.value };
      else if (clause.field === 'state') result = { ...clause, value: clause.value === 'RELEASED' ? 'MODIFIED' : 'RELEASED' };
      else if (clause.field === 'description' && clause.comparator === 'contains') result = { ...clause, comparator: 'doesNotContain' };
      else if (negated[clause.comparator]) result = { ...clause, comparator: negated[clause.comparator]! };
    }
    this.items.push({ clause: result, joiner: this.joiner, leftover: options.leftover });
    this.negate = false;
    this.joiner = null;
  }

  /**
   * A name the library does not know keeps its condition, on the raw name, so that it matches nothing
   * (and its negation everything), exactly as the key:value syntax does; it is reported as not found.
   * Dropping it would silently widen the search.
   */
  private keepUnknown(entity: NotFoundEntity, field: ClauseField): void {
    this.notFound.push(entity);
    this.push({ field, comparator: 'eq', value: entity.name, display: [entity.name] });
  }

  private pushResolved(resolved: Resolved): void {
    this.push({ field: resolved.field, comparator: 'eq', value: resolved.value, display: [resolved.display] });
  }

  /** The longest phrase (up to 4 words) from the current token that `resolve` knows, consumed. */
  private phrase<T>(resolve: (text: string) => T | undefined, offset = 0): T | undefined {
    for (let length = 4; length >= 1; length -= 1) {
      const words = this.tokens.slice(this.i + offset, this.i + offset + length);
      if (words.length < length || words.some((t) => t.comma || t.quoted)) continue;
      const found = resolve(words.map((t) => t.text).join(' '));
      if (found !== undefined) {
        this.i += offset + length;
        return found;
      }
    }
    return undefined;
  }

  read(): SentenceReading {
    while (this.i < this.tokens.length) this.step();
    return { clauses: combineItems(this.items), notFound: this.notFound };
  }

  private step(): void {
    const token = this.peek()!;
    const w = token.lower;
    if (token.comma) return this.advance(() => (this.joiner = ','));
    if (token.quoted) return this.advance(() => this.push({ field: 'name', comparator: 'contains', value: token.text }));
    if (w === 'and' || w === '&') return this.advance(() => (this.joiner = this.joiner === 'or' ? 'or' : 'and'));
    if (w === 'or') return this.advance(() => (this.joiner = 'or'));
    if (w === 'but' && this.word(1) === 'not') {
      this.i += 2;
      this.negate = true;
      return;
    }
    if (negations.has(w)) return this.advance(() => (this.negate = true));
    if (createVerbs.has(w) || changeVerbs.has(w)) {
      const created = createVerbs.has(w);
      this.dateField = created ? 'createdAt' : 'updatedAt';
      this.userField = created ? 'createdBy.id' : 'updatedBy.id';
      this.i += 1;
      return;
    }
    if (this.readDate() || this.readUser() || this.readCue() || this.readRevision() || this.readFlag() || this.readVocabulary()) return;
    if (w === 'mine' || (w === 'my' && !['pinned', 'bookmarked', 'favorite', 'favorites', 'favourites', 'starred'].includes(this.word(1)))) {
      return this.advance(() => this.push({ field: 'createdBy.id', comparator: 'eq', value: this.vocabulary.userId, display: ['me'] }));
    }
    if (/^[a-z0-9]+(?:[-_][a-z0-9]+)+$/i.test(token.text) && /\d/.test(token.text) && !isDay(token.text)) {
      return this.advance(() => this.push({ field: 'identifier.displayValue', comparator: 'contains', value: token.text }));
    }
    if (fillers.has(w) || !/[a-z0-9]/i.test(w)) return this.advance(() => undefined);
    const stem = w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? token.text.slice(0, -1) : token.text;
    this.advance(() => this.push({ field: 'name', comparator: 'contains', value: stem }, { leftover: true }));
  }

  private advance(action: () => void): void {
    this.i += 1;
    action();
  }

  /** "by Ada", "by me", "Ada's". */
  private readUser(): boolean {
    const token = this.peek()!;
    if (token.possessive) {
      const user = resolveUser(this.vocabulary, token.text);
      if (!user) return false;
      this.i += 1;
      this.push({ field: 'createdBy.id', comparator: 'eq', value: user.id, display: [user.display] });
      return true;
    }
    if (token.lower !== 'by') return false;
    this.i += 1;
    const field = this.userField;
    const user = this.phrase((text) => resolveUser(this.vocabulary, text));
    if (user) {
      this.push({ field, comparator: 'eq', value: user.id, display: [user.display] });
      return true;
    }
    const name = this.peek();
    if (name && !name.comma) {
      // An unknown name: the capitalised words that follow (Bob Smith), or the next word.
      const words = [name.text];
      this.i += 1;
      while (/^[A-Z]/.test(name.text) && this.peek() && /^[A-Z]/.test(this.peek()!.text) && !this.peek()!.comma) {
        words.push(this.peek()!.text);
        this.i += 1;
      }
      this.keepUnknown({ type: 'user', name: words.join(' ') }, field);
    }
    return true;
  }

  /** label X, status X, category X, type X, named X, described as X, cpn X. */
  private readCue(): boolean {
    const w = this.word();
    const next = () => {
      this.i += 1;
      while (['as', 'is', 'of', 'with', 'the', ':', '='].includes(this.word())) this.i += 1;
    };
    const entity = (type: NotFoundEntity['type'], field: ClauseField, resolve: (text: string) => Resolved | undefined) => {
      next();
      const found = this.phrase(resolve);
      if (found) {
        this.pushResolved(found);
        this.readAlternatives(resolve);
      } else if (this.peek() && !this.peek()!.comma && !['and', 'or'].includes(this.word())) {
        const name = this.peek()!.text;
        this.i += 1;
        this.keepUnknown({ type, name }, field);
      }
      return true;
    };
    if (labelCues.has(w)) return entity('label', 'labels.name', (t) => resolveLabel(this.vocabulary, t));
    if (w === 'status' || w === 'statuses') return entity('status', 'status.id', (t) => resolveStatus(this.vocabulary, t));
    if (w === 'category' || w === 'categories') return entity('category', 'category.id', (t) => resolveCategory(this.vocabulary, t));
    if (w === 'type' || w === 'types') return entity('type', 'category.type', resolveType);
    if (w === 'cpn' || w === 'pn' || (w === 'part' && this.word(1) === 'number')) {
      this.i += w === 'part' ? 1 : 0;
      next();
      const value = this.peek();
      if (value) this.advance(() => this.push({ field: 'identifier.displayValue', comparator: 'contains', value: value.text }));
      return true;
    }
    const described = w === 'described' || w === 'description' || w === 'mentioning' || w === 'mentions';
    const named = ['named', 'called', 'name', 'containing', 'contains', 'matching'].includes(w);
    if (!described && !named) return false;
    next();
    while (['contains', 'containing', 'like', 'matching', 'matches'].includes(this.word())) this.i += 1;
    let shape: 'contains' | 'starts' | 'ends' = 'contains';
    if (['starting', 'starts', 'beginning', 'begins', 'ending', 'ends'].includes(this.word())) {
      shape = ['ending', 'ends'].includes(this.word()) ? 'ends' : 'starts';
      this.i += 1;
      if (this.word() === 'with') this.i += 1;
    }
    const value = this.peek();
    if (!value || value.comma) return true;
    this.i += 1;
    const field = described ? 'description' : 'name';
    if (shape === 'contains' && !value.text.includes('*')) this.push({ field, comparator: 'contains', value: value.text });
    else {
      const pattern = value.text.replaceAll('*', '%');
      this.push({ field, comparator: 'like', value: shape === 'starts' ? `${pattern}%` : shape === 'ends' ? `%${pattern}` : pattern });
    }
    return true;
  }

  /** "... or Y" after a cue value: more values of the same kind. */
  private readAlternatives(resolve: (text: string) => Resolved | undefined): void {
    while ((this.word() === 'or' || this.peek()?.comma) && this.peek(1)) {
      const saved = this.i;
      const joiner = this.word() === 'or' ? 'or' : ',';
      this.i += 1;
      if (this.word() === 'or') this.i += 1;
      const found = this.phrase(resolve);
      if (!found) {
        this.i = saved;
        return;
      }
      this.joiner = joiner;
      this.pushResolved(found);
    }
  }

  /** rev B, revision above A, revision < C, rev A or B. */
  private readRevision(): boolean {
    if (!revisionCues.has(this.word())) return false;
    this.i += 1;
    let comparator = 'eq';
    while (this.peek()) {
      const w = this.word();
      if (greaterWords.has(w)) comparator = 'gt';
      else if (lessWords.has(w)) comparator = 'lt';
      else if (w === 'not') this.negate = true;
      else if (!['than', 'to', 'is', 'at', 'of', 'then'].includes(w)) break;
      this.i += 1;
    }
    const values: string[] = [];
    for (;;) {
      const token = this.peek();
      if (!token || token.comma) break;
      const value = token.text.toUpperCase();
      if (validateRevision(this.vocabulary.revisionScheme, value) !== null) {
        if (values.length === 0) {
          this.i += 1;
          this.keepUnknown({ type: 'revision', name: token.text }, 'revision.value');
        }
        break;
      }
      values.push(value);
      this.i += 1;
      if (comparator !== 'eq' || this.word() !== 'or' || !this.peek(1) || validateRevision(this.vocabulary.revisionScheme, this.peek(1)!.text.toUpperCase()) !== null) break;
      this.i += 1;
    }
    if (values.length > 1) this.push({ field: 'revision.value', comparator: 'in', value: values });
    else if (values.length === 1) this.push({ field: 'revision.value', comparator, value: values[0]! }, { negatable: comparator === 'eq' });
    this.negate = false;
    return true;
  }

  /** pinned, bookmarked, archived, released, unreleased. */
  private readFlag(): boolean {
    const w = this.word();
    const flag: Record<string, [ClauseField, boolean]> = {
      pinned: ['isPinned', true],
      unpinned: ['isPinned', false],
      bookmarked: ['isBookmarked', true],
      favorite: ['isBookmarked', true],
      favorites: ['isBookmarked', true],
      favourites: ['isBookmarked', true],
      starred: ['isBookmarked', true],
      archived: ['isArchived', true],
    };
    if (flag[w]) {
      const [field, value] = flag[w];
      this.advance(() => this.push({ field, comparator: 'eq', value }));
      return true;
    }
    if (w === 'unreleased' || (w === 'released' && !this.vocabulary.statuses.some((st) => st.name.toLowerCase() === 'released' || st.id === 'released'))) {
      this.advance(() => this.push({ field: 'state', comparator: 'eq', value: w === 'released' ? 'RELEASED' : 'MODIFIED' }));
      return true;
    }
    return false;
  }

  /** Status, category and type names, lifecycle words and labels, longest phrase first. */
  private readVocabulary(): boolean {
    const named = (t: string) => {
      const status = resolveStatus(this.vocabulary, t);
      return status?.field === 'status.id' ? status : undefined;
    };
    // Named statuses first, lifecycle words (design, production, ...) only where no status has the name.
    const resolvers: ((text: string) => Resolved | undefined)[] = [
      named,
      (t) => resolveCategory(this.vocabulary, t),
      resolveType,
      (t) => resolveStatus(this.vocabulary, t),
      (t) => resolveLabel(this.vocabulary, t),
    ];
    const found = this.phrase((text) => {
      if (fillers.has(text.toLowerCase())) return undefined;
      for (const resolve of resolvers) {
        const resolved = resolve(text);
        if (resolved) return resolved;
      }
      return undefined;
    });
    if (!found) return false;
    this.pushResolved(found);
    return true;
  }

  /** since last March, before 2024, in March 2025, between 2025-01-01 and 2025-02-01, today, last 7 days, 3 days ago. */
  private readDate(): boolean {
    const start = this.i;
    const now = today(this.vocabulary.now);
    const first = this.word();
    const ranged = first === 'between';
    let relation: DateRelation | undefined = dateRelations[first];
    if (first === 'prior' && this.word(1) === 'to') {
      relation = 'before';
      this.i += 1;
    }
    if (relation || ranged) this.i += 1;
    if (this.word() === 'the') this.i += 1;
    const relative = this.readRelative(now);
    if (relative) return this.pushDates(periodClauses(this.dateField, relative.since ? 'since' : (relation ?? 'during'), relative.period));
    const period = relation || ranged ? this.readPeriod(now) : undefined;
    if (!period) {
      this.i = start;
      return false;
    }
    const rangeEnd = ranged ? this.word() === 'and' : first === 'from' && ['to', 'until', 'till', 'through'].includes(this.word());
    if (rangeEnd) {
      const before = this.i;
      this.i += 1;
      const last = this.readPeriod(now);
      if (last) return this.pushDates([...periodClauses(this.dateField, 'since', period), ...periodClauses(this.dateField, 'until', last)]);
      this.i = before;
    }
    return this.pushDates(periodClauses(this.dateField, ranged ? 'during' : relation!, period));
  }

  private pushDates(clauses: Clause[]): true {
    const joiner = this.joiner;
    clauses.forEach((clause, index) => {
      this.joiner = index === 0 ? joiner : 'and';
      this.push(clause, { negatable: false });
    });
    return true;
  }

  /** today, yesterday, recently, this/last week|month|year, last March, last N days, N days ago (consumed when found). */
  private readRelative(now: string): { period: Period; since: boolean } | undefined {
    const w = this.word();
    const count = (text: string) => Number(text) || numberWords[text];
    if (w === 'today' || w === 'yesterday') {
      this.i += 1;
      return { period: dayPeriod(w === 'today' ? now : addDays(now, -1)), since: false };
    }
    if (w === 'recently' || w === 'recent') {
      this.i += 1;
      return { period: dayPeriod(addDays(now, -7)), since: true };
    }
    const agoUnit = units[this.word(1)];
    if (count(w) && agoUnit && this.word(2) === 'ago') {
      this.i += 3;
      return { period: dayPeriod(shiftedStart(now, agoUnit, count(w)!)), since: false };
    }
    if (!['this', 'last', 'past', 'previous'].includes(w)) return undefined;
    const spanUnit = units[this.word(2)];
    if (w !== 'this' && count(this.word(1)) && spanUnit) {
      const n = count(this.word(1))!;
      this.i += 3;
      return { period: dayPeriod(shiftedStart(now, spanUnit, n)), since: true };
    }
    const unit = units[this.word(1)];
    if (unit && unit !== 'day') {
      this.i += 2;
      const current = unit === 'week' ? weekStart(now) : unit === 'month' ? `${now.slice(0, 7)}-01` : `${now.slice(0, 4)}-01-01`;
      if (w === 'this') return { period: { start: current, end: now }, since: false };
      return { period: { start: shiftedStart(current, unit, 1), end: addDays(current, -1) }, since: false };
    }
    const month = monthOf(this.word(1));
    if (month !== undefined && (w === 'last' || w === 'this')) {
      this.i += 2;
      const year = Number(now.slice(0, 4));
      return { period: monthPeriod(w === 'this' || month < Number(now.slice(5, 7)) - 1 ? year : year - 1, month), since: false };
    }
    return undefined;
  }

  /** 2025-03-01, 2025-03, 2025, March, March 2025, March 5(th)(, 2025), 5 March (2025), or a relative period. */
  private readPeriod(now: string): Period | undefined {
    const relative = this.readRelative(now);
    if (relative) return relative.period;
    const w = this.word();
    let period: Period | undefined;
    if (isDay(w)) period = dayPeriod(w);
    else if (/^\d{4}-\d{2}$/.test(w) && Number(w.slice(5, 7)) >= 1 && Number(w.slice(5, 7)) <= 12) period = monthPeriod(Number(w.slice(0, 4)), Number(w.slice(5, 7)) - 1);
    else if (/^(19|20)\d{2}$/.test(w)) period = yearPeriod(Number(w));
    if (period) {
      this.i += 1;
      return period;
    }
    const dayNumber = (text: string) => (/^\d{1,2}(st|nd|rd|th)?$/.test(text) ? Number.parseInt(text, 10) : undefined);
    let month = monthOf(w);
    let day: number | undefined;
    let used = 1;
    if (month === undefined && dayNumber(w) !== undefined && monthOf(this.word(1)) !== undefined) {
      day = dayNumber(w);
      month = monthOf(this.word(1));
      used = 2;
    } else if (month !== undefined && dayNumber(this.word(1)) !== undefined) {
      day = dayNumber(this.word(1));
      used = 2;
    }
    if (month === undefined) return undefined;
    const yearAt = this.peek(used)?.comma ? used + 1 : used;
    const explicitYear = /^(19|20)\d{2}$/.test(this.word(yearAt)) ? Number(this.word(yearAt)) : undefined;
    this.i += explicitYear ? yearAt + 1 : used;
    const thisYear = Number(now.slice(0, 4));
    const currentMonth = Number(now.slice(5, 7)) - 1;
    // Without a year: the most recent such month (or day) up to today.
    const year = explicitYear ?? (month < currentMonth || (month === currentMonth && (day ?? 1) <= Number(now.slice(8, 10))) ? thisYear : thisYear - 1);
    return day === undefined ? monthPeriod(year, month) : dayPeriod(new Date(Date.UTC(year, month, day)).toISOString().slice(0, 10));
  }
}

export function readSentence(sentence: string, vocabulary: Vocabulary): SentenceReading {
  return new SentenceReader(tokenize(sentence), vocabulary).read();
}
