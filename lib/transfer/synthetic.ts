import { stringify } from 'csv-stringify/sync';

/**
 * A generated library in the CSV format (bench and tests): `count` components over the default
 * categories, every 25th an assembly (PCB Assembly) whose BOM holds the parts that follow it (up to 20),
 * every 100th a document linked from the assembly before it.
 */
export function syntheticLibraryCsv(count: number): { componentsCsv: string; bomCsv: string } {
  const parts = [
    { category: 'resistor', prefix: '100', attr: 'attr:resistance', value: (n: number) => String(100 + (n % 900)) },
    { category: 'capacitor', prefix: '110', attr: 'attr:capacitance', value: () => '1e-7' },
    { category: 'connector', prefix: '130', attr: 'attr:positions', value: (n: number) => String(2 + (n % 40)) },
    { category: 'mechanical', prefix: '200', attr: 'attr:material', value: () => 'Al 6061' },
  ];
  const statuses = ['design', 'prototype', 'production'];
  const attrColumns = [...new Set(parts.map((p) => p.attr))];
  const rows: string[][] = [];
  const bom: string[][] = [];
  let assembly: string | null = null;
  let assemblyRow: string[] | null = null;
  let children = 0;
  for (let n = 0; n < count; n += 1) {
    const cpnOf = (prefix: string) => `${prefix}-${String(n + 1).padStart(5, '0')}`;
    if (n % 25 === 0) {
      assembly = cpnOf('400');
      children = 0;
      assemblyRow = [assembly, `Board ${n}`, 'pcba', statuses[n % 3]!, '', '', `assembly number ${n}`, '', 'top', '', '', ...attrColumns.map(() => '')];
      rows.push(assemblyRow);
      continue;
    }
    if (n % 100 === 99) {
      const document = cpnOf('900');
      rows.push([document, `Drawing ${n}`, 'drawing', 'design', '', '', '', '', '', 'PDF', '', ...attrColumns.map(() => '')]);
      if (assemblyRow) assemblyRow[10] = document;
      continue;
    }
    const part = parts[n % parts.length]!;
    const cpn = cpnOf(part.prefix);
    rows.push([
      cpn,
      `${part.category} ${n}`,
      part.category,
      statuses[n % 3]!,
      '',
      n % 7 === 0 ? 'RELEASED' : '',
      n % 2 ? `seeded part ${n}` : '',
      `ERP-${n}`,
      n % 2 ? 'rohs' : 'rohs;reach',
      '',
      '',
      ...attrColumns.map((c) => (c === part.attr ? part.value(n) : '')),
    ]);
    if (assembly && children < 20) {
      children += 1;
      bom.push([assembly, cpn, String(1 + (n % 4)), `R${children}`, String(children * 10), '']);
    }
  }
  return {
    componentsCsv: stringify([['cpn', 'name', 'category', 'status', 'revision', 'state', 'description', 'eid', 'labels', 'documentFormats', 'documents', ...attrColumns], ...rows]),
    bomCsv: stringify([['parentCpn', 'childCpn', 'quantity', 'refDes', 'itemNumber', 'notes'], ...bom]),
  };
}
