import { describe, expect, it } from 'vitest';
import { defaultCategories } from '../../lib/config/categories.js';
import { defaultCpnScheme } from '../../lib/config/cpnScheme.js';
import { defaultRevisionScheme } from '../../lib/config/revisionScheme.js';
import { defaultStatuses } from '../../lib/config/statuses.js';
import { componentsFromCsv } from '../../lib/transfer/csvSource.js';
import type { ImportProblem } from '../../lib/errors.js';
import { parse } from 'csv-parse/sync';
import { bomToCsv, componentsToCsv, parseBomCsv, parseComponentsCsv } from '../../lib/transfer/csv.js';
import { countersOfCpn, mergeCounters } from '../../lib/transfer/counters.js';
import { sourcingFromCsv } from '../../lib/transfer/sourcingCsv.js';
import type { ExportedComponent } from '../../lib/transfer/format.js';

const component = (overrides: Partial<ExportedComponent>): ExportedComponent => ({
  id: 'a',
  cpn: '100-00001',
  name: 'R',
  description: null,
  categoryId: 'resistor',
  statusId: 'design',
  revisionValue: 'A',
  state: 'MODIFIED',
  version: 1,
  eid: null,
  labels: [],
  attributeValues: {},
  documentFormats: null,
  isArchived: false,
  notRevisionManaged: false,
  lastReleasedNotRevisionManaged: null,
  fileId: null,
  imageFileId: null,
  originIntegrationId: 'native',
  links: ['native'],
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  createdBy: 'u',
  updatedBy: 'u',
  history: [],
  bom: null,
  bomHistory: [],
  documentLinks: null,
  ...overrides,
});

describe('the CSV view of a library', () => {
  it('writes lists with ; and falls back to a JSON array cell when a value holds ; — and reads both back', () => {
    const csv = componentsToCsv(
      [component({ labels: ['rohs', 'reach'], documentFormats: ['a;b', 'c'], description: 'line one\nline "two", three', attributeValues: { resistance: 4700 } })],
      defaultCategories,
    );
    const problems: ImportProblem[] = [];
    const [row] = parseComponentsCsv(csv, problems);
    expect(problems).toEqual([]);
    expect(row).toMatchObject({ row: 2, cpn: '100-00001', labels: ['rohs', 'reach'], documentFormats: ['a;b', 'c'], description: 'line one\nline "two", three' });
    expect(row!.attributes.get('resistance')).toBe('4700');
  });

  it('reports malformed files, unknown, repeated and missing columns, and bad list cells with their place', () => {
    const problems: ImportProblem[] = [];
    expect(parseComponentsCsv('cpn,name,category\n"open,x,y\n', problems)).toEqual([]);
    parseComponentsCsv('cpn,name,colour,name\n', problems);
    parseComponentsCsv('cpn,name,category,labels\n1,n,c,"[1,2]"\n', problems);
    parseBomCsv('parentCpn\n', problems);
    expect(problems.map((p) => [p.path, p.code])).toEqual([
      ['components.csv line 2', 'CSV_MALFORMED'],
      ['components.csv header', 'CSV_UNKNOWN_COLUMN'],
      ['components.csv header', 'CSV_DUPLICATE_COLUMN'],
      ['components.csv header', 'CSV_MISSING_COLUMN'],
      ['components.csv row 2, labels', 'CSV_INVALID_CELL'],
      ['bom.csv header', 'CSV_MISSING_COLUMN'],
    ]);
  });
});

