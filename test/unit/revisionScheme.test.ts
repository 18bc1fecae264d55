import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import {
  compareRevisions,
  defaultRevisionScheme,
  describeRevisionScheme,
  initialRevision,
  nextRevision,
  revisionSchemeDocument,
  validateRevision,
  type RevisionScheme,
} from '../../lib/config/revisionScheme.js';

const parse = (input: unknown): RevisionScheme => revisionSchemeDocument.parse(input);

const issues = (input: unknown): string[] => {
  const result = revisionSchemeDocument.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

const sorted = (scheme: RevisionScheme, values: string[]) => [...values].sort((a, b) => compareRevisions(scheme, a, b));

const asme = parse({ segments: [{ type: 'LETTERS', excludedLetters: ['I', 'O', 'Q', 'S', 'X', 'Z'] }] });
const integers = parse({ segments: [{ type: 'INTEGER' }] });
const padded = parse({ segments: [{ type: 'INTEGER', padWidth: 2 }] });
const letterDotNumber = parse({ segments: [{ type: 'LETTERS' }, { type: 'INTEGER' }] });

describe('revision scheme document', () => {
  it('fills defaults', () => {
    expect(parse({ segments: [{ type: 'LETTERS' }, { type: 'INTEGER' }] })).toEqual({
      delimiter: '.',
      segments: [
        { type: 'LETTERS', excludedLetters: [] },
        { type: 'INTEGER', min: 1, padWidth: 0 },
      ],
      rules: [],
    });
    expect(parse({ segments: [{ type: 'LETTERS' }], rules: [{ mapsTo: ['DESIGN'], initialValue: '', allowBlank: true }] }).rules).toEqual([{ mapsTo: ['DESIGN'], initialValue: '', allowBlank: true }]);
    expect(parse(defaultRevisionScheme)).toEqual(defaultRevisionScheme);
  });

  it('refuses unknown fields, bad delimiters and segment counts', () => {
    expect(issues({ segments: [{ type: 'LETTERS' }], extra: 1 })).not.toEqual([]);
    expect(issues({ delimiter: '/', segments: [{ type: 'LETTERS' }] })[0]).toMatch(/^delimiter/);
    expect(issues({ segments: [] })[0]).toMatch(/^segments/);
    expect(issues({ segments: Array.from({ length: 5 }, () => ({ type: 'INTEGER' })) })[0]).toMatch(/^segments/);
  });

  it('refuses a classification in two rules', () => {
    expect(
      issues({
        segments: [{ type: 'LETTERS' }],
        rules: [
          { mapsTo: ['DESIGN', 'DEVELOPMENT'], initialValue: 'A' },
          { mapsTo: ['PRODUCTION', 'DESIGN'], initialValue: 'A' },
        ],
      }),
    ).toEqual(['rules.1.mapsTo: DESIGN already has a rule (rules[0]); a classification appears in at most one rule']);
  });

  it('refuses an initial value the scheme does not accept', () => {
    expect(issues({ segments: [{ type: 'LETTERS' }], rules: [{ mapsTo: ['PRODUCTION'], initialValue: '1' }] })).toEqual([
      'rules.0.initialValue: revision "1" does not match the library scheme LETTERS: "1" must be uppercase letters A-Z',
    ]);
    expect(issues({ segments: [{ type: 'LETTERS' }], rules: [{ mapsTo: ['PRODUCTION'], initialValue: '' }] })).toEqual([
      'rules.0.initialValue: initialValue may be blank only when allowBlank is true',
    ]);
  });

  it('refuses excluded letters that are not single uppercase letters or leave fewer than 2 letters', () => {
    expect(issues({ segments: [{ type: 'LETTERS', excludedLetters: ['i'] }] })).toEqual(['segments.0.excludedLetters.0: must be a single uppercase letter A-Z']);
    expect(issues({ segments: [{ type: 'LETTERS', excludedLetters: ['AB'] }] })).toHaveLength(1);
    expect(issues({ segments: [{ type: 'LETTERS', excludedLetters: [...'ABCDEFGHIJKLMNOPQRSTUVWXY'] }] })).toEqual(['segments.0.excludedLetters: excludedLetters must leave at least 2 letters']);
    expect(issues({ segments: [{ type: 'LETTERS', excludedLetters: [...'ABCDEFGHIJKLMNOPQRSTUVWX'] }] })).toEqual([]);
  });
});

describe('compareRevisions', () => {
  it('orders letter sequences in bijective base 26', () => {
    const ordered = ['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA'];
    expect(sorted(defaultRevisionScheme, [...ordered].reverse())).toEqual(ordered);
    expect(compareRevisions(defaultRevisionScheme, 'Z', 'AA')).toBeLessThan(0);
    expect(compareRevisions(defaultRevisionScheme, 'AB', 'AB')).toBe(0);
  });

  it('orders integers numerically', () => {
    expect(compareRevisions(integers, '2', '10')).toBeLessThan(0);
    expect(sorted(integers, ['10', '9', '100', '1'])).toEqual(['1', '9', '10', '100']);
    expect(compareRevisions(padded, '09', '10')).toBeLessThan(0);
  });

  it('compares multi-segment values segment by segment', () => {
    expect(sorted(letterDotNumber, ['B.1', 'A.10', 'A.2'])).toEqual(['A.2', 'A.10', 'B.1']);
  });

  it('sorts blank first and unparseable values last, by string', () => {
    expect(sorted(defaultRevisionScheme, ['b', 'A', '', '1', 'B'])).toEqual(['', 'A', 'B', '1', 'b']);
    expect(compareRevisions(defaultRevisionScheme, '', '')).toBe(0);
  });
});

describe('validateRevision', () => {
  it('accepts revisions of the scheme', () => {
    expect(validateRevision(defaultRevisionScheme, 'AB')).toBeNull();
    expect(validateRevision(letterDotNumber, 'C.12')).toBeNull();
    expect(validateRevision(padded, '01')).toBeNull();
    expect(validateRevision(padded, '123')).toBeNull();
  });

  it('names the scheme and what is wrong', () => {
    expect(validateRevision(defaultRevisionScheme, 'A1')).toBe('revision "A1" does not match the library scheme LETTERS: "A1" must be uppercase letters A-Z');
    expect(validateRevision(defaultRevisionScheme, 'a')).toBe('revision "a" does not match the library scheme LETTERS: "a" must be uppercase letters A-Z');
    expect(validateRevision(letterDotNumber, 'A')).toBe('revision "A" does not match the library scheme LETTERS.INTEGER: expected 2 segments separated by ".", got 1');
    expect(validateRevision(letterDotNumber, 'A.x')).toBe('revision "A.x" does not match the library scheme LETTERS.INTEGER: segment 2 "x" must be a whole number');
    expect(validateRevision(integers, '0')).toBe('revision "0" does not match the library scheme INTEGER: "0" is below the minimum 1');
    expect(validateRevision(defaultRevisionScheme, 'A.B')).toBe('revision "A.B" does not match the library scheme LETTERS: expected a single segment without ".", got 2');
  });

  it('refuses excluded letters', () => {
    expect(validateRevision(asme, 'I')).toBe('revision "I" does not match the library scheme LETTERS: "I" uses the excluded letter I (allowed: uppercase letters A-Z except I, O, Q, S, X, Z)');
    expect(validateRevision(asme, 'AH')).toBeNull();
  });

  it('accepts leading zeros only to the pad width', () => {
    expect(validateRevision(integers, '01')).toBe('revision "01" does not match the library scheme INTEGER: "01" must be written as "1" (no leading zeros)');
    expect(validateRevision(padded, '1')).toBe('revision "1" does not match the library scheme INTEGER: "1" must be written as "01" (padded to 2 digits)');
    expect(validateRevision(padded, '001')).toMatch(/must be written as "01"/);
  });

  it('allows blank only where the rule of the classification does', () => {
    const scheme = parse({ segments: [{ type: 'LETTERS' }], rules: [{ mapsTo: ['DESIGN'], initialValue: '', allowBlank: true }] });
    expect(validateRevision(scheme, '', 'DESIGN')).toBeNull();
    expect(validateRevision(scheme, '', 'PRODUCTION')).toBe('revision must not be blank for components in PRODUCTION statuses');
    expect(validateRevision(scheme, '')).toBe('revision must not be blank');
  });
});

describe('initialRevision', () => {
  it('takes the rule of the classification, else the first value of every segment', () => {
    const scheme = parse({
      delimiter: '-',
      segments: [
        { type: 'LETTERS', excludedLetters: ['A'] },
        { type: 'INTEGER', min: 0, padWidth: 2 },
      ],
      rules: [{ mapsTo: ['PRODUCTION', 'MAINTENANCE'], initialValue: 'C-00' }],
    });
    expect(initialRevision(scheme, 'PRODUCTION')).toBe('C-00');
    expect(initialRevision(scheme, 'DESIGN')).toBe('B-00');
    expect(initialRevision(defaultRevisionScheme, 'DESIGN')).toBe('A');
    expect(initialRevision(integers, 'DESIGN')).toBe('1');
  });
});

describe('nextRevision', () => {
  it.each([
    ['letters', defaultRevisionScheme, 'A', 'B'],
    ['letters', defaultRevisionScheme, 'Z', 'AA'],
    ['letters', defaultRevisionScheme, 'AZ', 'BA'],
    ['letters', defaultRevisionScheme, 'ZZ', 'AAA'],
    ['letters skipping excluded ones', asme, 'H', 'J'],
    ['letters skipping excluded ones', asme, 'Y', 'AA'],
    ['letters skipping excluded ones', asme, 'AY', 'BA'],
    ['integers', integers, '9', '10'],
    ['padded integers', padded, '09', '10'],
    ['padded integers', padded, '01', '02'],
    ['the last segment only', letterDotNumber, 'B.9', 'B.10'],
  ])('increments %s: %#', (_, scheme, value, next) => {
    expect(nextRevision(scheme, value)).toBe(next);
  });

  it('starts a blank revision at the first value and refuses values outside the scheme', () => {
    expect(nextRevision(letterDotNumber, '')).toBe('A.1');
    expect(() => nextRevision(defaultRevisionScheme, 'A1')).toThrow(InvalidInputError);
  });

  it('keeps every successor in order', () => {
    let revision = 'A';
    for (let step = 0; step < 800; step++) {
      const next = nextRevision(asme, revision);
      expect(compareRevisions(asme, revision, next)).toBeLessThan(0);
      expect(validateRevision(asme, next)).toBeNull();
      revision = next;
    }
  });
});

describe('describeRevisionScheme', () => {
  it('names the segments and gives an example', () => {
    expect(describeRevisionScheme(letterDotNumber)).toBe('LETTERS.INTEGER (e.g. A.1)');
    expect(describeRevisionScheme(padded)).toBe('INTEGER (e.g. 01)');
  });
});
