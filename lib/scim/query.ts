import { parse, type Filter } from 'scim2-parse-filter';
import { ScimError } from './errors.js';
import { caseExactPaths, enterpriseSchemaId, groupSchemaId, listResponseSchema, maxResults, userSchemaId, type AttributeDefinition } from './schemas.js';

type Resource = Record<string, unknown>;
type Value = string | number | boolean | null;

/** Whether a parsed filter tests an attribute (its first path step, schema URN prefix allowed). */
export function filterNames(filter: Filter, attribute: string): boolean {
  switch (filter.op) {
    case 'and':
    case 'or':
      return filter.filters.some((inner) => filterNames(inner, attribute));
    case 'not':
      return filterNames(filter.filter, attribute);
    default: {
      const head = filter.attrPath.toLowerCase().split(':').pop()!.split('.')[0]!;
      return head === attribute;
    }
  }
}

/** Parses a filter with scim2-parse-filter; a filter it cannot read is 400 invalidFilter. */
export function parseFilter(text: string): Filter {
  if (text.length > 4096) throw new ScimError(400, 'The filter is longer than 4096 characters', 'invalidFilter');
  try {
    return parse(text);
  } catch (error) {
    throw new ScimError(400, `The filter cannot be parsed: ${(error as Error).message}`, 'invalidFilter');
  }
}

const schemaPrefixes = [enterpriseSchemaId, userSchemaId, groupSchemaId].map((urn) => `${urn.toLowerCase()}:`);

/** The attributes a resource type's filters may name (lib/scim/patch.ts userPatchSchema, groupPatchSchema). */
export interface FilterSchema {
  coreUrn: string;
  core: AttributeDefinition[];
  extensions: { urn: string; attributes: AttributeDefinition[] }[];
  /** Accepted and never stored (roles): a filter on them matches nothing. */
  ignored: string[];
}

const unknownAttribute = (path: string, why: string) => new ScimError(400, `The filter names "${path}", ${why} (see /Schemas)`, 'invalidFilter');
const definitionNamed = (definitions: readonly AttributeDefinition[] | undefined, name: string) => definitions?.find((definition) => definition.name.toLowerCase() === name.toLowerCase());

/** The attribute an attrPath names (`attr`, `attr.sub`, each optionally after its schema URN), or 400 invalidFilter. */
function filteredAttribute(schema: FilterSchema, path: string): AttributeDefinition | undefined {
  let rest = path;
  let attributes = schema.core;
  if (/^urn:/i.test(path)) {
    const lower = path.toLowerCase();
    const extension = schema.extensions.find((candidate) => lower.startsWith(`${candidate.urn.toLowerCase()}:`));
    if (extension) [rest, attributes] = [path.slice(extension.urn.length + 1), extension.attributes];
    else if (lower.startsWith(`${schema.coreUrn.toLowerCase()}:`)) rest = path.slice(schema.coreUrn.length + 1);
    else throw unknownAttribute(path, 'which is in no schema of this resource');
  }
  const [name = '', sub, ...more] = rest.split('.');
  if (attributes === schema.core && sub === undefined && schema.ignored.includes(name.toLowerCase())) return undefined;
  const attribute = definitionNamed(attributes, name);
  if (!attribute) throw unknownAttribute(path, 'which is not an attribute of this resource');
  if (sub === undefined) return attribute;
  const subAttribute = definitionNamed(attribute.subAttributes, sub);
  if (!subAttribute || more.length) throw unknownAttribute(path, `which is not a sub-attribute of ${attribute.name}`);
  return subAttribute;
}

/**
 * Every attribute a filter names must be one the resource has: RFC 7644 §3.12 makes a filter on an attribute
 * the service provider does not support 400 invalidFilter, where answering "no match" would have the identity
 * provider create, again, a user or group it looked up by a misspelt or unsupported attribute.
 */
