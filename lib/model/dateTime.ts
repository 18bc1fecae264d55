import * as z from 'zod';
import { InvalidInputError } from '../errors.js';

const calendarDate = z.iso.date();

/**
 * A DateTime a client sent (the scalar passes any JSON value through), as ISO 8601 UTC with milliseconds:
 * the form stored times have, so that it compares with them as a string. It must be a string starting with a
 * four-digit year that Date.parse reads, and its moment must fall in the years 0000 to 9999: a wider year is
 * written with a sign (+275760-...) and would compare before every stored time. Anything else is
 * BAD_USER_INPUT naming the field. `dayEnd`: a date alone (2026-11-24) means the last millisecond of that day.
 */
export function parseDateTimeInput(value: unknown, field: string, options: { dayEnd?: boolean } = {}): string {
  const text = typeof value === 'string' ? value.trim() : '';
  // The date written must be a day of the calendar (zod's ISO date: month lengths, leap years): Date.parse
  // reads 2026-02-30 as March 2nd.
  const at = calendarDate.safeParse(text.slice(0, 10)).success ? Date.parse(text) : Number.NaN;
  const end = options.dayEnd && /^\d{4}-\d\d-\d\d$/.test(text) ? 86_400_000 - 1 : 0;
  const iso = Number.isNaN(at) ? null : new Date(at + end).toISOString();
  if (!iso || !/^\d{4}-/.test(iso)) {
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    throw new InvalidInputError(`${field}: ${shown} is not an ISO 8601 date-time from year 0000 to 9999`, { field });
  }
  return iso;
}
