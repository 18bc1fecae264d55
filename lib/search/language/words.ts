import type { DateRelation } from './dates.js';

/** The words of the sentence language: the tokenizer and the cue words the reader (sentence.ts) knows. */

export interface Token {
  text: string;
  lower: string;
  quoted: boolean;
  comma: boolean;
  possessive: boolean;
}

export function tokenize(sentence: string): Token[] {
  const raw = sentence.match(/"[^"]*"|“[^”]*”|,|[^\s,"“”]+/g) ?? [];
  return raw.flatMap((word): Token[] => {
    if (word === ',') return [{ text: ',', lower: ',', quoted: false, comma: true, possessive: false }];
    if (/^["“]/.test(word)) {
      const text = word.slice(1, -1).trim();
      return text ? [{ text, lower: text.toLowerCase(), quoted: true, comma: false, possessive: false }] : [];
    }
    let text = word.replace(/^[(\[{]+/, '').replace(/[.;:!?)\]}]+$/, '');
    const possessive = /['’]s$/i.test(text);
    if (possessive) text = text.slice(0, -2);
    return text ? [{ text, lower: text.toLowerCase(), quoted: false, comma: false, possessive }] : [];
  });
}

export const fillers = new Set(
  `a an the all any every each some of for to at in on with that which who whose whom are is was were be been being have has had
   please show me list find get give display see want need i we you our us my your their them it its these those there here
   what where when how currently now only just also both either ones one things thing stuff items item components component
   everything anything do does did can could would should will that's thats and so as from but than them look looking search
   searching filter filtered let lets whatever kind kinds sort sorts state since after before until till during between than`.split(/\s+/),
);

export const negations = new Set(['not', 'without', 'except', 'excluding', 'exclude', 'no', 'non', "isn't", "aren't", 'never', 'neither', 'nor']);
export const createVerbs = new Set(['created', 'added', 'made', 'authored', 'new', 'introduced', 'create', 'creation']);
export const changeVerbs = new Set(['changed', 'modified', 'updated', 'edited', 'touched', 'revised', 'change', 'changes', 'update', 'updates', 'edit', 'edits']);
export const labelCues = new Set(['label', 'labels', 'labeled', 'labelled', 'tagged', 'tag', 'tags']);
export const revisionCues = new Set(['rev', 'revision', 'revisions', 'revs']);
export const greaterWords = new Set(['above', 'after', 'greater', 'higher', 'later', 'newer', 'over', 'beyond', 'past', '>']);
export const lessWords = new Set(['below', 'before', 'less', 'lower', 'earlier', 'older', 'under', 'prior', '<']);
export const dateRelations: Record<string, DateRelation> = {
  since: 'since',
  from: 'since',
  after: 'after',
  before: 'before',
  until: 'until',
  till: 'until',
  through: 'until',
  thru: 'until',
  on: 'during',
  in: 'during',
  during: 'during',
};
export const units: Record<string, 'day' | 'week' | 'month' | 'year'> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
};
export const numberWords: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, thirty: 30 };
export const negated: Record<string, string> = { eq: 'neq', in: 'notIn', contains: 'notContains', like: 'notLike' };
