import { describe, expect, it } from 'vitest';
import type { TemplateDocument } from '../../lib/changeOrders/templateRules.js';
import { validateValues } from '../../lib/changeOrders/values.js';
import { validateAttributeValues } from '../../lib/components/attributeValidation.js';
import { categoryDefinition } from '../../lib/config/categories.js';
import { compilePattern } from '../../lib/config/patterns.js';

/**
 * Security issue 20, the regular expressions a library configures: an attribute pattern or a template
 * field pattern such as `(a+)+` took exponential time on a value of a few dozen characters under a
 * backtracking RegExp (on 2,000 characters: never), blocking the server for every caller. They run on
 * RE2 now, linear in the value; these calls return at once.
 */

const catastrophic = '(a+)+b';
const attack = `${'a'.repeat(2_000)}!`;

const category = categoryDefinition.parse({
  id: 'redos',
  name: 'ReDoS',
  type: 'PART',
  prefix: '991',
  attributes: [{ id: 'code', name: 'Code', valueType: 'STRING', pattern: catastrophic }],
});

describe('configured patterns run on RE2', () => {
  it('an attribute pattern with nested quantifiers answers on a long value that does not match', () => {
    expect(validateAttributeValues(category, { code: attack }).map((e) => e.message)).toEqual([expect.stringMatching(/must match the pattern \(a\+\)\+b/)]);
    expect(validateAttributeValues(category, { code: 'aaab' })).toEqual([]);
  });

  it('a template field pattern with nested quantifiers answers on a long value that does not match', () => {
    const template = { details: { info: { groups: [{ fields: [{ type: 'text', label: 'Code', name: 'code', validations: { pattern: `^${catastrophic}$` } }] }] } } } as unknown as TemplateDocument;
    expect(() => validateValues(template, { code: attack })).toThrow(/code: must match/);
    expect(validateValues(template, { code: 'aab' })).toEqual({ code: 'aab' });
  });

  it('keeps the semantics: whole value for attributes, anywhere for template fields (anchors in the pattern)', () => {
    const pattern = compilePattern('[A-Z]+[0-9]?')!;
    expect([pattern.matchesWhole('AB1'), pattern.matchesWhole('ab1'), pattern.matchesWhole('AB12'), pattern.matchesSome('xAB12')]).toEqual([true, false, false, true]);
    expect(compilePattern('\\p{Lu}.')!.matchesWhole('É😀')).toBe(true);
  });

  it('refuses lookaround and backreferences where patterns are configured', () => {
    expect(compilePattern('(?=a)a')).toBeNull();
    expect(compilePattern('(a)\\1')).toBeNull();
    expect(() => categoryDefinition.parse({ ...category, attributes: [{ id: 'code', name: 'Code', valueType: 'STRING', pattern: '(a)\\1' }] })).toThrow(/RE2 syntax/);
  });
});