describe('formula injection in the CSV view (OWASP CSV injection)', () => {
  const hostile = ['=HYPERLINK("http://evil.test","x")', '+SUM(1;2)', "-2+3+cmd|' /C calc'!A0", '@SUM(1)', '\tTAB', '\rCR', "'quoted", "''twice", "'=1+1", '=', "'"];
  const formula = /^[=+\-@\t\r]/;

  it('writes no data cell a spreadsheet would run as a formula, and reads every value back exactly', () => {
    const child = component({ id: 'b', cpn: '100-00002', name: 'child' });
    for (const value of hostile) {
      const parent = component({
        name: value,
        description: value,
        eid: value,
        labels: [value, 'plain'],
        attributeValues: { resistance: value },
        bom: {
          version: 1,
          lines: [
            { lineId: 'l', childId: 'b', quantity: null, refDes: value, itemNumber: value, notes: value, childHistoryId: null, createdByIntegrationId: null, createdAt: '2025-01-01T00:00:00.000Z' },
          ],
        } as never,
      });
      const componentsCsv = componentsToCsv([parent, child], defaultCategories);
      const bomCsv = bomToCsv([parent, child]);
      for (const csv of [componentsCsv, bomCsv]) {
        const cells = (parse(csv) as string[][]).slice(1).flat();
        expect(
          cells.filter((cell) => formula.test(cell)),
          csv,
        ).toEqual([]);
      }
      const problems: ImportProblem[] = [];
      const [row] = parseComponentsCsv(componentsCsv, problems);
      const [line] = parseBomCsv(bomCsv, problems);
      expect(problems).toEqual([]);
      expect(row).toMatchObject({ name: value, description: value, eid: value });
      expect(row!.attributes.get('resistance')).toBe(value.trim());
      expect(row!.labels).toEqual([value, 'plain']);
      expect(line).toMatchObject({ refDes: value, itemNumber: value, notes: value });
    }
  });

  it('leaves plain numbers as numbers, and strips one leading quote from a hand-written cell', () => {
    const csv = componentsToCsv([component({ attributeValues: { resistance: -4.7, tolerance: '+1e3' } })], defaultCategories);
    expect(csv).toContain(',-4.7');
    expect(csv).toContain(',+1e3');
    const problems: ImportProblem[] = [];
    const [row] = parseComponentsCsv("cpn,name,category,description\n'100-1,'=x,resistor,''y\n", problems);
    expect(problems).toEqual([]);
    expect(row).toMatchObject({ cpn: '100-1', name: '=x', description: "'y" });
  });
});

describe('CPN counters of an import', () => {
  it('finds the counter sequence and value a CPN of the scheme used, and none for other CPNs', () => {
    expect(countersOfCpn(defaultCpnScheme, '100-00042')).toEqual([{ element: 'counter', scopeKey: 'PREFIX:100-', value: 42 }]);
    expect(countersOfCpn(defaultCpnScheme, 'FREE-FORM')).toEqual([]);
  });

  it('keeps the highest value per sequence across exported counters and CPNs', () => {
    const merged = mergeCounters(defaultCpnScheme, ['100-00007', '100-00003', '110-00002'], [{ element: 'counter', scopeKey: 'PREFIX:100-', value: 5 }]);
    expect(merged.sort((a, b) => a.scopeKey.localeCompare(b.scopeKey))).toEqual([
      { element: 'counter', scopeKey: 'PREFIX:100-', value: 7 },
      { element: 'counter', scopeKey: 'PREFIX:110-', value: 2 },
    ]);
  });
});

