import { describe, expect, it } from 'vitest';
import { compileFilter, type NameMatcher } from '../../lib/search/table/evaluate.js';
import { coveringTrigrams, decodePiece, encodeNameIndex, matchingRows, mergePostings, trigramBucket, type Postings } from '../../lib/search/table/nameIndex.js';
import type { Row } from '../../lib/search/table/rows.js';
import { indexWorthReading } from '../../lib/search/table/snapshot.js';

/** A seeded xorshift generator: the same names every run. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  return (below: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
}

// Letters that lowercase to more code units (İ), context-dependent ones (Σ), surrogate pairs, repeats.
const alphabet = ['a', 'A', 'b', 'B', 'c', ' ', '-', '1', '2', 'ä', 'Ä', 'ß', 'İ', 'i', 'Σ', 'σ', '😀', '\u{1F600}'.slice(0, 1), 'x', 'é'];

function randomName(next: (below: number) => number): string | null {
  if (next(25) === 0) return null;
  const length = next(4) === 0 ? next(4) : next(24);
  let name = '';
  for (let i = 0; i < length; i++) name += alphabet[next(alphabet.length)]!;
  if (next(5) === 0) name += 'a'.repeat(next(8));
  return name;
}

/** Every postings list of an encoded index, pieces of a bucket merged in order (as the snapshot reads them). */
function postingsOf(index: NonNullable<ReturnType<typeof encodeNameIndex>>): (gram: string) => Postings | undefined {
  const lists = new Map<string, Postings[]>();
  const ordered = [...index.parts].sort((a, b) => a.bucket - b.bucket || a.piece - b.piece);
  for (const part of ordered) {
    for (const [gram, postings] of decodePiece(part.data)) {
      expect(trigramBucket(gram, index.buckets)).toBe(part.bucket);
      lists.set(gram, [...(lists.get(gram) ?? []), postings]);
    }
  }
  const merged = new Map([...lists].map(([gram, pieces]) => [gram, mergePostings(pieces)]));
  return (gram) => merged.get(gram);
}

const bruteForce = (names: (string | null)[], needle: string) => names.flatMap((name, row) => (name !== null && name.toLowerCase().includes(needle) ? [row] : []));

function needlesFor(names: (string | null)[], next: (below: number) => number): string[] {
  const needles = ['aaa', 'aaaa', 'aaaaaaa', 'i̇', 'i̇a', 'ss', 'ßß', 'σσσ', '😀😀', 'abc', 'zzz'];
  for (let i = 0; i < 200; i++) {
    const name = names[next(names.length)];
    if (!name) continue;
    const lowered = name.toLowerCase();
    const start = next(lowered.length + 1);
    needles.push(lowered.slice(start, start + 3 + next(8)));
  }
  for (let i = 0; i < 50; i++) needles.push(Array.from({ length: 3 + next(4) }, () => alphabet[next(alphabet.length)]!.toLowerCase()).join(''));
  return needles.filter((needle) => needle.length >= 3);
}

