import * as z from 'zod';

export interface DocumentProblem {
  path: (string | number)[];
  message: string;
}

/**
 * A rule over a whole configuration document. It runs even when entries already failed their own checks
 * (zod skips refinements then by default), so a refused document lists every problem at once; the rule
 * must therefore read the raw value defensively.
 */
export function documentRule(problems: (raw: unknown) => DocumentProblem[]) {
  return z.superRefine(
    (value: unknown, ctx) => {
      for (const problem of problems(value)) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
    },
    { when: () => true },
  );
}

/** The entries of `raw[field]` that are objects, with their index (anything else is left to the schema). */
export function entriesOf(raw: unknown, field: string): { index: number; entry: Record<string, unknown> }[] {
  const list = (raw as Record<string, unknown> | null)?.[field];
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry, index) => (entry && typeof entry === 'object' ? [{ index, entry: entry as Record<string, unknown> }] : []));
}

/** Problems for ids given twice among the entries. */
export function duplicateIds(raw: unknown, field: string, what: string, prefix: (string | number)[] = []): DocumentProblem[] {
  const seen = new Set<unknown>();
  const problems: DocumentProblem[] = [];
  for (const { index, entry } of entriesOf(raw, field)) {
    if (typeof entry.id !== 'string') continue;
    if (seen.has(entry.id)) problems.push({ path: [...prefix, field, index, 'id'], message: `duplicate ${what} id "${entry.id}"` });
    seen.add(entry.id);
  }
  return problems;
}