describe('sourcing.csv', () => {
  const read = (text: string) => {
    const problems: ImportProblem[] = [];
    const c = component({});
    sourcingFromCsv(text, [c], false, '2026-01-01T00:00:00.000Z', problems);
    const parts = (c.sourcing?.parts ?? []).map((p) => ({
      mpn: p.mpn,
      legacy: p.isLegacyImport,
      quotes: p.quotes.map((q) => ({ legacy: q.isLegacyImport, breaks: q.priceBreaks.map((b) => [b.minQuantity, b.unitPrice]) })),
    }));
    return { parts, problems: problems.map((p) => [p.path, p.code]) };
  };
  const head = 'cpn,manufacturer,mpn,distributor,currency,minQuantity,unitPrice,legacy';

  it('keeps quotes apart by their number, and merges the rows of a hand-written sheet without one by their terms', () => {
    expect(read(`${head},quote\n100-00001,Yageo,R1,DigiKey,USD,1,0.03,,1\n100-00001,Yageo,R1,DigiKey,USD,1,0.02,,2\n100-00001,Yageo,R1,DigiKey,USD,1000,0.01,,2\n`)).toEqual({
      parts: [
        {
          mpn: 'R1',
          legacy: false,
          quotes: [
            { legacy: false, breaks: [[1, 0.03]] },
            {
              legacy: false,
              breaks: [
                [1, 0.02],
                [1000, 0.01],
              ],
            },
          ],
        },
      ],
      problems: [],
    });
    expect(read(`${head}\n100-00001,Yageo,R1,DigiKey,USD,1,0.02,\n100-00001,Yageo,R1,DigiKey,USD,1000,0.01,\n`).parts[0]!.quotes).toEqual([
      {
        legacy: false,
        breaks: [
          [1, 0.02],
          [1000, 0.01],
        ],
      },
    ]);
    // One quote number on rows of another distributor or currency is a mistake of the sheet, named by its row.
    expect(read(`${head},quote\n100-00001,Yageo,R1,DigiKey,USD,1,0.02,,1\n100-00001,Yageo,R1,Mouser,USD,10,0.01,,1\n`).problems).toEqual([['sourcing.csv row 3 quote', 'CSV_INVALID_CELL']]);
  });

  it('marks the part, the quote or both legacy as the legacy cell says', () => {
    const sheet = `${head},quote\n100-00001,Yageo,R1,DigiKey,USD,1,1,part,1\n100-00001,Yageo,R2,DigiKey,USD,1,1,quote,1\n100-00001,Yageo,R3,DigiKey,USD,1,1,true,1\n100-00001,Yageo,R4,DigiKey,USD,1,1,false,1\n`;
    expect(read(sheet).parts.map((p) => [p.mpn, p.legacy, p.quotes[0]!.legacy])).toEqual([
      ['R1', true, false],
      ['R2', false, true],
      ['R3', true, true],
      ['R4', false, false],
    ]);
    expect(read(`${head}\n100-00001,Yageo,R1,DigiKey,USD,1,1,maybe\n`).problems).toEqual([['sourcing.csv row 2 legacy', 'CSV_INVALID_CELL']]);
  });
  it('reads numbers as a sheet writes them, and names a cell JavaScript alone would read as a number', () => {
    expect(read(`${head}\n100-00001,Yageo,R1,DigiKey,USD,1e2,.5,\n`).parts[0]!.quotes[0]!.breaks).toEqual([[100, 0.5]]);
    for (const [quantity, price, column] of [
      ['0x10', '1', 'minQuantity'],
      ['1', '0x10', 'unitPrice'],
      ['1', 'Infinity', 'unitPrice'],
      ['0b11', '1', 'minQuantity'],
    ]) {
      expect(read(`${head}\n100-00001,Yageo,R1,DigiKey,USD,${quantity},${price},\n`).problems, `${quantity} ${price}`).toEqual([[`sourcing.csv row 2 ${column}`, 'CSV_INVALID_CELL']]);
    }
  });
});

describe('bom.csv quantities', () => {
  it('reads a quantity as a sheet writes it, and refuses one JavaScript alone would read as a number', () => {
    const config = { revisionScheme: defaultRevisionScheme, cpnScheme: defaultCpnScheme, statuses: defaultStatuses, categories: defaultCategories };
    const actor = { userId: 'u', principalId: 'native', actingIntegrationId: null, at: '2026-01-01T00:00:00.000Z' };
    const parent = component({ id: 'a', cpn: '100-00001', categoryId: 'pcba' });
    const child = component({ id: 'b', cpn: '100-00002' });
    const componentsCsv = componentsToCsv([parent, child], defaultCategories);
    const quantities = (quantity: string) => {
      const problems: ImportProblem[] = [];
      const { components } = componentsFromCsv(componentsCsv, `parentCpn,childCpn,quantity\n100-00001,100-00002,${quantity}\n`, config, actor, problems);
      return { quantity: components[0]!.bom?.lines[0]?.quantity, problems: problems.map((p) => p.code) };
    };
    expect(quantities('2.5')).toEqual({ quantity: 2.5, problems: [] });
    expect(quantities('1e1')).toEqual({ quantity: 10, problems: [] });
    for (const quantity of ['0x10', '0b11', 'Infinity', '1,5']) expect(quantities(`"${quantity}"`).problems, quantity).toEqual(['INVALID_BOM_LINE']);
  });
});
