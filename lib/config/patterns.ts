import { RE2JS } from 're2js';

/**
 * The regular expressions a library configures (an attribute's pattern, a change order template field's
 * validations.pattern), matched against values users enter. They run on RE2 (re2js), which matches in
 * time linear in the value: a JavaScript RegExp backtracks, so a pattern like `(a+)+$` (written on purpose
 * or not) would take exponential time on a value of a few dozen characters and block the server for every
 * caller (security issue 20). RE2 syntax is JavaScript's without lookaround and backreferences; a pattern
 * using them is refused where it is configured.
 */

export interface ConfiguredPattern {
  /** The whole value matches (the pattern is anchored at both ends). */
  matchesWhole(value: string): boolean;
  /** Some part of the value matches (as RegExp.test). */
  matchesSome(value: string): boolean;
}

const cache = new Map<string, ConfiguredPattern | null>();
const cacheSize = 256;

/** The compiled pattern, or null when RE2 cannot compile it. */
export function compilePattern(pattern: string): ConfiguredPattern | null {
  if (cache.has(pattern)) return cache.get(pattern)!;
  let compiled: ConfiguredPattern | null;
  try {
    const re = RE2JS.compile(pattern);
    compiled = { matchesWhole: (value) => re.testExact(value), matchesSome: (value) => re.test(value) };
  } catch {
    compiled = null;
  }
  if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
  cache.set(pattern, compiled);
  return compiled;
}

/** Why a configured pattern is refused, or null. */
export function patternProblem(pattern: string): string | null {
  return compilePattern(pattern) ? null : 'pattern is not a valid regular expression (RE2 syntax: no lookaround or backreferences)';
}