describe('name index', () => {
  it('covers a needle with trigrams at 0, 3, 6, ... and length-3', () => {
    expect(coveringTrigrams('abc')).toEqual([{ gram: 'abc', offset: 0 }]);
    expect(coveringTrigrams('abcd')).toEqual([
      { gram: 'abc', offset: 0 },
      { gram: 'bcd', offset: 1 },
    ]);
    expect(coveringTrigrams('bracket').map((g) => g.offset)).toEqual([0, 3, 4]);
    expect(coveringTrigrams('abcdef').map((g) => g.offset)).toEqual([0, 3]);
    expect(() => coveringTrigrams('ab')).toThrow();
  });

  it('finds exactly the rows whose lowercased name includes the needle (random names, unicode, repeats)', () => {
    for (const [seed, buckets, partBytes] of [
      [1, undefined, undefined],
      [2, 1, undefined],
      [3, 7, 200],
      [4, 64, 64],
    ] as const) {
      const next = random(seed);
      const names = Array.from({ length: 600 }, () => randomName(next));
      const index = encodeNameIndex(names, { buckets, partBytes })!;
      if (buckets !== undefined) expect(index.buckets).toBe(buckets);
      // Every bucket has its first piece; small pieces split.
      expect(new Set(index.parts.filter((p) => p.piece === 0).map((p) => p.bucket)).size).toBe(index.buckets);
      if (partBytes !== undefined) expect(index.parts.some((p) => p.piece > 0)).toBe(true);
      const lookup = postingsOf(index);
      for (const needle of needlesFor(names, next)) {
        expect(
          [...matchingRows(needle, lookup)].sort((a, b) => a - b),
          `needle ${JSON.stringify(needle)}`,
        ).toEqual(bruteForce(names, needle));
      }
    }
  });

  it('gives up on a block whose bucket would need more than maxPieces pieces (its names are read instead)', () => {
    const names = Array.from({ length: 40 }, (_, n) => `name ${n} ${'x'.repeat(n % 10)}`);
    expect(encodeNameIndex(names, { buckets: 1, partBytes: 1 })).toBeNull();
    expect(encodeNameIndex(names, { buckets: 1 })).not.toBeNull();
  });

  it('matches overlapping repeats and needles at the very start and end of a name', () => {
    const names = ['aaaa', 'aaa', 'aa', 'baaab', 'xaaaaaay', 'abcabcabc', 'cab', null, ''];
    const lookup = postingsOf(encodeNameIndex(names)!);
    for (const needle of ['aaa', 'aaaa', 'aaaaa', 'aaaaaa', 'abc', 'cabca', 'bcabcabc', 'abcabcabc', 'abcabcabca', 'aab', 'baa', 'xaaaaaay']) {
      expect(
        [...matchingRows(needle, lookup)].sort((a, b) => a - b),
        needle,
      ).toEqual(bruteForce(names, needle));
    }
  });

  it('answers name contains and notContains in a filter as the names themselves do', () => {
    const next = random(9);
    const names = Array.from({ length: 300 }, () => randomName(next));
    const lookup = postingsOf(encodeNameIndex(names)!);
    const withNames: Row[] = names.map((name, index) => ({ block: 0, index, name: name ?? undefined, isArchived: false }));
    // The index's rows carry no names: a test that read them would fail.
    const withoutNames: Row[] = names.map((_, index) => ({ block: 0, index, isArchived: false }));
    const cache = new Map<string, Set<number>>();
    const matcher: NameMatcher = {
      contains: (row, needle) => {
        if (!cache.has(needle)) cache.set(needle, matchingRows(needle, lookup));
        return cache.get(needle)!.has(row.index);
      },
    };
    for (const needle of [...needlesFor(names, next).slice(0, 40), 'AAA', 'ÄÄA']) {
      for (const filter of [
        { advanced: { and: [{ name: { contains: needle } }] } },
        { advanced: { and: [{ name: { notContains: needle } }] } },
        { advanced: { and: [{ name: { contains: needle, notContains: 'zzz' } }] } },
        { advanced: { or: [{ name: { contains: needle } }, { name: { eq: 'aaa' } }] } },
        { simple: { name: needle } },
        { simple: { names: [needle, 'bbb'] } },
      ]) {
        const planned = compileFilter(filter, {});
        expect(planned.needles.size, JSON.stringify(filter)).toBeGreaterThan(0);
        const expected = withNames.filter(planned.test).map((r) => r.index);
        const indexed = compileFilter(filter, {}, matcher);
        expect(
          withoutNames.filter((row) => indexed.test({ ...row, name: planned.fields.has('name') ? withNames[row.index]!.name : undefined })).map((r) => r.index),
          JSON.stringify(filter),
        ).toEqual(expected);
      }
    }
  });

  it('answers CPN contains and notContains through its matcher as the CPNs themselves do', () => {
    const next = random(11);
    const cpns = Array.from({ length: 300 }, (_, n) => `${['100', '110', 'PCB', 'pcb'][n % 4]}-${String(next(100_000)).padStart(5, '0')}${n % 7 ? '' : '-A'}`);
    const lookup = postingsOf(encodeNameIndex(cpns)!);
    const withCpns: Row[] = cpns.map((cpn, index) => ({ block: 0, index, cpn, isArchived: false }));
    const withoutCpns: Row[] = cpns.map((_, index) => ({ block: 0, index, isArchived: false }));
    const cpnMatcher: NameMatcher = { contains: (row, needle) => matchingRows(needle, lookup).has(row.index) };
    for (const needle of ['100-', 'PCB-0', '-a', '000', '12', 'zzz', cpns[5]!, cpns[6]!.slice(2, 7)]) {
      for (const displayValue of [{ contains: needle }, { notContains: needle }, { contains: needle, like: '%0%' }]) {
        const filter = { advanced: { and: [{ identifier: { displayValue } }] } };
        const planned = compileFilter(filter, {});
        const expected = withCpns.filter(planned.test).map((r) => r.index);
        const indexed = compileFilter(filter, {}, undefined, cpnMatcher);
        expect(
          withoutCpns.filter((row) => indexed.test({ ...row, cpn: planned.fields.has('cpn') ? cpns[row.index] : undefined })).map((r) => r.index),
          JSON.stringify(filter),
        ).toEqual(expected);
        expect(planned.cpnNeedles.size > 0).toBe(needle.length >= 3);
      }
    }
  });

  it('leaves needles shorter than 3 code units (once lowercased) to the names', () => {
    expect(compileFilter({ advanced: { and: [{ name: { contains: 'ab' } }] } }, {}).needles.size).toBe(0);
    expect(compileFilter({ advanced: { and: [{ name: { contains: 'ab' } }] } }, {}).fields.has('name')).toBe(true);
    // İ lowercases to two code units: 'İa' is an indexable needle of 3.
    expect([...compileFilter({ advanced: { and: [{ name: { contains: 'İa' } }] } }, {}).needles]).toEqual(['i̇a']);
    expect(compileFilter({ advanced: { and: [{ name: { contains: 'bracket' } }] } }, {}).fields.has('name')).toBe(false);
    expect(compileFilter({ simple: { names: ['bracket', 'ab'] } }, {}).fields.has('name')).toBe(true);
  });
});

describe('which blocks a name search reads the index of', () => {
  it('reads the buckets of a block only while they cost no more than its name column', () => {
    // A 64,000-row block: a few needles' buckets (half a unit each) against a column of about 31 units.
    expect(indexWorthReading({ rows: 64_000 }, 3)).toBe(true);
    expect(indexWorthReading({ rows: 64_000 }, 62)).toBe(true);
    // Twenty long needles touch most buckets: the column is cheaper.
    expect(indexWorthReading({ rows: 64_000 }, 80)).toBe(false);
    // A 4,000-row block's column is about 2 units: up to 3 buckets.
    expect(indexWorthReading({ rows: 4_000 }, 3)).toBe(true);
    expect(indexWorthReading({ rows: 4_000 }, 4)).toBe(false);
  });
});
