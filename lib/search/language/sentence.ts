import { validateRevision } from '../../config/revisionScheme.js';
import type { Clause, ClauseField, ClauseSet, NotFoundEntity } from './clauses.js';
import { readDateClauses } from './datePhrases.js';
import { isDay } from './dates.js';
import { resolveCategory, resolveLabel, resolveStatus, resolveType, resolveUser, type Resolved } from './resolve.js';
import type { Vocabulary } from './vocabulary.js';
import { combineItems, type Item, type Joiner } from './join.js';
import { TokenCursor } from './tokenCursor.js';
import { changeVerbs, createVerbs, fillers, greaterWords, labelCues, lessWords, negated, negations, revisionCues, tokenize, type Token } from './words.js';

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

class SentenceReader extends TokenCursor {
  private readonly items: Item[] = [];
  private readonly notFound: NotFoundEntity[] = [];
  private negate = false;
  private joiner: Joiner | null = null;
  private dateField: 'createdAt' | 'updatedAt' = 'createdAt';
  private userField: 'createdBy.id' | 'updatedBy.id' = 'createdBy.id';

  constructor(
    tokens: Token[],
    private readonly vocabulary: Vocabulary,
  ) {
    super(tokens);
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

  /** A date phrase (datePhrases.ts) on the date field the verbs chose. */
  private readDate(): boolean {
    const clauses = readDateClauses(this, this.vocabulary.now, this.dateField);
    return clauses ? this.pushDates(clauses) : false;
  }

  private pushDates(clauses: Clause[]): true {
    const joiner = this.joiner;
    clauses.forEach((clause, index) => {
      this.joiner = index === 0 ? joiner : 'and';
      this.push(clause, { negatable: false });
    });
    return true;
  }
}

export function readSentence(sentence: string, vocabulary: Vocabulary): SentenceReading {
  return new SentenceReader(tokenize(sentence), vocabulary).read();
}
