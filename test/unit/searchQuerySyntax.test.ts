import { describe, expect, it } from 'vitest';
import { defaultCategories } from '../../lib/config/categories.js';
import { defaultRevisionScheme } from '../../lib/config/revisionScheme.js';
import { defaultStatuses } from '../../lib/config/statuses.js';
import { interpret } from '../../lib/search/language/clauses.js';
import { compileQuery, parseQuery, vocabularyNeeded } from '../../lib/search/language/querySyntax.js';
import type { Vocabulary } from '../../lib/search/language/vocabulary.js';

const vocabulary: Vocabulary = {
  statuses: defaultStatuses.statuses.map(({ id, name, mapsTo }) => ({ id, name, mapsTo })),
  categories: defaultCategories.categories.map(({ id, name, type }) => ({ id, name, type })),
  labels: ['RoHS', 'reach'],
  users: [{ id: 'u-ada', display: 'Ada Lovelace', names: ['ada lovelace', 'ada', 'lovelace', 'ada@example.com'] }],
  revisionScheme: defaultRevisionScheme,
  userId: 'u-me',
  now: new Date('2026-11-22T10:00:00Z'),
};

function filterOf(query: string) {
  const { clauses, notFound } = compileQuery(parseQuery(query), vocabulary);
  return { ...interpret(clauses).filter, notFound };
}

describe('key:value query syntax', () => {
  it('reads the example of the issue', () => {
    expect(filterOf('type:part status:design rev:>A name:res* label:rohs')).toEqual({
      and: [{ category: { type: { eq: 'PART' } } }, { status: { id: { eq: 'design' } } }, { revision: { value: { gt: 'A' } } }, { name: { like: 'res%' } }, { labels: { name: { eq: 'RoHS' } } }],
      notFound: [],
    });
  });

  it.each([
    ['status!:obsolete', { and: [{ status: { id: { neq: 'obsolete' } } }] }],
    ['status:design,prototype', { and: [{ status: { id: { in: ['design', 'prototype'] } } }] }],
    ['status!:design,prototype', { and: [{ status: { id: { notIn: ['design', 'prototype'] } } }] }],
    ['status:production', { and: [{ status: { id: { eq: 'production' } } }] }],
    ['lifecycle:development', { and: [{ status: { mapsTo: { eq: 'DEVELOPMENT' } } }] }],
    ['status:prod*', { and: [{ status: { name: { like: 'prod%' } } }] }],
    ['category:resistor,capacitor', { and: [{ category: { id: { in: ['resistor', 'capacitor'] } } }] }],
    ['cat:"PCB Assembly"', { and: [{ category: { id: { eq: 'pcba' } } }] }],
    ['type:assemblies,documents', { and: [{ category: { type: { in: ['ASSEMBLY', 'DOCUMENT'] } } }] }],
    ['state:released', { and: [{ state: { eq: 'RELEASED' } }] }],
    ['state!:released', { and: [{ state: { eq: 'MODIFIED' } }] }],
    ['rev:B', { and: [{ revision: { value: { eq: 'B' } } }] }],
    ['rev:a,b', { and: [{ revision: { value: { in: ['A', 'B'] } } }] }],
    ['rev!:A', { and: [{ revision: { value: { neq: 'A' } } }] }],
    ['rev:<AA', { and: [{ revision: { value: { lt: 'AA' } } }] }],
    ['label:rohs,reach', { and: [{ labels: { name: { in: ['RoHS', 'reach'] } } }] }],
    ['label!:rohs', { and: [{ labels: { name: { neq: 'RoHS' } } }] }],
    ['by:ada', { and: [{ updatedBy: { id: { eq: 'u-ada' } } }] }],
    ['createdby:me', { and: [{ createdBy: { id: { eq: 'u-me' } } }] }],
    ['created:2025-03-01', { and: [{ createdAt: { on: '2025-03-01' } }] }],
    ['created:>2025-03-01', { and: [{ createdAt: { after: '2025-03-01' } }] }],
    ['created:>=2025-03', { and: [{ createdAt: { rangeStart: '2025-03-01' } }] }],
    ['updated:<2025', { and: [{ updatedAt: { before: '2025-01-01' } }] }],
    ['updated:<=2025-02', { and: [{ updatedAt: { rangeEnd: '2025-02-28' } }] }],
    ['created:2025-01-01..2025-03-31', { and: [{ createdAt: { rangeStart: '2025-01-01' } }, { createdAt: { rangeEnd: '2025-03-31' } }] }],
    ['created:today', { and: [{ createdAt: { on: '2026-11-22' } }] }],
    ['is:pinned', { and: [{ isPinned: { eq: true } }] }],
    ['is!:bookmarked', { and: [{ isBookmarked: { eq: false } }] }],
    ['is:archived', { and: [{ isArchived: { eq: true } }] }],
    ['name:"10k resistor"', { and: [{ name: { contains: '10k resistor' } }] }],
    ['name!:res*', { and: [{ name: { notLike: 'res%' } }] }],
    ['desc:thick', { and: [{ description: { contains: 'thick' } }] }],
    ['desc!:thick', { and: [{ description: { doesNotContain: 'thick' } }] }],
    ['cpn:100-000*', { and: [{ identifier: { displayValue: { like: '100-000%' } } }] }],
    ['name:50%', { and: [{ name: { contains: '50%' } }] }],
    ['bracket "M3 screw"', { and: [{ name: { contains: 'bracket' } }, { name: { contains: 'M3 screw' } }] }],
    ['name:res,cap type:part', { and: [{ category: { type: { eq: 'PART' } } }], or: [{ name: { contains: 'res' } }, { name: { contains: 'cap' } }] }],
    ['name!:res,cap', { and: [{ name: { notContains: 'res' } }, { name: { notContains: 'cap' } }] }],
    ['STATUS:Design Type:Part', { and: [{ status: { id: { eq: 'design' } } }, { category: { type: { eq: 'PART' } } }] }],
  ])('%s', (query, expected) => {
    expect(filterOf(query)).toEqual({ ...expected, notFound: [] });
  });

  it('keeps names it cannot find, as literal conditions, and reports them', () => {
    expect(filterOf('status:frozen label:unobtainium by:bob')).toEqual({
      and: [{ status: { name: { eq: 'frozen' } } }, { labels: { name: { eq: 'unobtainium' } } }, { updatedBy: { id: { eq: 'bob' } } }],
      notFound: [
        { type: 'status', name: 'frozen' },
        { type: 'label', name: 'unobtainium' },
        { type: 'user', name: 'bob' },
      ],
    });
  });

  it.each([
    ['colour:red', /unknown key "colour"/],
    ['name:"open', /quote is not closed/],
    ['status:', /needs a value/],
    ['status:a,,b', /needs a value/],
    ['rev:>A,B', /takes one value/],
    ['rev:>1', /does not match the library scheme/],
    ['created:yesterday-ish', /is not a date/],
    ['created!:2025', /without !/],
    ['is:lost', /is: takes pinned/],
    ['name:a,b desc:c,d', /only one term may list alternatives/],
  ])('refuses %s', (query, message) => {
    expect(() => compileQuery(parseQuery(query), vocabulary)).toThrow(message);
  });

  it('asks only for the vocabulary its keys need', () => {
    expect(vocabularyNeeded(parseQuery('name:x type:part is:pinned'))).toEqual(new Set());
    expect(vocabularyNeeded(parseQuery('status:a label:b by:c'))).toEqual(new Set(['config', 'labels', 'users']));
  });
});

