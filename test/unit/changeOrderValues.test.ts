import { describe, expect, it } from 'vitest';
import type { TemplateDocument } from '../../lib/changeOrders/templateRules.js';
import { validateValues } from '../../lib/changeOrders/values.js';

const template = { details: { info: { groups: [{ fields: [{ type: 'date', label: 'Needed by', name: 'neededBy' }] }] } } } as unknown as TemplateDocument;

describe('change order values: date fields', () => {
  it('take a day of the calendar, alone or with a time', () => {
    for (const value of ['2028-02-29', '2026-04-30', '2026-02-28T10:00:00Z', '2026-02-28T10:00:00.5+02:00']) expect(validateValues(template, { neededBy: value })).toEqual({ neededBy: value });
  });

  it('refuse a day the month does not have (Date.parse rolled 2026-02-30 over to March 2nd and it was kept)', () => {
    for (const value of ['2026-02-30', '2026-04-31', '2027-02-29', '2026-02-31T10:00:00Z', '2026-13-01', 'tomorrow']) {
      expect(() => validateValues(template, { neededBy: value }), value).toThrow(/neededBy: must be an ISO 8601 date/);
    }
  });
});
