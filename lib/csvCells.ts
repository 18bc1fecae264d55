/**
 * Formula injection (OWASP "CSV injection"), for every CSV the service writes (lib/transfer/csv.ts says
 * more): a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a
 * formula. Such a data cell is written with a leading single quote, which spreadsheets show as text; so is
 * a cell that really starts with a single quote, which makes the escaping unambiguous: reading a data cell
 * removes exactly one leading single quote. A plain number (`-5`, `+1e3`) is not a formula and stays as is.
 */
const formulaStart = /^[=+\-@\t\r]/;
const plainNumber = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A data cell as written: a quote before a cell a spreadsheet would run as a formula, or that starts with a quote. */
export function escapeCell(cell: string): string {
  return cell.startsWith("'") || (formulaStart.test(cell) && !plainNumber.test(cell)) ? `'${cell}` : cell;
}

/** A data cell as read: the inverse of escapeCell (one leading single quote removed). */
export function unescapeCell(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

/**
 * A number as a sheet writes it: decimal digits, an optional sign, point and exponent (`12`, `-0.5`, `1e3`),
 * else undefined. Not what JavaScript's Number() also takes (`0x10`, `0b1`, `Infinity`, blanks as 0): a cell
 * a person did not mean as a number is refused, naming it, rather than read as another number.
 */
export function numberCell(cell: string): number | undefined {
  const text = cell.trim();
  return plainNumber.test(text) ? Number(text) : undefined;
}

export const escapedRows = (rows: string[][]) => rows.map((row) => row.map(escapeCell));