export function assertFilterAttributes(filter: Filter, schema: FilterSchema): void {
  switch (filter.op) {
    case 'and':
    case 'or':
      filter.filters.forEach((inner) => assertFilterAttributes(inner, schema));
      return;
    case 'not':
      assertFilterAttributes(filter.filter, schema);
      return;
    case '[]': {
      const attribute = filteredAttribute(schema, filter.attrPath);
      if (!attribute) return;
      if (!attribute.multiValued || !attribute.subAttributes) throw unknownAttribute(filter.attrPath, 'which is not a multi-valued complex attribute');
      const inner = { coreUrn: schema.coreUrn, core: attribute.subAttributes, extensions: [], ignored: [] };
      const check = (value: Filter): void => {
        switch (value.op) {
          case 'and':
          case 'or':
            value.filters.forEach(check);
            return;
          case 'not':
            check(value.filter);
            return;
          case '[]':
            throw unknownAttribute(filter.attrPath, 'with a value filter nested in its own');
          default:
            if (/^urn:/i.test(value.attrPath) || value.attrPath.includes('.')) throw unknownAttribute(`${filter.attrPath}[${value.attrPath}]`, 'which is not a sub-attribute');
            filteredAttribute(inner, value.attrPath);
        }
      };
      check(filter.valFilter as Filter);
      return;
    }
    default:
      filteredAttribute(schema, filter.attrPath);
  }
}

/** `urn:...:User:name.givenName` -> ['name', 'givenName']; the enterprise URN stays as the first step. */
function pathSteps(path: string): string[] {
  const lower = path.toLowerCase();
  if (lower.startsWith(`${enterpriseSchemaId.toLowerCase()}:`)) return [enterpriseSchemaId, ...path.slice(enterpriseSchemaId.length + 1).split('.')];
  const prefix = schemaPrefixes.find((candidate) => lower.startsWith(candidate));
  return (prefix ? path.slice(prefix.length) : path).split('.');
}

/** An attribute of an object by name, case-insensitively (RFC 7643 §2.1). */
function property(object: unknown, name: string): unknown {
  if (typeof object !== 'object' || object === null) return undefined;
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : (object as Record<string, unknown>)[key];
}

/** Every value at a path, arrays flattened (emails.value is each email's value). */
function valuesAt(resource: unknown, steps: string[]): unknown[] {
  let current: unknown[] = [resource];
  for (const step of steps) {
    current = current.flatMap((item) => {
      const value = property(item, step);
      return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
    });
  }
  return current;
}

function compare(op: string, actual: unknown, expected: Value, caseExact: boolean): boolean {
  if (expected === null) return op === 'eq' ? actual === null || actual === undefined : op === 'ne' ? actual !== null && actual !== undefined : false;
  if (typeof expected === 'boolean') return op === 'eq' ? actual === expected : op === 'ne' ? actual !== expected : false;
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') return op === 'ne';
    return { eq: actual === expected, ne: actual !== expected, gt: actual > expected, ge: actual >= expected, lt: actual < expected, le: actual <= expected }[op] ?? false;
  }
  if (typeof actual !== 'string') return op === 'ne';
  const fold = (text: string) => (caseExact ? text : text.toLowerCase());
  const [a, e] = [fold(actual), fold(expected)];
  const dates = [Date.parse(actual), Date.parse(expected)];
  const ordered = (cmp: (x: number) => boolean) => (dates.every(Number.isFinite) ? cmp(dates[0]! - dates[1]!) : cmp(a.localeCompare(e)));
  switch (op) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'co':
      return a.includes(e);
    case 'sw':
      return a.startsWith(e);
    case 'ew':
      return a.endsWith(e);
    case 'gt':
      return ordered((d) => d > 0);
    case 'ge':
      return ordered((d) => d >= 0);
    case 'lt':
      return ordered((d) => d < 0);
    case 'le':
      return ordered((d) => d <= 0);
    default:
      return false;
  }
}

const isPresent = (value: unknown) => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);

/**
 * Whether a resource matches a parsed filter. The parser is scim2-parse-filter; evaluation is here because
 * the library compares strings case-sensitively, while RFC 7643 makes userName, emails and displayName
 * caseExact false (Okta checks `userName eq` with another case).
 */
