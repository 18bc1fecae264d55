import { describe, expect, it } from 'vitest';
import { defaultCategories } from '../../lib/config/categories.js';
import { defaultRevisionScheme } from '../../lib/config/revisionScheme.js';
import { defaultStatuses } from '../../lib/config/statuses.js';
import { interpret } from '../../lib/search/language/clauses.js';
import { readSentence } from '../../lib/search/language/sentence.js';
import type { Vocabulary } from '../../lib/search/language/vocabulary.js';

/** The default configuration, three labels, two colleagues and the caller; "now" is Sunday 2026-11-22. */
const vocabulary: Vocabulary = {
  statuses: defaultStatuses.statuses.map(({ id, name, mapsTo }) => ({ id, name, mapsTo })),
  categories: defaultCategories.categories.map(({ id, name, type }) => ({ id, name, type })),
  labels: ['rohs', 'reach', 'smd'],
  users: [
    { id: 'u-ada', display: 'Ada Lovelace', names: ['ada lovelace', 'ada', 'lovelace', 'ada@example.com'] },
    { id: 'u-grace', display: 'Grace Hopper', names: ['grace hopper', 'grace', 'hopper', 'grace@example.com'] },
    { id: 'u-me', display: 'Me Caller', names: ['me caller'] },
  ],
  revisionScheme: defaultRevisionScheme,
  userId: 'u-me',
  now: new Date('2026-11-22T10:00:00Z'),
};

const type = (op: string, value: unknown) => ({ category: { type: { [op]: value } } });
const category = (op: string, value: unknown) => ({ category: { id: { [op]: value } } });
const status = (op: string, value: unknown) => ({ status: { id: { [op]: value } } });
const label = (op: string, value: unknown) => ({ labels: { name: { [op]: value } } });
const created = (op: string, value: string) => ({ createdAt: { [op]: value } });
const updated = (op: string, value: string) => ({ updatedAt: { [op]: value } });
const released = { state: { eq: 'RELEASED' } };

interface Case {
  sentence: string;
  and?: object[];
  or?: object[];
  notFound?: { type: string; name: string }[];
}