describe('key:value sourcing keys', () => {
  const withMakers: Vocabulary = {
    ...vocabulary,
    manufacturers: [
      { id: 'm-ti', name: 'Texas Instruments', aliases: ['TI'] },
      { id: 'm-tdk', name: 'TDK', aliases: [] },
    ],
  };
  const filter = (query: string) => {
    const { clauses, notFound } = compileQuery(parseQuery(query), withMakers);
    return { ...interpret(clauses).filter, notFound };
  };

  it('mpn: exact (compared normalized by the engine), lists and * patterns', () => {
    expect(filter('mpn:"LM 358"')).toEqual({ and: [{ mpn: { eq: 'LM 358' } }], notFound: [] });
    expect(filter('mpn:LM358,NE555')).toEqual({ and: [{ mpn: { in: ['LM358', 'NE555'] } }], notFound: [] });
    expect(filter('mpn!:LM358')).toEqual({ and: [{ mpn: { neq: 'LM358' } }], notFound: [] });
    expect(filter('mpn:LM*')).toEqual({ and: [{ mpn: { like: 'LM%' } }], notFound: [] });
  });

  it('manufacturer: resolves names and aliases of the directory to ids; * matches several; unknown names are reported', () => {
    expect(vocabularyNeeded(parseQuery('manufacturer:ti'))).toEqual(new Set(['manufacturers']));
    expect(filter('manufacturer:ti')).toEqual({ and: [{ manufacturer: { id: { eq: 'm-ti' } } }], notFound: [] });
    expect(filter('mfr:"texas  instruments",tdk')).toEqual({ and: [{ manufacturer: { id: { in: ['m-ti', 'm-tdk'] } } }], notFound: [] });
    expect(filter('manufacturer:t*')).toEqual({ and: [{ manufacturer: { id: { in: ['m-ti', 'm-tdk'] } } }], notFound: [] });
    expect(filter('manufacturer!:tdk')).toEqual({ and: [{ manufacturer: { id: { neq: 'm-tdk' } } }], notFound: [] });
    expect(filter('manufacturer:acme')).toEqual({ and: [{ manufacturer: { id: { eq: 'unknown:acme' } } }], notFound: [{ type: 'manufacturer', name: 'acme' }] });
  });
});
