import type * as z from 'zod';
import { InvalidInputError } from './errors.js';

/**
 * Parses a GraphQL input with its zod schema; the first problem becomes BAD_USER_INPUT naming its path
 * (`input.stages.0.index: ...`, with `field` the same path).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = 'input'): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = [prefix, ...issue.path.map(String)].join('.');
  throw new InvalidInputError(`${field}: ${issue.message}`, { field });
}
