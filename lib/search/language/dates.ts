import type { Clause, ClauseField } from './clauses.js';

/** A span of whole UTC days, both ends inclusive, as YYYY-MM-DD. */
export interface Period {
  start: string;
  end: string;
}

const dayMs = 24 * 60 * 60 * 1000;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (day: string, days: number) => dayOf(Date.parse(`${day}T00:00:00Z`) + days * dayMs);

const monthNames = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "march", "mar", "sept" -> 0-based month, or undefined. */
export function monthOf(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, '');
  const index = monthNames.indexOf(w) >= 0 ? monthNames.indexOf(w) : w === 'sept' ? 8 : monthNames.findIndex((name) => name.slice(0, 3) === w);
  return index >= 0 ? index : undefined;
}

export function monthPeriod(year: number, month: number): Period {
  const start = Date.UTC(year, month, 1);
  return { start: dayOf(start), end: dayOf(Date.UTC(year, month + 1, 1) - dayMs) };
}

export const yearPeriod = (year: number): Period => ({ start: `${year}-01-01`, end: `${year}-12-31` });
export const dayPeriod = (day: string): Period => ({ start: day, end: day });

export function today(now: Date): string {
  return dayOf(now.getTime());
}

/** Monday of the ISO week of a day. */
export function weekStart(day: string): string {
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}

/** Valid YYYY-MM-DD calendar day. */
export function isDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) && dayOf(Date.parse(`${text}T00:00:00Z`)) === text;
}

/** A period written compactly: YYYY-MM-DD, YYYY-MM, YYYY, today, yesterday. */
export function parseCompactPeriod(text: string, now: Date): Period | undefined {
  const t = text.toLowerCase();
  if (t === 'today') return dayPeriod(today(now));
  if (t === 'yesterday') return dayPeriod(addDays(today(now), -1));
  if (isDay(t)) return dayPeriod(t);
  const month = /^(\d{4})-(\d{2})$/.exec(t);
  if (month && Number(month[2]) >= 1 && Number(month[2]) <= 12) return monthPeriod(Number(month[1]), Number(month[2]) - 1);
  if (/^\d{4}$/.test(t)) return yearPeriod(Number(t));
  return undefined;
}

export type DateRelation = 'since' | 'after' | 'before' | 'until' | 'during';

/** The date clauses of "<relation> <period>" on a date field. */
export function periodClauses(field: ClauseField & ('createdAt' | 'updatedAt'), relation: DateRelation, period: Period): Clause[] {
  const single = period.start === period.end;
  switch (relation) {
    case 'since':
      return [{ field, comparator: 'rangeStart', value: period.start }];
    case 'after':
      return single ? [{ field, comparator: 'after', value: period.start }] : [{ field, comparator: 'rangeStart', value: addDays(period.end, 1) }];
    case 'before':
      return [{ field, comparator: 'before', value: period.start }];
    case 'until':
      return [{ field, comparator: 'rangeEnd', value: period.end }];
    case 'during':
      return single
        ? [{ field, comparator: 'on', value: period.start }]
        : [
            { field, comparator: 'rangeStart', value: period.start },
            { field, comparator: 'rangeEnd', value: period.end },
          ];
  }
}

/**
 * The earliest day a relative phrase reaches: "last 999999999 days" is since this day (every component),
 * "300000 years ago" this day (none). Before it a day has no YYYY-MM-DD form a filter takes (a year
 * below 100, or before year 0), and far enough back none at all (a RangeError, which was a server error).
 */
export const earliestDay = '0100-01-01';

/** The day `count` units before `day`, or earliestDay when that is before it. */
export function shiftedStart(day: string, unit: 'day' | 'week' | 'month' | 'year', count: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (unit === 'day') d.setUTCDate(d.getUTCDate() - count);
  else if (unit === 'week') d.setUTCDate(d.getUTCDate() - 7 * count);
  else if (unit === 'month') d.setUTCMonth(d.getUTCMonth() - count);
  else d.setUTCFullYear(d.getUTCFullYear() - count);
  // An invalid date (past the Date range) compares false: taken as the earliest day too.
  return d.getTime() >= Date.parse(`${earliestDay}T00:00:00Z`) ? d.toISOString().slice(0, 10) : earliestDay;
}
