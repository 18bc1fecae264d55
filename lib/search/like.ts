import { InvalidInputError } from '../errors.js';

/**
 * The like / notLike matcher of the filter language: `%` is any sequence, `_` one character (code point),
 * everything else literal; case-insensitive (both sides lowercased, as contains does); the whole value.
 *
 * It never backtracks. A pattern is segments between `%`s, each of a fixed length: the first must be a
 * prefix, the last a suffix, and the ones between are found left to right, each at its leftmost place after
 * the previous one (the leftmost place leaves the most room for the rest, so this is exact). A segment
 * without `_` is found with indexOf; one with `_` by a bit-parallel scan (shift-and) that reads each
 * character once. Matching a value of n characters thus reads it about once, whatever the wildcards: the
 * regular expression this replaces (`^a.*a.*…b$`) took time exponential in the number of `%`s (README,
 * "Search", like patterns).
 */

/** The longest like pattern accepted, in characters (README, "Search"): longer ones are BAD_USER_INPUT. */
export const maxLikePatternLength = 500;
/** The most wildcards (`%` and `_` together) a like pattern may hold; more are BAD_USER_INPUT. */
export const maxLikeWildcards = 100;

/** What one match did, for tests: segment searches started and characters of the value they passed over. */
export interface LikeWork {
  searches: number;
  scanned: number;
}

export interface LikeMatcher {
  test(value: string, work?: LikeWork): boolean;
}

/** Why a like pattern is refused, or null when it is within the limits. */
export function likePatternProblem(pattern: string): string | null {
  let length = 0;
  let wildcards = 0;
  for (const ch of pattern) {
    length += 1;
    if (ch === '%' || ch === '_') wildcards += 1;
  }
  if (length > maxLikePatternLength) return `a like pattern may be at most ${maxLikePatternLength} characters (got ${length})`;
  if (wildcards > maxLikeWildcards) return `a like pattern may hold at most ${maxLikeWildcards} wildcards (% and _ together; got ${wildcards})`;
  return null;
}

/** `_` in a segment of code points. */
const ANY = -1;

/** A segment with `_`: its code points and, per code point met in the value, which positions it may fill. */
interface WildSegment {
  points: number[];
  words: number;
  anyMask: Uint32Array;
  masks: Map<number, Uint32Array>;
}

function wildSegment(text: string): WildSegment {
  const points = Array.from(text, (ch) => (ch === '_' ? ANY : ch.codePointAt(0)!));
  const words = Math.max(1, Math.ceil(points.length / 32));
  const anyMask = new Uint32Array(words);
  points.forEach((p, j) => {
    if (p === ANY) anyMask[j >>> 5]! |= 1 << (j & 31);
  });
  const masks = new Map<number, Uint32Array>();
  points.forEach((p, j) => {
    if (p === ANY) return;
    let mask = masks.get(p);
    if (!mask) masks.set(p, (mask = Uint32Array.from(anyMask)));
    mask[j >>> 5]! |= 1 << (j & 31);
  });
  return { points, words, anyMask, masks };
}

function codePoints(value: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const point = value.codePointAt(i)!;
    out.push(point);
    if (point > 0xffff) i += 1;
  }
  return out;
}

/** Whether a segment matches the value's code points at `at` (which must leave room for it). */
function wildAt(text: number[], segment: WildSegment, at: number, work?: LikeWork): boolean {
  if (work) {
    work.searches += 1;
    work.scanned += segment.points.length;
  }
  return segment.points.every((p, j) => p === ANY || p === text[at + j]);
}

/**
 * The end of the leftmost occurrence of a segment in text[from, limit), or -1: shift-and, one pass over the
 * characters, a bit per segment position (state bit j: the last j+1 characters match its first j+1).
 */
function wildFind(text: number[], segment: WildSegment, from: number, limit: number, work?: LikeWork): number {
  const { words, anyMask, masks } = segment;
  const last = segment.points.length - 1;
  const lastWord = last >>> 5;
  const lastBit = 1 << (last & 31);
  const state = new Uint32Array(words);
  if (work) work.searches += 1;
  for (let i = from; i < limit; i++) {
    if (work) work.scanned += 1;
    const mask = masks.get(text[i]!) ?? anyMask;
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const shifted = ((state[w]! << 1) | carry) >>> 0;
      carry = state[w]! >>> 31;
      state[w] = shifted & mask[w]!;
    }
    if (state[lastWord]! & lastBit) return i + 1;
  }
  return -1;
}

/** Compiles a like pattern (refusing one over the limits) into a matcher that runs in linear time. */
export function likeMatcher(pattern: string): LikeMatcher {
  const problem = likePatternProblem(pattern);
  if (problem) throw new InvalidInputError(problem, { field: 'like' });
  const segments = pattern.toLowerCase().split('%');
  if (!pattern.includes('_')) return literalMatcher(segments);
  return wildMatcher(segments.map(wildSegment));
}

/** Segments without `_`: startsWith, indexOf and endsWith on the lowercased value. */
function literalMatcher(segments: string[]): LikeMatcher {
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  const middle = segments.slice(1, -1).filter((s) => s.length > 0);
  return {
    test(value, work) {
      const text = value.toLowerCase();
      if (work) work.searches += 1;
      if (segments.length === 1) {
        if (work) work.scanned += Math.min(text.length, first.length);
        return text === first;
      }
      if (work) work.scanned += first.length;
      if (!text.startsWith(first)) return false;
      const end = text.length - last.length;
      if (end < first.length) return false;
      let at = first.length;
      for (const segment of middle) {
        const found = text.indexOf(segment, at);
        if (work) {
          work.searches += 1;
          work.scanned += (found < 0 ? text.length : found + segment.length) - at;
        }
        if (found < 0 || found + segment.length > end) return false;
        at = found + segment.length;
      }
      if (work) {
        work.searches += 1;
        work.scanned += last.length;
      }
      return text.endsWith(last);
    },
  };
}

/** Segments with `_`: the same walk over the value's code points. */
function wildMatcher(segments: WildSegment[]): LikeMatcher {
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  const middle = segments.slice(1, -1).filter((s) => s.points.length > 0);
  return {
    test(value, work) {
      const text = codePoints(value.toLowerCase());
      if (segments.length === 1) return text.length === first.points.length && wildAt(text, first, 0, work);
      const end = text.length - last.points.length;
      if (end < first.points.length || !wildAt(text, first, 0, work)) return false;
      let at = first.points.length;
      for (const segment of middle) {
        const found = wildFind(text, segment, at, end, work);
        if (found < 0) return false;
        at = found;
      }
      return wildAt(text, last, end, work);
    },
  };
}
