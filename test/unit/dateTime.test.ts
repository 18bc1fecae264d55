import { describe, expect, it } from 'vitest';
import { parseDateTimeInput } from '../../lib/model/dateTime.js';

const refused = (value: unknown) => {
  try {
    parseDateTimeInput(value, 'asOf');
  } catch (error) {
    return (error as { code?: string; details?: Record<string, unknown> }).code === 'BAD_USER_INPUT' && (error as { details: Record<string, unknown> }).details.field === 'asOf';
  }
  return false;
};

describe('parseDateTimeInput: the one rule of a DateTime a client sends', () => {
  it('takes a date-time with Z or an offset, or a date alone, and answers ISO 8601 UTC with milliseconds', () => {
    expect(parseDateTimeInput('2026-11-24T10:15:00Z', 'asOf')).toBe('2026-11-24T10:15:00.000Z');
    expect(parseDateTimeInput('2026-11-24T12:15:00+02:00', 'asOf')).toBe('2026-11-24T10:15:00.000Z');
    expect(parseDateTimeInput('2026-11-24', 'asOf')).toBe('2026-11-24T00:00:00.000Z');
    expect(parseDateTimeInput('2026-11-24', 'filter.to', { dayEnd: true })).toBe('2026-11-24T23:59:59.999Z');
    expect(parseDateTimeInput('2028-02-29T00:00:00Z', 'asOf')).toBe('2028-02-29T00:00:00.000Z');
  });

  it('refuses a day the calendar does not have (Date.parse would move it into the next month), with the field', () => {
    for (const value of ['2026-02-30', '2026-02-29T00:00:00Z', '2026-04-31T12:00:00Z', '2026-13-01', '2026-00-10']) expect(refused(value), value).toBe(true);
  });

  it('refuses what is no date-time: other types, other forms, years beyond 9999', () => {
    for (const value of [12345, {}, [], true, null, '', 'not a date', '24.11.2026', '+275760-09-13T00:00:00.000Z']) expect(refused(value), JSON.stringify(value)).toBe(true);
  });
});
