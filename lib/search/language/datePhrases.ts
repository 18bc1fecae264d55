import { InvalidInputError } from '../../errors.js';
import type { Clause } from './clauses.js';
import { addDays, dayPeriod, isDay, monthOf, monthPeriod, periodClauses, shiftedStart, today, weekStart, yearPeriod, type DateRelation, type Period } from './dates.js';
import type { TokenCursor } from './tokenCursor.js';
import { dateRelations, numberWords, units } from './words.js';

/** The date phrases of a sentence (sentence.ts), read at a cursor: periods, relative dates and the relation to them. */

/**
 * since last March, before 2024, in March 2025, between 2025-01-01 and 2025-02-01, today, last 7 days, 3 days ago: the clauses on
 * `field` of the date phrase at the cursor (consumed), or undefined (nothing consumed).
 */
export function readDateClauses(cursor: TokenCursor, clock: Date, field: 'createdAt' | 'updatedAt'): Clause[] | undefined {
  const start = cursor.i;
  const now = today(clock);
  const first = cursor.word();
  const ranged = first === 'between';
  let relation: DateRelation | undefined = dateRelations[first];
  if (first === 'prior' && cursor.word(1) === 'to') {
    relation = 'before';
    cursor.i += 1;
  }
  if (relation || ranged) cursor.i += 1;
  if (cursor.word() === 'the') cursor.i += 1;
  const relative = readRelative(cursor, now);
  if (relative) return periodClauses(field, relative.since ? 'since' : (relation ?? 'during'), relative.period);
  const period = relation || ranged ? readPeriod(cursor, now) : undefined;
  if (!period) {
    cursor.i = start;
    return undefined;
  }
  const rangeEnd = ranged ? cursor.word() === 'and' : first === 'from' && ['to', 'until', 'till', 'through'].includes(cursor.word());
  if (rangeEnd) {
    const before = cursor.i;
    cursor.i += 1;
    const last = readPeriod(cursor, now);
    if (last) return [...periodClauses(field, 'since', period), ...periodClauses(field, 'until', last)];
    cursor.i = before;
  }
  return periodClauses(field, ranged ? 'during' : relation!, period);
}

/** today, yesterday, recently, this/last week|month|year, last March, last N days, N days ago (consumed when found). */
function readRelative(cursor: TokenCursor, now: string): { period: Period; since: boolean } | undefined {
  const w = cursor.word();
  const count = (text: string) => Number(text) || numberWords[text];
  if (w === 'today' || w === 'yesterday') {
    cursor.i += 1;
    return { period: dayPeriod(w === 'today' ? now : addDays(now, -1)), since: false };
  }
  if (w === 'recently' || w === 'recent') {
    cursor.i += 1;
    return { period: dayPeriod(addDays(now, -7)), since: true };
  }
  const agoUnit = units[cursor.word(1)];
  if (count(w) && agoUnit && cursor.word(2) === 'ago') {
    cursor.i += 3;
    return { period: dayPeriod(shiftedStart(now, agoUnit, count(w)!)), since: false };
  }
  if (!['this', 'last', 'past', 'previous'].includes(w)) return undefined;
  const spanUnit = units[cursor.word(2)];
  if (w !== 'this' && count(cursor.word(1)) && spanUnit) {
    const n = count(cursor.word(1))!;
    cursor.i += 3;
    return { period: dayPeriod(shiftedStart(now, spanUnit, n)), since: true };
  }
  const unit = units[cursor.word(1)];
  if (unit && unit !== 'day') {
    cursor.i += 2;
    const current = unit === 'week' ? weekStart(now) : unit === 'month' ? `${now.slice(0, 7)}-01` : `${now.slice(0, 4)}-01-01`;
    if (w === 'this') return { period: { start: current, end: now }, since: false };
    return { period: { start: shiftedStart(current, unit, 1), end: addDays(current, -1) }, since: false };
  }
  const month = monthOf(cursor.word(1));
  if (month !== undefined && (w === 'last' || w === 'this')) {
    cursor.i += 2;
    const year = Number(now.slice(0, 4));
    return { period: monthPeriod(w === 'this' || month < Number(now.slice(5, 7)) - 1 ? year : year - 1, month), since: false };
  }
  return undefined;
}

/** 2025-03-01, 2025-03, 2025, March, March 2025, March 5(th)(, 2025), 5 March (2025), or a relative period. */
function readPeriod(cursor: TokenCursor, now: string): Period | undefined {
  const relative = readRelative(cursor, now);
  if (relative) return relative.period;
  const w = cursor.word();
  let period: Period | undefined;
  if (isDay(w)) period = dayPeriod(w);
  else if (/^\d{4}-\d{2}$/.test(w) && Number(w.slice(5, 7)) >= 1 && Number(w.slice(5, 7)) <= 12) period = monthPeriod(Number(w.slice(0, 4)), Number(w.slice(5, 7)) - 1);
  else if (/^(19|20)\d{2}$/.test(w)) period = yearPeriod(Number(w));
  if (period) {
    cursor.i += 1;
    return period;
  }
  const dayNumber = (text: string) => (/^\d{1,2}(st|nd|rd|th)?$/.test(text) ? Number.parseInt(text, 10) : undefined);
  let month = monthOf(w);
  let day: number | undefined;
  let used = 1;
  if (month === undefined && dayNumber(w) !== undefined && monthOf(cursor.word(1)) !== undefined) {
    day = dayNumber(w);
    month = monthOf(cursor.word(1));
    used = 2;
  } else if (month !== undefined && dayNumber(cursor.word(1)) !== undefined) {
    day = dayNumber(cursor.word(1));
    used = 2;
  }
  if (month === undefined) return undefined;
  const yearAt = cursor.peek(used)?.comma ? used + 1 : used;
  const explicitYear = /^(19|20)\d{2}$/.test(cursor.word(yearAt)) ? Number(cursor.word(yearAt)) : undefined;
  cursor.i += explicitYear ? yearAt + 1 : used;
  const thisYear = Number(now.slice(0, 4));
  const currentMonth = Number(now.slice(5, 7)) - 1;
  // Without a year: the most recent such month (or day) up to today.
  const year = explicitYear ?? (month < currentMonth || (month === currentMonth && (day ?? 1) <= Number(now.slice(8, 10))) ? thisYear : thisYear - 1);
  if (day === undefined) return monthPeriod(year, month);
  // Date.UTC rolls a day the month does not have into another month ("February 31" was March 3): refused.
  const date = new Date(Date.UTC(year, month, day));
  if (date.getUTCMonth() !== month || day < 1) {
    throw new InvalidInputError(`query: ${monthNames[month]} ${day} is not a day of ${year}`, { field: 'query' });
  }
  return dayPeriod(date.toISOString().slice(0, 10));
}

const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
