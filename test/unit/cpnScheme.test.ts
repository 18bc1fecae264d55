import { describe, expect, it } from 'vitest';
import {
  cpnSchemeDocument,
  defaultCpnScheme,
  elementsByName,
  formatCounter,
  normalizeCpn,
  parseCpn,
  renderCpn,
  validateFreeformCpn,
  type CpnCounterElement,
  type CpnScheme,
} from '../../lib/config/cpnScheme.js';

const parse = (input: unknown): CpnScheme => cpnSchemeDocument.parse(input);

const issues = (input: unknown): string[] => {
  const result = cpnSchemeDocument.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

const sizes = {
  type: 'LIST',
  name: 'size',
  options: [
    { value: 'S', label: 'Small' },
    { value: 'M', label: 'Medium' },
    { value: 'XL', label: 'Extra large' },
  ],
};

/** PN-<size>-<3-digit category prefix>-<4 hex digits>, counter per library. */
const listAndHex = parse({
  elements: [
    { type: 'CONSTANT', name: 'pn', value: 'PN' },
    sizes,
    { type: 'CATEGORY_PREFIX', name: 'category' },
    { type: 'COUNTER', name: 'serial', base: 16, digits: 4, max: 0xffff, scope: 'LIBRARY' },
  ],
});

/** <family>-<3-digit counter> where the family group is <line>.<variant>. */
const grouped = parse({
  delimiter: '.',
  elements: [
    {
      type: 'GROUP',
      name: 'family',
      elements: [
        {
          type: 'LIST',
          name: 'line',
          options: [
            { value: 'AB', label: 'Line AB' },
            { value: 'CD', label: 'Line CD' },
          ],
        },
        { type: 'CONSTANT', name: 'variant', value: 'V1' },
      ],
    },
    { type: 'COUNTER', name: 'counter', digits: 3 },
  ],
});

describe('CPN scheme document', () => {
  it('accepts the default scheme as it is stored', () => {
    expect(parse(defaultCpnScheme)).toEqual(defaultCpnScheme);
  });

  it('fills defaults', () => {
    expect(
      parse({
        elements: [
          { type: 'CATEGORY_PREFIX', name: 'category' },
          { type: 'COUNTER', name: 'counter' },
        ],
      }),
    ).toEqual(defaultCpnScheme);
    const hex = parse({ elements: [{ type: 'COUNTER', name: 'c', base: 16, digits: 3 }] }).elements[0] as CpnCounterElement;
    expect(hex.max).toBe(0xfff);
  });

  it('refuses duplicate names, also inside groups', () => {
    expect(
      issues({
        elements: [
          { type: 'CATEGORY_PREFIX', name: 'a' },
          { type: 'GROUP', name: 'g', elements: [{ type: 'CONSTANT', name: 'a', value: 'X' }] },
        ],
      }),
    ).toEqual(['elements.1.elements.0.name: duplicate element name "a"']);
  });

  it('refuses counters whose max does not fit or is below min', () => {
    expect(issues({ elements: [{ type: 'COUNTER', name: 'c', digits: 3, max: 1000 }] })).toEqual(['elements.0.max: max (1000) does not fit in 3 decimal digits']);
    expect(issues({ elements: [{ type: 'COUNTER', name: 'c', base: 16, digits: 2, max: 256 }] })).toEqual(['elements.0.max: max (256) does not fit in 2 hexadecimal digits']);
    expect(issues({ elements: [{ type: 'COUNTER', name: 'c', min: 10, max: 5 }] })).toEqual(['elements.0.min: min (10) must not exceed max (5)']);
    expect(issues({ elements: [{ type: 'COUNTER', name: 'c', base: 8 }] })).toHaveLength(1);
  });

  it('refuses empty or duplicate list options and values containing the delimiter', () => {
    expect(issues({ elements: [{ type: 'LIST', name: 'l', options: [] }] })[0]).toMatch(/^elements\.0\.options:/);
    expect(
      issues({
        elements: [
          {
            type: 'LIST',
            name: 'l',
            options: [
              { value: 'a', label: 'A' },
              { value: 'A', label: 'A again' },
            ],
          },
        ],
      }),
    ).toEqual(['elements.0.options.1.value: duplicate option "A"']);
    expect(issues({ elements: [{ type: 'CONSTANT', name: 'c', value: 'A-B' }] })).toEqual(['elements.0.value: must not contain the delimiter "-"']);
  });

  it('refuses nested groups, unknown fields and too many elements', () => {
    expect(issues({ elements: [{ type: 'GROUP', name: 'g', elements: [{ type: 'GROUP', name: 'h', elements: [{ type: 'CATEGORY_PREFIX', name: 'p' }] }] }] })).not.toEqual([]);
    expect(issues({ elements: [{ type: 'CATEGORY_PREFIX', name: 'p', width: 3 }] })).not.toEqual([]);
    expect(issues({ elements: Array.from({ length: 9 }, (_, i) => ({ type: 'CONSTANT', name: `c${i}`, value: 'A' })) })).not.toEqual([]);
    expect(issues({ delimiter: '+', elements: [{ type: 'CATEGORY_PREFIX', name: 'p' }] })[0]).toMatch(/^delimiter/);
  });
});

describe('renderCpn', () => {
  it('renders the default scheme with X placeholders until the counter is allocated', () => {
    expect(renderCpn(defaultCpnScheme, { categoryPrefix: '100', overrides: {} })).toEqual({
      displayValue: '100-XXXXX',
      isDeterministic: false,
      errors: [],
      counterRequests: [{ element: 'counter', scopeKey: 'PREFIX:100-' }],
    });
    expect(renderCpn(defaultCpnScheme, { categoryPrefix: '100', overrides: {}, counters: { counter: 42 } })).toEqual({
      displayValue: '100-00042',
      isDeterministic: true,
      errors: [],
      counterRequests: [],
    });
  });

  it('leaves a prefix-scoped counter without a request while the prefix is unknown', () => {
    const rendered = renderCpn(defaultCpnScheme, { overrides: {} });
    expect(rendered.displayValue).toBe('XXX-XXXXX');
    expect(rendered.counterRequests).toEqual([]);
  });

  it('renders hex counters in uppercase, X runs as wide as max, and library-scoped requests', () => {
    expect(renderCpn(listAndHex, { overrides: {} })).toMatchObject({ displayValue: 'PN-XX-XXX-XXXX', isDeterministic: false, counterRequests: [{ element: 'serial', scopeKey: 'LIBRARY' }] });
    expect(renderCpn(listAndHex, { categoryPrefix: '120', overrides: { size: 'xl' }, counters: { serial: 0xbeef } })).toMatchObject({
      displayValue: 'PN-XL-120-BEEF',
      isDeterministic: true,
      errors: [],
    });
    const narrow = parse({ elements: [{ type: 'COUNTER', name: 'c', digits: 5, max: 999 }] });
    expect(renderCpn(narrow, { overrides: {} }).displayValue).toBe('XXX');
    expect(renderCpn(narrow, { overrides: {}, counters: { c: 7 } }).displayValue).toBe('00007');
  });

  it('refuses list values that are not options', () => {
    expect(renderCpn(listAndHex, { categoryPrefix: '100', overrides: { size: 'XXL' } })).toMatchObject({
      displayValue: 'PN-XX-100-XXXX',
      isDeterministic: false,
      errors: [{ element: 'size', message: '"XXL" is not an option of size; options: S, M, XL' }],
    });
  });

  it('takes counter overrides when allowed and checks them', () => {
    expect(renderCpn(defaultCpnScheme, { categoryPrefix: '100', overrides: { counter: '00123' } })).toEqual({
      displayValue: '100-00123',
      isDeterministic: true,
      errors: [],
      counterRequests: [],
    });
    for (const bad of ['123', '0012a', '00000', '123456']) {
      expect(renderCpn(defaultCpnScheme, { categoryPrefix: '100', overrides: { counter: bad } }).errors).toEqual([
        { element: 'counter', message: `"${bad}" is not a value of counter counter: expected 5 decimal digits from 00001 to 99999` },
      ]);
    }
    expect(renderCpn(listAndHex, { categoryPrefix: '100', overrides: { size: 'S', serial: '00ff' } }).displayValue).toBe('PN-S-100-00FF');
  });

  it('refuses counter overrides when the library does not allow them', () => {
    const locked = { ...defaultCpnScheme, settings: { ...defaultCpnScheme.settings, allow_override: false } };
    expect(renderCpn(locked, { categoryPrefix: '100', overrides: { counter: '00123' } })).toMatchObject({
      displayValue: '100-XXXXX',
      isDeterministic: false,
      errors: [{ element: 'counter', message: 'counter is allocated automatically; this library does not allow overriding it' }],
      counterRequests: [],
    });
  });

  it('refuses overrides of constants, of the known category prefix, and of unknown elements', () => {
    expect(renderCpn(listAndHex, { categoryPrefix: '100', overrides: { nope: '1', pn: 'QQ', size: 'M', category: '200', serial: '0001' } }).errors).toEqual([
      { element: 'pn', message: 'pn is the constant "PN" and cannot be overridden' },
      { element: 'category', message: 'category comes from the component\'s category (100) and cannot be set to "200"' },
      { element: 'nope', message: 'unknown CPN element "nope"; elements: pn, size, category, serial' },
    ]);
    expect(renderCpn(listAndHex, { categoryPrefix: '100', overrides: { pn: 'pn', category: '100', size: 'M', serial: '0001' } })).toMatchObject({ displayValue: 'PN-M-100-0001', errors: [] });
    expect(renderCpn(defaultCpnScheme, { overrides: { category: '300' } }).counterRequests).toEqual([{ element: 'counter', scopeKey: 'PREFIX:300-' }]);
  });

  it('renders groups inline with the scheme delimiter and accepts a whole group as an override', () => {
    expect(renderCpn(grouped, { overrides: {} })).toMatchObject({ displayValue: 'XX.V1.XXX', counterRequests: [] });
    expect(renderCpn(grouped, { overrides: { line: 'cd' } })).toMatchObject({ displayValue: 'CD.V1.XXX', counterRequests: [{ element: 'counter', scopeKey: 'PREFIX:CD.V1.' }] });
    expect(renderCpn(grouped, { overrides: { family: 'ab.v1' }, counters: { counter: 5 } })).toMatchObject({ displayValue: 'AB.V1.005', isDeterministic: true, errors: [] });
    expect(renderCpn(grouped, { overrides: { family: 'EF.V1' } }).errors).toEqual([{ element: 'family', message: '"EF.V1" does not fit group family (XX.V1)' }]);
    expect(renderCpn(grouped, { overrides: { family: 'AB.V1', line: 'CD' } }).errors).toEqual([{ element: 'line', message: '"CD" contradicts group family ("AB.V1" gives "AB")' }]);
  });

  it('keeps the case of the prefix in the scope key when case-sensitive', () => {
    const scheme = parse({
      elements: [
        {
          type: 'LIST',
          name: 'l',
          options: [
            { value: 'ab', label: 'ab' },
            { value: 'AB', label: 'AB' },
          ],
        },
        { type: 'COUNTER', name: 'c' },
      ],
      settings: { case_sensitive: true },
    });
    expect(renderCpn(scheme, { overrides: { l: 'ab' } }).counterRequests).toEqual([{ element: 'c', scopeKey: 'PREFIX:ab-' }]);
    expect(renderCpn(scheme, { overrides: { l: 'Ab' } }).errors).toHaveLength(1);
  });
});

describe('renderCpn with element names that plain objects inherit', () => {
  it('does not read inherited properties as overrides or counters', () => {
    const scheme = parse({
      elements: [
        { type: 'GROUP', name: 'constructor', elements: [{ type: 'CATEGORY_PREFIX', name: 'p' }] },
        { type: 'COUNTER', name: 'toString' },
      ],
    });
    expect(renderCpn(scheme, { categoryPrefix: '100', overrides: {}, counters: {} })).toEqual({
      displayValue: '100-XXXXX',
      isDeterministic: false,
      errors: [],
      counterRequests: [{ element: 'toString', scopeKey: 'PREFIX:100-' }],
    });
  });
});

describe('formatCounter', () => {
  it('pads to the digits of the counter in its base', () => {
    const [, counter] = defaultCpnScheme.elements as [unknown, CpnCounterElement];
    expect(formatCounter(counter, 42)).toBe('00042');
    expect(formatCounter({ ...counter, base: 16, digits: 4, max: 0xffff }, 255)).toBe('00FF');
  });
});

describe('normalizeCpn', () => {
  it('uppercases unless the scheme is case-sensitive', () => {
    expect(normalizeCpn(defaultCpnScheme, 'pn-ab-1')).toBe('PN-AB-1');
    expect(normalizeCpn({ ...defaultCpnScheme, settings: { ...defaultCpnScheme.settings, case_sensitive: true } }, 'pn-ab-1')).toBe('pn-ab-1');
  });
});

describe('parseCpn', () => {
  it('splits a rendered CPN back into element values and renders the same CPN from them', () => {
    expect(parseCpn(defaultCpnScheme, '100-00042')).toEqual({ category: '100', counter: '00042' });
    const values = parseCpn(listAndHex, 'pn-xl-120-beef');
    expect(values).toEqual({ pn: 'PN', size: 'XL', category: '120', serial: 'BEEF' });
    expect(renderCpn(listAndHex, { categoryPrefix: '120', overrides: values ?? {} })).toMatchObject({ displayValue: 'PN-XL-120-BEEF', isDeterministic: true, errors: [] });
  });

  it('reports groups as their rendered text', () => {
    const values = parseCpn(grouped, 'CD.V1.017');
    expect(values).toEqual({ family: 'CD.V1', line: 'CD', variant: 'V1', counter: '017' });
    expect(renderCpn(grouped, { overrides: values ?? {} })).toMatchObject({ displayValue: 'CD.V1.017', errors: [] });
  });

  it('finds the split without a delimiter', () => {
    const packed = parse({ delimiter: '', elements: [sizes, { type: 'COUNTER', name: 'n', digits: 3 }] });
    expect(parseCpn(packed, 'XL042')).toEqual({ size: 'XL', n: '042' });
    expect(parseCpn(packed, 'S001')).toEqual({ size: 'S', n: '001' });
  });

  it('returns null when the CPN does not fit', () => {
    expect(parseCpn(defaultCpnScheme, '100-0042')).toBeNull();
    expect(parseCpn(defaultCpnScheme, '100-00000')).toBeNull();
    expect(parseCpn(defaultCpnScheme, '100_00042')).toBeNull();
    expect(parseCpn(listAndHex, 'PN-XXL-120-BEEF')).toBeNull();
  });
});

describe('validateFreeformCpn', () => {
  const freeform = { ...defaultCpnScheme, settings: { ...defaultCpnScheme.settings, allow_freeform: true } };

  it('refuses free-form CPNs unless the library allows them', () => {
    expect(validateFreeformCpn(defaultCpnScheme, 'ANYTHING')).toBe('this library does not allow free-form CPNs; CPNs follow the scheme XXX-XXXXX');
    expect(validateFreeformCpn(freeform, 'Legacy part 7')).toBeNull();
  });

  it('checks length, control characters and surrounding whitespace', () => {
    expect(validateFreeformCpn(freeform, '')).toBe('a CPN must be 1 to 64 characters long (got 0)');
    expect(validateFreeformCpn(freeform, 'A'.repeat(65))).toBe('a CPN must be 1 to 64 characters long (got 65)');
    expect(validateFreeformCpn(freeform, 'A\tB')).toBe('a CPN must not contain control characters');
    expect(validateFreeformCpn(freeform, ' AB')).toBe('a CPN must not start or end with whitespace');
  });
});

describe('elementsByName', () => {
  it('includes groups and the elements inside them', () => {
    expect([...elementsByName(grouped).keys()]).toEqual(['family', 'line', 'variant', 'counter']);
  });
});