const cases: Case[] = [
  {
    sentence: 'released resistors changed by Ada since last March',
    and: [released, category('eq', 'resistor'), { updatedBy: { id: { eq: 'u-ada' } } }, updated('rangeStart', '2026-03-01')],
  },
  { sentence: 'assemblies in production or maintenance without label rohs', and: [type('eq', 'ASSEMBLY'), status('in', ['production', 'maintenance']), label('neq', 'rohs')] },
  { sentence: 'resistors and capacitors', and: [category('in', ['resistor', 'capacitor'])] },
  {
    sentence: 'parts created by Grace last week',
    and: [type('eq', 'PART'), { createdBy: { id: { eq: 'u-grace' } } }, created('rangeStart', '2026-11-09'), created('rangeEnd', '2026-11-15')],
  },
  // A name the library does not know keeps its condition (matching nothing) and is reported.
  { sentence: 'documents modified by Bob', and: [type('eq', 'DOCUMENT'), { updatedBy: { id: { eq: 'Bob' } } }], notFound: [{ type: 'user', name: 'Bob' }] },
  { sentence: 'parts by Bob that are not obsolete', and: [type('eq', 'PART'), { createdBy: { id: { eq: 'Bob' } } }, status('neq', 'obsolete')], notFound: [{ type: 'user', name: 'Bob' }] },
  { sentence: 'parts not by Bob', and: [type('eq', 'PART'), { createdBy: { id: { neq: 'Bob' } } }], notFound: [{ type: 'user', name: 'Bob' }] },
  { sentence: 'obsolete parts not tagged reach', and: [status('eq', 'obsolete'), type('eq', 'PART'), label('neq', 'reach')] },
  { sentence: 'revision above B', and: [{ revision: { value: { gt: 'B' } } }] },
  { sentence: 'rev < C drawings', and: [{ revision: { value: { lt: 'C' } } }, category('eq', 'drawing')] },
  { sentence: 'revision A or B', and: [{ revision: { value: { in: ['A', 'B'] } } }] },
  { sentence: 'rev 1.2.3', and: [{ revision: { value: { eq: '1.2.3' } } }], notFound: [{ type: 'revision', name: '1.2.3' }] },
  { sentence: 'pinned capacitors', and: [{ isPinned: { eq: true } }, category('eq', 'capacitor')] },
  { sentence: 'my bookmarked parts', and: [{ isBookmarked: { eq: true } }, type('eq', 'PART')] },
  { sentence: 'pinned or bookmarked', or: [{ isPinned: { eq: true } }, { isBookmarked: { eq: true } }] },
  { sentence: 'not pinned parts', and: [{ isPinned: { eq: false } }, type('eq', 'PART')] },
  { sentence: 'archived connectors', and: [{ isArchived: { eq: true } }, category('eq', 'connector')] },
  { sentence: 'components created today', and: [created('on', '2026-11-22')] },
  { sentence: 'changed yesterday', and: [updated('on', '2026-11-21')] },
  { sentence: 'created in the last 30 days', and: [created('rangeStart', '2026-10-23')] },
  { sentence: 'parts updated this month', and: [type('eq', 'PART'), updated('rangeStart', '2026-11-01'), updated('rangeEnd', '2026-11-22')] },
  { sentence: 'created in 2025', and: [created('rangeStart', '2025-01-01'), created('rangeEnd', '2025-12-31')] },
  { sentence: 'created before 2025-06-01', and: [created('before', '2025-06-01')] },
  { sentence: 'created after March 5, 2025', and: [created('after', '2025-03-05')] },
  { sentence: 'created between 2025-01-01 and 2025-02-15', and: [created('rangeStart', '2025-01-01'), created('rangeEnd', '2025-02-15')] },
  { sentence: 'changed 3 days ago', and: [updated('on', '2026-11-19')] },
  { sentence: 'created in March 2025', and: [created('rangeStart', '2025-03-01'), created('rangeEnd', '2025-03-31')] },
  { sentence: 'created from 2024-05-01 to 2024-06-30', and: [created('rangeStart', '2024-05-01'), created('rangeEnd', '2024-06-30')] },
  { sentence: 'parts named bracket', and: [type('eq', 'PART'), { name: { contains: 'bracket' } }] },
  { sentence: 'connectors called "USB-C header"', and: [category('eq', 'connector'), { name: { contains: 'USB-C header' } }] },
  { sentence: 'parts whose name starts with RES', and: [type('eq', 'PART'), { name: { like: 'RES%' } }] },
  { sentence: 'documents described as "assembly instructions"', and: [type('eq', 'DOCUMENT'), { description: { contains: 'assembly instructions' } }] },
  { sentence: 'cpn 100-00042', and: [{ identifier: { displayValue: { contains: '100-00042' } } }] },
  { sentence: '100-00042', and: [{ identifier: { displayValue: { contains: '100-00042' } } }] },
  { sentence: '10k 0603 resistors', and: [{ name: { contains: '10k' } }, { name: { contains: '0603' } }, category('eq', 'resistor')] },
  { sentence: 'status prototype or production', and: [status('in', ['prototype', 'production'])] },
  { sentence: 'status frozen', and: [status('eq', 'frozen')], notFound: [{ type: 'status', name: 'frozen' }] },
  { sentence: 'category diodes', and: [category('eq', 'diodes')], notFound: [{ type: 'category', name: 'diodes' }] },
  { sentence: 'label rohs or reach', or: [label('eq', 'rohs'), label('eq', 'reach')] },
  { sentence: 'labeled unobtainium', and: [label('eq', 'unobtainium')], notFound: [{ type: 'label', name: 'unobtainium' }] },
  { sentence: 'resistors created by me', and: [category('eq', 'resistor'), { createdBy: { id: { eq: 'u-me' } } }] },
  { sentence: 'mine', and: [{ createdBy: { id: { eq: 'u-me' } } }] },
  { sentence: "Ada's assemblies", and: [{ createdBy: { id: { eq: 'u-ada' } } }, type('eq', 'ASSEMBLY')] },
  { sentence: 'unreleased PCB assemblies', and: [{ state: { eq: 'MODIFIED' } }, category('eq', 'pcba')] },
  { sentence: 'design or prototype parts except drawings', and: [status('in', ['design', 'prototype']), type('eq', 'PART'), category('neq', 'drawing')] },
  { sentence: 'parts in development', and: [type('eq', 'PART'), { status: { mapsTo: { eq: 'DEVELOPMENT' } } }] },
  {
    sentence: 'integrated circuits created since 2026-01-01 by Grace Hopper',
    and: [category('eq', 'integrated-circuit'), created('rangeStart', '2026-01-01'), { createdBy: { id: { eq: 'u-grace' } } }],
  },
  { sentence: 'show me all the drawings please', and: [category('eq', 'drawing')] },
  {
    sentence: 'assemblies or documents released this year',
    and: [type('in', ['ASSEMBLY', 'DOCUMENT']), released, created('rangeStart', '2026-01-01'), created('rangeEnd', '2026-11-22')],
  },
  { sentence: 'smd capacitors', and: [label('eq', 'smd'), category('eq', 'capacitor')] },
  { sentence: 'fasteners changed by ada@example.com in the past 2 weeks', and: [category('eq', 'fastener'), { updatedBy: { id: { eq: 'u-ada' } } }, updated('rangeStart', '2026-11-08')] },
];

