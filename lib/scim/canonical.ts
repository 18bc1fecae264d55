import { invalidValue } from './errors.js';
import { enterpriseAttributes, enterpriseSchemaId, type AttributeDefinition } from './schemas.js';

/** A group's members in one request (a PUT replaces them all); other multi-valued attributes take 100. */
export const maxMembers = 10_000;

/** Entra ID sends booleans as the strings "True" and "False"; RFC 7643 booleans are JSON booleans. */
function toBoolean(value: unknown, path: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  throw invalidValue(`${path} must be a boolean`);
}

function scalar(definition: AttributeDefinition, value: unknown, path: string): unknown {
  if (definition.type === 'boolean') return toBoolean(value, path);
  if (definition.type === 'integer' || definition.type === 'decimal') {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidValue(`${path} must be a number`);
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw invalidValue(`${path} must be a string`);
  if (value.length > 2048) throw invalidValue(`${path} is longer than 2048 characters`);
  return value;
}

/**
 * Entra ID sends the enterprise manager, a single-valued complex attribute whose sub-attribute `value` is the
 * manager's id (RFC 7643 §4.3), as that id alone: `"manager": "<id>"`, in bodies and PATCH values. A string
 * given for such an attribute is read as `{ value: <string> }`; anything else is left to be checked as it is.
 */
export function complexOfString(definition: AttributeDefinition, value: unknown): unknown {
  const takesValue = !definition.multiValued && definition.subAttributes?.some((sub) => sub.name === 'value');
  return takesValue && typeof value === 'string' ? { value } : value;
}

function complex(definitions: AttributeDefinition[], value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidValue(`${path} must be an object`);
  return canonicalAttributes(definitions, value as Record<string, unknown>, `${path}.`);
}

function canonicalValue(definition: AttributeDefinition, value: unknown, path: string): unknown {
  if (definition.multiValued) {
    const list = Array.isArray(value) ? value : [value];
    const limit = definition.name === 'members' ? maxMembers : 100;
    if (list.length > limit) throw invalidValue(`${path} has more than ${limit} values`);
    const values = list.filter((item) => item !== null && item !== undefined);
    return values.map((item, index) => (definition.subAttributes ? complex(definition.subAttributes, item, `${path}[${index}]`) : scalar(definition, item, `${path}[${index}]`)));
  }
  return definition.subAttributes ? complex(definition.subAttributes, complexOfString(definition, value), path) : scalar(definition, value, path);
}

/**
 * The attributes of `input` that `definitions` name, under their canonical names (attribute names are
 * case-insensitive, RFC 7643 §2.1), with values checked against their types. Unknown attributes and
 * read-only ones are dropped, as RFC 7644 §3.3 lets a service provider do; null means unassigned.
 */
export function canonicalAttributes(definitions: AttributeDefinition[], input: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const byName = new Map(definitions.map((definition) => [definition.name.toLowerCase(), definition]));
  const output: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const definition = byName.get(key.toLowerCase());
    if (!definition || definition.mutability === 'readOnly' || value === null || value === undefined) continue;
    output[definition.name] = canonicalValue(definition, value, `${prefix}${definition.name}`);
  }
  return output;
}

/** The enterprise extension of a user, when the input carries one (its key is the schema URN). */
export function canonicalEnterprise(input: Record<string, unknown>): Record<string, unknown> | undefined {
  const key = Object.keys(input).find((candidate) => candidate.toLowerCase() === enterpriseSchemaId.toLowerCase());
  const value = key ? input[key] : undefined;
  if (value === undefined || value === null) return undefined;
  return complex(enterpriseAttributes, value, enterpriseSchemaId);
}