export function matches(resource: unknown, filter: Filter, prefix: string[] = []): boolean {
  switch (filter.op) {
    case 'and':
      return filter.filters.every((inner) => matches(resource, inner, prefix));
    case 'or':
      return filter.filters.some((inner) => matches(resource, inner, prefix));
    case 'not':
      return !matches(resource, filter.filter, prefix);
    case '[]': {
      const steps = pathSteps(filter.attrPath);
      return valuesAt(resource, steps).some((element) => matches(element, filter.valFilter, [...prefix, ...steps]));
    }
    case 'pr':
      return valuesAt(resource, pathSteps(filter.attrPath)).some(isPresent);
    default: {
      const steps = pathSteps(filter.attrPath);
      const caseExact = caseExactPaths.has([...prefix, ...steps].join('.').toLowerCase());
      const values = valuesAt(resource, steps);
      if (filter.op === 'ne') return values.every((value) => compare('ne', value, filter.compValue, caseExact));
      return values.some((value) => compare(filter.op, value, filter.compValue, caseExact));
    }
  }
}

export interface ListQuery {
  filter?: Filter;
  startIndex: number;
  count: number;
  attributes?: string[];
  excludedAttributes?: string[];
  /** RFC 7644 §3.4.2.3: the attribute to sort by, ascending unless sortOrder says descending. */
  sortBy?: string;
  sortOrder?: 'ascending' | 'descending';
}

function positiveInt(text: string | null, fallback: number, name: string): number {
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value)) throw new ScimError(400, `${name} must be an integer`, 'invalidValue');
  return value;
}

const attributeList = (text: string | null) =>
  text === null || text.trim() === ''
    ? undefined
    : text
        .split(',')
        .map((name) => name.trim().replace(/\[.*\]$/, ''))
        .filter(Boolean);

/** The query parameters of a list (RFC 7644 §3.4.2): filter (naming attributes of `schema`), startIndex (1-based), count, attributes. */
export function parseListQuery(params: URLSearchParams, schema: FilterSchema): ListQuery {
  const filterText = params.get('filter');
  const filter = filterText ? parseFilter(filterText) : undefined;
  if (filter) assertFilterAttributes(filter, schema);
  const attributes = attributeList(params.get('attributes'));
  const excludedAttributes = attributeList(params.get('excludedAttributes'));
  const sortBy = params.get('sortBy')?.trim();
  const sortOrder = params.get('sortOrder')?.trim().toLowerCase();
  if (sortOrder && sortOrder !== 'ascending' && sortOrder !== 'descending') throw new ScimError(400, 'sortOrder must be ascending or descending', 'invalidValue');
  return {
    ...(filter ? { filter } : {}),
    startIndex: Math.max(1, positiveInt(params.get('startIndex'), 1, 'startIndex')),
    count: Math.min(maxResults, Math.max(0, positiveInt(params.get('count'), maxResults, 'count'))),
    ...(attributes ? { attributes } : {}),
    ...(excludedAttributes ? { excludedAttributes } : {}),
    ...(sortBy ? { sortBy } : {}),
    ...(sortOrder ? { sortOrder: sortOrder as 'ascending' | 'descending' } : {}),
  };
}

export const searchRequestSchema = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

/**
 * A POST /.search body (RFC 7644 §3.4.3: filter, startIndex, count, attributes, excludedAttributes, sortBy,
 * sortOrder; names case-insensitive) as the query parameters of the equivalent GET.
 */
export function searchParameters(body: unknown): URLSearchParams {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ScimError(400, `A search body is a ${searchRequestSchema} message`, 'invalidSyntax');
  const params = new URLSearchParams();
  const names = ['filter', 'startIndex', 'count', 'attributes', 'excludedAttributes', 'sortBy', 'sortOrder'];
  for (const [key, value] of Object.entries(body)) {
    const name = names.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    if (!name || value === null || value === undefined) continue;
    if (name === 'attributes' || name === 'excludedAttributes') {
      const list = Array.isArray(value) ? value : [value];
      if (!list.every((item) => typeof item === 'string')) throw new ScimError(400, `${name} is an array of attribute names`, 'invalidValue');
      params.set(name, list.join(','));
    } else if (name === 'startIndex' || name === 'count') {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new ScimError(400, `${name} must be an integer`, 'invalidValue');
      params.set(name, String(value));
    } else {
      if (typeof value !== 'string') throw new ScimError(400, `${name} must be a string`, name === 'filter' ? 'invalidFilter' : 'invalidValue');
      params.set(name, value);
    }
  }
  return params;
}

