import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lib/errors.js';
import { validateFilter } from '../../lib/search/filter.js';
import { likeMatcher, likePatternProblem, maxLikePatternLength, maxLikeWildcards, type LikeWork } from '../../lib/search/like.js';
import { likePattern } from '../../lib/search/table/evaluate.js';

/**
 * Security issue 20: like turned each % into a backtracking regular expression, so `%a%a%a%a%b` on a
 * 150-character name took seconds (each % multiplied the time by about 30) and blocked the server. The
 * matcher must do work linear in the value whatever the wildcards: counted here, not timed.
 */

/** The regular expression like used to compile to: the reference semantics, safe on short values only. */
function referenceRegex(pattern: string): RegExp {
  const source = [...pattern].map((ch) => (ch === '%' ? '[\\s\\S]*' : ch === '_' ? '[\\s\\S]' : ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 'iu');
}

function work(pattern: string, value: string): { matched: boolean; work: LikeWork } {
  const counted: LikeWork = { searches: 0, scanned: 0 };
  // likePattern is what compileFilter matches every row with.
  const matched = likePattern(pattern).test(value, counted);
  return { matched, work: counted };
}

describe('like: linear work (the backtracking attack)', () => {
  const value = 'a'.repeat(10_000);

  it.each([4, 10, 50, maxLikeWildcards])('%%a%%a...%%b with %i wildcards on 10,000 characters reads the value about once', (wildcards) => {
    const pattern = `${'%a'.repeat(wildcards - 1)}%b`;
    const miss = work(pattern, value);
    expect(miss.matched).toBe(false);
    // Each segment is searched once, never retried from another start.
    expect(miss.work.searches).toBeGreaterThan(0);
    expect(miss.work.searches).toBeLessThanOrEqual(wildcards + 2);
    expect(miss.work.scanned).toBeLessThanOrEqual(value.length + pattern.length);

    const hit = work(pattern, `${value.slice(1)}b`);
    expect(hit.matched).toBe(true);
    expect(hit.work.scanned).toBeLessThanOrEqual(value.length + pattern.length);
  });

  it('the same with _ in the segments (the shift-and scan reads each character once per segment)', () => {
    const pattern = `${'%a_'.repeat(49)}%b`;
    expect(likePatternProblem(pattern)).toBeNull();
    const miss = work(pattern, value);
    expect(miss.matched).toBe(false);
    expect(miss.work.searches).toBeGreaterThan(0);
    expect(miss.work.scanned).toBeLessThanOrEqual(value.length + pattern.length);
    const hit = work(pattern, `${value.slice(1)}b`);
    expect(hit.matched).toBe(true);
    expect(hit.work.scanned).toBeLessThanOrEqual(value.length + pattern.length);
  });

  it('work does not grow with the wildcards: 100 wildcards read no more than 4', () => {
    const few = work(`${'%a'.repeat(3)}%b`, value).work.scanned;
    const many = work(`${'%a'.repeat(99)}%b`, value).work.scanned;
    expect(many).toBeLessThanOrEqual(few + 200);
  });
});

describe('like: the same answers as the regular expression it replaces', () => {
  // A small deterministic generator: many short patterns and values over an alphabet with the wildcards,
  // case pairs, a regex metacharacter, a newline and a character outside the BMP (one character for _).
  let seed = 20;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = (alphabet: string[], length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]!).join('');
  const patternAlphabet = ['a', 'A', 'b', '%', '%', '_', '.', '\n', '😀', 'é'];
  const valueAlphabet = ['a', 'A', 'b', 'B', '.', '\n', '😀', 'É', 'é'];

  it('on 20,000 random pairs', () => {
    const differences: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const pattern = pick(patternAlphabet, Math.floor(next() * 7));
      const value = pick(valueAlphabet, Math.floor(next() * 9));
      const expected = referenceRegex(pattern).test(value);
      if (likeMatcher(pattern).test(value) !== expected) differences.push(`${JSON.stringify(pattern)} on ${JSON.stringify(value)}: expected ${expected}`);
    }
    expect(differences).toEqual([]);
  });

  it.each([
    ['%', '', true],
    ['', '', true],
    ['', 'a', false],
    ['_', '', false],
    ['_', '😀', true],
    ['__', '😀', false],
    ['a%a', 'a', false],
    ['a%a', 'aa', true],
    ['%ab%ab%', 'xabyab', true],
    ['%ab%ab%', 'xaby', false],
    ['%aba%', 'ababa', true],
    ['a%b%c', 'abc', true],
    ['a_%_c', 'abc', false],
    ['a_%_c', 'abbc', true],
    ['%_b_%', 'ab', false],
    ['%_b_%', 'abc', true],
    [`${'_'.repeat(40)}%x`, `${'y'.repeat(40)}zx`, true],
    [`%${'a'.repeat(33)}_${'b'.repeat(2)}%`, `zz${'a'.repeat(33)}Qbbzz`, true],
    [`%${'a'.repeat(33)}_${'b'.repeat(2)}%`, `zz${'a'.repeat(32)}Qbbzz`, false],
  ])('%j on %j: %s', (pattern, value, expected) => {
    expect(likeMatcher(pattern).test(value)).toBe(expected);
    expect(referenceRegex(pattern).test(value)).toBe(expected);
  });
});

describe('like: limits', () => {
  it(`refuses a pattern over ${maxLikePatternLength} characters or ${maxLikeWildcards} wildcards with BAD_USER_INPUT`, () => {
    expect(likePatternProblem('x'.repeat(maxLikePatternLength))).toBeNull();
    expect(likePatternProblem('😀'.repeat(maxLikePatternLength))).toBeNull();
    expect(likePatternProblem('x'.repeat(maxLikePatternLength + 1))).toMatch(/at most 500 characters/);
    expect(likePatternProblem('%_'.repeat(maxLikeWildcards / 2))).toBeNull();
    expect(likePatternProblem(`${'%_'.repeat(maxLikeWildcards / 2)}%`)).toMatch(/at most 100 wildcards/);
    const refused = (() => {
      try {
        likeMatcher('%'.repeat(maxLikeWildcards + 1));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('BAD_USER_INPUT');
  });

  it('validateFilter names the condition of a refused pattern', () => {
    const filter = { advanced: { and: [{ name: { eq: 'x' } }], or: [{ labels: { name: { notLike: '%'.repeat(101) } } }] } };
    expect(() => validateFilter(filter, undefined)).toThrow(/^or\[0\]\.labels\.name\.notLike: a like pattern may hold at most 100 wildcards/);
    expect(() => validateFilter({ advanced: { and: [{ description: { like: '%'.repeat(100) } }] } }, undefined)).not.toThrow();
  });
});
