import { describe, expect, it } from 'vitest';
import { validateAttributeValues } from '../../lib/components/attributeValidation.js';
import { categoryDefinition, defaultCategories, type CategoryDefinition } from '../../lib/config/categories.js';

const resistor = defaultCategories.categories.find((c) => c.id === 'resistor')!;

const sample: CategoryDefinition = categoryDefinition.parse({
  id: 'sample',
  name: 'Sample',
  type: 'PART',
  prefix: '990',
  attributes: [
    { id: 'code', name: 'Code', valueType: 'STRING', min: 3, max: 6, pattern: '[A-Z]+[0-9]?' },
    { id: 'count', name: 'Count', valueType: 'INTEGER', min: 1, max: 10 },
    { id: 'rohs', name: 'RoHS', valueType: 'BOOLEAN' },
    { id: 'released-on', name: 'Released on', valueType: 'DATE' },
    { id: 'grade', name: 'Grade', valueType: 'ENUM', options: ['A', 'B'], required: true },
    { id: 'legacy', name: 'Legacy code', valueType: 'STRING', archived: true, required: true },
    { id: 'constructor', name: 'Constructor', valueType: 'STRING' },
  ],
});

const messages = (category: CategoryDefinition, values: Record<string, unknown>) => validateAttributeValues(category, values).map((e) => `${e.attributeId}: ${e.message}`);

describe('validateAttributeValues', () => {
  it('accepts valid values', () => {
    expect(validateAttributeValues(resistor, { resistance: 10000, tolerance: 1, package: '0603' })).toEqual([]);
    expect(validateAttributeValues(sample, { code: 'ABC1', count: 10, rohs: false, 'released-on': '2024-02-29', grade: 'B', constructor: 'Acme' })).toEqual([]);
  });

  it('requires required attributes: absent, null and "" are missing', () => {
    for (const resistance of [undefined, null, '']) {
      expect(validateAttributeValues(resistor, { resistance })).toEqual([{ attributeId: 'resistance', message: 'Resistance is required' }]);
    }
    expect(messages(resistor, {})).toEqual(['resistance: Resistance is required']);
  });

  it('refuses unknown attributes, after the known ones, in input order', () => {
    expect(messages(resistor, { zeta: 1, resistance: 'ten', alpha: 'x', ignored: null })).toEqual([
      'resistance: Resistance must be a number, got "ten"',
      'zeta: unknown attribute "zeta": category Resistor has resistance, tolerance, power, package',
      'alpha: unknown attribute "alpha": category Resistor has resistance, tolerance, power, package',
    ]);
  });

  it('refuses values for archived attributes but does not require them', () => {
    expect(messages(sample, { grade: 'A', legacy: 'OLD-1' })).toEqual(['legacy: Legacy code is archived and can no longer be set']);
    expect(messages(sample, { grade: 'A', legacy: null })).toEqual([]);
  });

  it('checks the type of every value', () => {
    expect(messages(sample, { code: 12, count: 2.5, rohs: 'yes', 'released-on': '2023-02-29', grade: 'C' })).toEqual([
      'code: Code must be text, got 12',
      'count: Count must be a whole number, got 2.5',
      'rohs: RoHS must be true or false, got "yes"',
      'released-on: Released on must be a date written YYYY-MM-DD, got "2023-02-29"',
      'grade: Grade must be one of A, B, got "C"',
    ]);
    expect(messages(resistor, { resistance: Number.NaN, tolerance: '5', power: [1] })).toEqual([
      'resistance: Resistance must be a number, got NaN',
      'tolerance: Tolerance must be a number, got "5"',
      'power: Power rating must be a number, got a list',
    ]);
    expect(messages(sample, { grade: 'a', 'released-on': '2024-1-5' })).toEqual([
      'released-on: Released on must be a date written YYYY-MM-DD, got "2024-1-5"',
      'grade: Grade must be one of A, B, got "a"',
    ]);
  });

  it('checks real calendar dates', () => {
    const date = (value: string) => validateAttributeValues(sample, { grade: 'A', 'released-on': value });
    expect(date('2000-02-29')).toEqual([]);
    expect(date('1900-02-29')).toHaveLength(1);
    expect(date('2024-04-31')).toHaveLength(1);
    expect(date('2024-13-01')).toHaveLength(1);
    expect(date('2024-12-31')).toEqual([]);
  });

  it('bounds numbers by min and max', () => {
    expect(messages(resistor, { resistance: -1, tolerance: 150 })).toEqual(['resistance: Resistance must be at least 0 (got -1)', 'tolerance: Tolerance must be at most 100 (got 150)']);
    expect(messages(sample, { grade: 'A', count: 0 })).toEqual(['count: Count must be at least 1 (got 0)']);
    expect(messages(sample, { grade: 'A', count: 11 })).toEqual(['count: Count must be at most 10 (got 11)']);
  });

  it('bounds the length of strings by min and max', () => {
    expect(messages(sample, { grade: 'A', code: 'AB' })).toEqual(['code: Code must be at least 3 characters long (got 2)']);
    expect(messages(sample, { grade: 'A', code: 'ABCDEFG' })).toEqual(['code: Code must be at most 6 characters long (got 7)']);
  });

  it('matches strings against the whole pattern', () => {
    expect(messages(sample, { grade: 'A', code: 'ABC12' })).toEqual(['code: Code must match the pattern [A-Z]+[0-9]? (got "ABC12")']);
    expect(messages(sample, { grade: 'A', code: 'xABC' })).toEqual(['code: Code must match the pattern [A-Z]+[0-9]? (got "xABC")']);
    expect(messages(sample, { grade: 'A', code: 'AB1' })).toEqual([]);
  });

  it('reports every problem of a string at once', () => {
    expect(messages(sample, { grade: 'A', code: 'a' })).toEqual(['code: Code must be at least 3 characters long (got 1)', 'code: Code must match the pattern [A-Z]+[0-9]? (got "a")']);
  });

  it('does not read inherited properties as values', () => {
    expect(validateAttributeValues(sample, { grade: 'A' })).toEqual([]);
  });
});
