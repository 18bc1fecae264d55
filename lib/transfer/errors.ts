import { DomainError, type ImportProblem } from '../errors.js';

/** The most problems an IMPORT_INVALID error lists (the count says how many there were). */
export const maxListedImportProblems = 1000;

/** An import refused before anything was written: every problem found, each with its place in the input. */
export class ImportInvalidError extends DomainError {
  constructor(readonly problems: ImportProblem[]) {
    const listed = problems.slice(0, maxListedImportProblems);
    super(
      'IMPORT_INVALID',
      `The import was refused with ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was written. First: ${problems[0]?.path}: ${problems[0]?.message}`,
      undefined,
      { problems: listed, problemCount: problems.length },
    );
  }
}
