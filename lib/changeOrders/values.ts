import * as z from 'zod';
import { compilePattern } from '../config/patterns.js';
import { ChangeOrderError } from './errors.js';
import type { TemplateDocument } from './templateRules.js';

type Field = TemplateDocument['details']['info']['groups'][number]['fields'][number];

const calendarDate = z.iso.date();

/** A field's key in a change order's values: its name, or its label when it has none. */
export const fieldKey = (field: Field) => field.name ?? field.label;

/**
 * Checks a change order's values against its template's fields (type, options, required, min/max,
 * pattern) and fills enum defaults. Unknown keys are refused. Every problem is reported at once.
 */
export function validateValues(document: TemplateDocument, raw: unknown): Record<string, unknown> {
  const values = raw === null || raw === undefined ? {} : raw;
  if (typeof values !== 'object' || Array.isArray(values)) throw new ChangeOrderError('VALUES_INVALID', 'values must be an object of field name -> value', { problems: [] });
  const given = values as Record<string, unknown>;
  const fields = document.details.info.groups.flatMap((group) => group.fields);
  const problems: { field: string; message: string }[] = [];
  const out: Record<string, unknown> = {};
  const known = new Set(fields.map(fieldKey));
  for (const key of Object.keys(given)) if (!known.has(key)) problems.push({ field: key, message: `${key} is not a field of the template` });
  for (const field of fields) {
    const key = fieldKey(field);
    let value = given[key];
    if ((value === undefined || value === null) && field.type === 'enum' && field.default !== undefined) value = field.default;
    const required = field.validations?.required ?? field.required ?? false;
    if (value === undefined || value === null || value === '') {
      if (required) problems.push({ field: key, message: `${key} is required` });
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) problems.push({ field: key, message: `${key}: ${problem}` });
    else out[key] = value;
  }
  if (problems.length) throw new ChangeOrderError('VALUES_INVALID', problems.map((p) => p.message).join('; '), { problems });
  return out;
}

function checkValue(field: Field, value: unknown): string | undefined {
  const v = field.validations;
  const options = new Set((field.options ?? []).map((o) => o.value));
  switch (field.type) {
    case 'text':
    case 'longtext': {
      if (typeof value !== 'string') return 'must be text';
      if (value.length > 10_000) return 'is at most 10,000 characters';
      if (v?.min !== undefined && value.length < v.min) return `must be at least ${v.min} characters`;
      if (v?.max !== undefined && value.length > v.max) return `must be at most ${v.max} characters`;
      if (v?.pattern !== undefined && !compilePattern(v.pattern)?.matchesSome(value)) return `must match ${v.pattern}`;
      return undefined;
    }
    case 'number':
    case 'currency': {
      if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return 'must be a finite number';
      if (v?.min !== undefined && value < v.min) return `must be at least ${v.min}`;
      if (v?.max !== undefined && value > v.max) return `must be at most ${v.max}`;
      return undefined;
    }
    case 'date':
      // A day of the calendar (zod's ISO date: month lengths, leap years): Date.parse reads 2026-02-30 as March 2nd.
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) && calendarDate.safeParse(value.slice(0, 10)).success && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be an ISO 8601 date';
    case 'enum':
      return typeof value === 'string' && options.has(value) ? undefined : `must be one of ${[...options].join(', ')}`;
    case 'list': {
      if (field.multiSelect) {
        return Array.isArray(value) && value.length <= options.size && value.every((item) => typeof item === 'string' && options.has(item)) && new Set(value).size === value.length
          ? undefined
          : `must be a list of distinct values among ${[...options].join(', ')}`;
      }
      return typeof value === 'string' && options.has(value) ? undefined : `must be one of ${[...options].join(', ')}`;
    }
  }
}