describe('natural-language filters (rule-based model)', () => {
  it('covers at least 30 sentences', () => expect(cases.length).toBeGreaterThanOrEqual(30));

  it.each(cases)('$sentence', ({ sentence, and, or, notFound }) => {
    const reading = readSentence(sentence, vocabulary);
    const { filter } = interpret(reading.clauses, reading.notFound);
    expect(filter).toEqual({ ...(and ? { and } : {}), ...(or ? { or } : {}) });
    expect(reading.notFound).toEqual(notFound ?? []);
  });

  it('says what it understood, with the names users know', () => {
    const reading = readSentence('assemblies in production or maintenance without label rohs changed by Ada', vocabulary);
    const result = interpret(reading.clauses, reading.notFound);
    expect(result.matchMode).toBe('all');
    expect(result.interpretation).toBe('Type is Assembly; Status is Production or Maintenance; Label is not rohs; Changed by Ada Lovelace');
    expect(result.filterValues).toContainEqual({ field: 'status.id', comparator: 'in', value: 'production, maintenance', displayLabel: 'Status is Production or Maintenance' });
  });

  it('reports any-of sentences as matchMode any', () => {
    const reading = readSentence('pinned or bookmarked', vocabulary);
    expect(interpret(reading.clauses).matchMode).toBe('any');
  });
});

describe('dates out of the calendar', () => {
  // "last 999999999 days" threw a RangeError (Invalid time value): INTERNAL_SERVER_ERROR from filterWithAI.
  it.each([
    ['parts changed in the last 999999999 days', updated('rangeStart', '0100-01-01')],
    ['parts changed in the last 1e9 days', updated('rangeStart', '0100-01-01')],
    ['parts changed in the last 300000 years', updated('rangeStart', '0100-01-01')],
    ['parts created 999999999 years ago', created('on', '0100-01-01')],
    ['parts created 99999999 weeks ago', created('on', '0100-01-01')],
    ['parts created 30000 months ago', created('on', '0100-01-01')],
    ['parts created 3 months ago', created('on', '2026-08-22')],
  ])('reads %s from the earliest day it knows at most', (sentence, condition) => {
    const { filter } = interpret(readSentence(sentence, vocabulary).clauses);
    expect(filter).toEqual({ and: [type('eq', 'PART'), condition] });
  });

  // "February 31" read as March 3, "99 March" as June 7, "0 March" as February 28: another day, silently.
  it.each(['parts created on February 31', 'parts since 99 March', 'parts created on 0 March', 'parts created on April 31st, 2025'])('refuses %s, naming the day', (sentence) => {
    expect(() => readSentence(sentence, vocabulary)).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT', message: expect.stringMatching(/not a day/) }));
  });

  it('reads the days a month has', () => {
    const { filter } = interpret(readSentence('parts created on February 28, 2025', vocabulary).clauses);
    expect(filter).toEqual({ and: [type('eq', 'PART'), created('on', '2025-02-28')] });
  });
});