const alwaysReturned = new Set(['id', 'schemas', 'meta']);

/** Applies `attributes` / `excludedAttributes` (RFC 7644 §3.9) to a resource; id, schemas and meta always stay. */
export function project(resource: Resource, query: Pick<ListQuery, 'attributes' | 'excludedAttributes'>): Resource {
  if (query.attributes) {
    const wanted = query.attributes.map(pathSteps);
    const kept: Resource = {};
    for (const [key, value] of Object.entries(resource)) {
      if (alwaysReturned.has(key)) kept[key] = value;
      else if (wanted.some((steps) => steps[0]!.toLowerCase() === key.toLowerCase())) {
        const subs = wanted.filter((steps) => steps[0]!.toLowerCase() === key.toLowerCase() && steps.length > 1).map((steps) => steps[1]!.toLowerCase());
        kept[key] = subs.length && typeof value === 'object' && value !== null ? pick(value, subs) : value;
      }
    }
    return kept;
  }
  if (query.excludedAttributes) {
    const excluded = new Set(query.excludedAttributes.map((name) => pathSteps(name)[0]!.toLowerCase()));
    return Object.fromEntries(Object.entries(resource).filter(([key]) => alwaysReturned.has(key) || !excluded.has(key.toLowerCase())));
  }
  return resource;
}

function pick(value: object, names: string[]): unknown {
  const one = (item: unknown) => (typeof item === 'object' && item !== null ? Object.fromEntries(Object.entries(item).filter(([key]) => names.includes(key.toLowerCase()))) : item);
  return Array.isArray(value) ? value.map(one) : one(value);
}

/**
 * Sorts by an attribute's (first, else primary) value: strings case-insensitively unless caseExact, numbers and
 * booleans by value; resources without a value come last ascending and first descending (RFC 7644 §3.4.2.3).
 */
function sortResources(resources: Resource[], sortBy: string, order: 'ascending' | 'descending'): void {
  const steps = pathSteps(sortBy);
  const caseExact = caseExactPaths.has(steps.join('.').toLowerCase());
  const key = (resource: Resource): string | number | undefined => {
    let values = valuesAt(resource, steps);
    const objects = values.filter((item) => typeof item === 'object' && item !== null);
    if (objects.length) {
      // A multi-valued complex attribute sorts by its primary (else first) value.
      const chosen = objects.find((item) => property(item, 'primary') === true) ?? objects[0];
      values = [property(chosen, 'value')];
    }
    const value = values[0];
    if (typeof value === 'number') return value;
    if (typeof value === 'boolean') return value ? 1 : 0;
    return typeof value === 'string' ? (caseExact ? value : value.toLowerCase()) : undefined;
  };
  const keyed = resources.map((resource) => ({ resource, key: key(resource) }));
  const sign = order === 'descending' ? -1 : 1;
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) return a.key === b.key ? 0 : (a.key === undefined ? 1 : -1) * sign;
    if (typeof a.key === 'number' && typeof b.key === 'number') return (a.key - b.key) * sign;
    return String(a.key) < String(b.key) ? -sign : String(a.key) > String(b.key) ? sign : 0;
  });
  keyed.forEach((entry, index) => (resources[index] = entry.resource));
}

/** Filters, sorts, pages and projects resources into a ListResponse. */
export function listResponse(resources: Resource[], query: ListQuery): Record<string, unknown> {
  const matching = query.filter ? resources.filter((resource) => matches(resource, query.filter!)) : [...resources];
  if (query.sortBy) sortResources(matching, query.sortBy, query.sortOrder ?? 'ascending');
  const page = matching.slice(query.startIndex - 1, query.startIndex - 1 + query.count).map((resource) => project(resource, query));
  return { schemas: [listResponseSchema], totalResults: matching.length, startIndex: query.startIndex, itemsPerPage: page.length, Resources: page };
}
