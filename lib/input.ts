import type * as z from 'zod';
import { ComponentInputError, InvalidInputError } from './errors.js';

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

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An optional id argument: absent (null or omitted) answers false; present, it must be a UUID, or the call is
 * BAD_USER_INPUT naming the field (an empty id is malformed, never "absent").
 */
export function presentId(value: string | null | undefined, field: string): value is string {
  if (value === undefined || value === null) return false;
  if (!uuidPattern.test(value)) throw new InvalidInputError(`${field} ${JSON.stringify(value)} is not an id (a UUID)`, { field });
  return true;
}

/**
 * The ids of a multi-input update (component.update, item.update): each must be a component id (a UUID)
 * and none may appear twice. An empty id is malformed, never "absent". The first problem is BAD_USER_INPUT
 * with field `id` and the index of the input it concerns.
 */
export function checkInputIds(ids: readonly string[]): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (!uuidPattern.test(id)) throw new ComponentInputError(`id ${JSON.stringify(id)} is not a component id (a UUID)`, 'id', index);
    if (seen.has(id)) throw new ComponentInputError(`component ${id} appears twice in this call`, 'id', index);
    seen.add(id);
  });
}

/** Keys that address a prototype in JavaScript (and that the SDK's marshalling reads as a class). */
const prototypeKeys = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * What makes a client's JSON value unfit to keep: a key that addresses a prototype (`__proto__`,
 * `constructor`, `prototype`, any case) at any depth, or nesting deeper than `maxDepth`. Walks iteratively.
 */
export function unsafeJsonProblem(value: unknown, maxDepth = 32): { key: string } | { tooDeep: number } | undefined {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > maxDepth) return { tooDeep: maxDepth };
    if (Array.isArray(item)) {
      for (const element of item) pending.push([element, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(item)) {
      if (prototypeKeys.has(key.toLowerCase())) return { key };
      pending.push([child, depth + 1]);
    }
  }
  return undefined;
}
