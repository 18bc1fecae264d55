import type { Filter } from 'scim2-parse-filter';
import { unsafeJsonProblem } from '../input.js';
import { complexOfString } from './canonical.js';
import { invalidValue, ScimError } from './errors.js';
import { matches, parseFilter } from './query.js';
import { commonAttributes, enterpriseAttributes, enterpriseSchemaId, groupAttributes, groupSchemaId, patchOpSchema, userAttributes, userSchemaId, type AttributeDefinition } from './schemas.js';

/**
 * SCIM PATCH (RFC 7644 §3.5.2), applied by the schema: every path must name an attribute (and sub-attribute)
 * that /Schemas declares, so no path step ever reaches an object's prototype. It replaces scim-patch 0.8.3,
 * whose path walk polluted Object.prototype (GHSA-9m6g-wc8r-q59c, GHSA-2mhw-wcx5-v3xj; no fixed release).
 * The operations run on a null-prototype copy of the resource; the result is read back like a PUT body.
 */

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

/** What a PATCH may address: the resource's core attributes (its URN optional) and its extensions by URN. */
export interface PatchSchema {
  coreUrn: string;
  core: AttributeDefinition[];
  extensions: { urn: string; attributes: AttributeDefinition[] }[];
  /** Attributes accepted and ignored (never stored): PATCH operations on them change nothing. */
  ignored: string[];
}

export const userPatchSchema: PatchSchema = {
  coreUrn: userSchemaId,
  core: [...userAttributes, ...commonAttributes],
  extensions: [{ urn: enterpriseSchemaId, attributes: enterpriseAttributes }],
  // Roles are never taken from the identity provider (spec); Entra sends `roles[primary eq "True"].value`.
  ignored: ['roles'],
};

export const groupPatchSchema: PatchSchema = { coreUrn: groupSchemaId, core: [...groupAttributes, ...commonAttributes], extensions: [], ignored: [] };

/** Keys that address a prototype in JavaScript: refused anywhere in a request body or path. */
const prototypeKeys = new Set(['__proto__', 'constructor', 'prototype']);
const maxDepth = 32;

/**
 * Refuses a body that carries `__proto__`, `constructor` or `prototype` as a key at any depth (400
 * invalidValue), or nests deeper than any SCIM resource does (400 invalidSyntax).
 */
export function assertNoPrototypeKeys(body: unknown): void {
  const problem = unsafeJsonProblem(body, maxDepth);
  if (problem && 'tooDeep' in problem) throw new ScimError(400, `The request body nests deeper than ${maxDepth} levels`, 'invalidSyntax');
  if (problem) throw invalidValue(`"${problem.key}" is not an attribute name`);
}

type Node = Record<string, unknown>;
const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A deep copy whose objects have no prototype: a key such as `__proto__` is an ordinary own property there. */
function bare(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(bare);
  if (!isObject(value)) return value;
  const copy = Object.create(null) as Node;
  for (const [key, item] of Object.entries(value)) copy[key] = bare(item);
  return copy;
}

/** Reads the PatchOp body: a non-empty Operations array of add/replace/remove (op names case-insensitive, as Entra sends `Replace`). */
export function parsePatchBody(body: unknown): PatchOperation[] {
  const operations = isObject(body) ? Object.entries(body).find(([key]) => key.toLowerCase() === 'operations')?.[1] : undefined;
  if (!Array.isArray(operations) || operations.length === 0) throw new ScimError(400, `A PATCH body is a ${patchOpSchema} message with a non-empty Operations array`, 'invalidSyntax');
  if (operations.length > 1000) throw new ScimError(400, 'A PATCH carries at most 1000 operations', 'invalidSyntax');
  return operations.map((operation: unknown, index) => {
    if (!isObject(operation)) throw new ScimError(400, `Operations[${index}] must be an object`, 'invalidSyntax');
    const fields = new Map(Object.entries(operation).map(([key, value]) => [key.toLowerCase(), value]));
    const [op, path, value] = [fields.get('op'), fields.get('path'), fields.get('value')];
    if (typeof op !== 'string' || !['add', 'replace', 'remove'].includes(op.toLowerCase())) throw new ScimError(400, `Operations[${index}].op must be add, replace or remove`, 'invalidSyntax');
    if (path !== undefined && path !== null && (typeof path !== 'string' || path.trim() === '')) throw new ScimError(400, `Operations[${index}].path must be a non-empty string`, 'invalidPath');
    const lowered = op.toLowerCase() as PatchOperation['op'];
    if (lowered !== 'remove' && value === undefined) throw invalidValue(`Operations[${index}] (${lowered}) needs a value`);
    return { op: lowered, ...(typeof path === 'string' ? { path: path.trim() } : {}), ...(value !== undefined ? { value } : {}) };
  });
}

/** A PATCH path resolved against the schema. */
interface Target {
  /** The extension URN whose object holds the attribute, or undefined for a core attribute. */
  extension?: string;
  /** The attribute; undefined when the path is an extension URN alone (the whole extension object). */
  attribute?: AttributeDefinition;
  filter?: Filter;
  sub?: AttributeDefinition;
}

const attributeName = /^[A-Za-z$][\w$-]*$/;
const invalidPath = (path: string, why: string) => new ScimError(400, `The path "${path}" ${why}`, 'invalidPath');
const byName = (definitions: AttributeDefinition[], name: string) => definitions.find((definition) => definition.name.toLowerCase() === name.toLowerCase());

/** The attribute names a value filter tests must be sub-attributes of the filtered attribute. */
function checkFilterNames(filter: Filter, attribute: AttributeDefinition, path: string): void {
  switch (filter.op) {
    case 'and':
    case 'or':
      filter.filters.forEach((inner) => checkFilterNames(inner, attribute, path));
      return;
    case 'not':
      checkFilterNames(filter.filter, attribute, path);
      return;
    case '[]':
      throw invalidPath(path, 'nests a value filter');
    default:
      if (!byName(attribute.subAttributes ?? [], filter.attrPath)) throw invalidPath(path, `filters on "${filter.attrPath}", which is not a sub-attribute of ${attribute.name}`);
  }
}

/**
 * Resolves `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, each optionally after a schema URN and
 * `:`, or an extension URN alone. Anything else, or a name the schema does not declare, is 400 invalidPath.
 * Returns undefined for an ignored attribute.
 */
export function resolvePath(schema: PatchSchema, path: string): Target | undefined {
  let rest = path;
  let extension: { urn: string; attributes: AttributeDefinition[] } | undefined;
  if (/^urn:/i.test(path)) {
    const lower = path.toLowerCase();
    extension = schema.extensions.find((candidate) => lower === candidate.urn.toLowerCase() || lower.startsWith(`${candidate.urn.toLowerCase()}:`));
    if (extension && lower === extension.urn.toLowerCase()) return { extension: extension.urn };
    if (extension) rest = path.slice(extension.urn.length + 1);
    else if (lower.startsWith(`${schema.coreUrn.toLowerCase()}:`)) rest = path.slice(schema.coreUrn.length + 1);
    else throw invalidPath(path, 'names no schema of this resource');
  }
  const open = rest.indexOf('[');
  const close = rest.lastIndexOf(']');
  let name: string;
  let filterText: string | undefined;
  let subName: string | undefined;
  if (open >= 0) {
    if (close < open) throw invalidPath(path, 'has an unclosed value filter');
    name = rest.slice(0, open);
    filterText = rest.slice(open + 1, close);
    const after = rest.slice(close + 1);
    if (after !== '' && !after.startsWith('.')) throw invalidPath(path, 'has text after its value filter');
    subName = after ? after.slice(1) : undefined;
  } else {
    const dot = rest.indexOf('.');
    name = dot >= 0 ? rest.slice(0, dot) : rest;
    subName = dot >= 0 ? rest.slice(dot + 1) : undefined;
  }
  for (const step of [name, subName]) {
    if (step === undefined) continue;
    if (prototypeKeys.has(step.toLowerCase()) || !attributeName.test(step)) throw invalidPath(path, `has "${step}", which is not an attribute name`);
  }
  if (!extension && schema.ignored.includes(name.toLowerCase())) return undefined;
  const attribute = byName(extension ? extension.attributes : schema.core, name);
  if (!attribute) throw invalidPath(path, `names "${name}", which is not an attribute of this resource (see /Schemas)`);
  let sub: AttributeDefinition | undefined;
  if (subName !== undefined) {
    sub = byName(attribute.subAttributes ?? [], subName);
    if (!sub) throw invalidPath(path, `names "${subName}", which is not a sub-attribute of ${attribute.name}`);
  }
  let filter: Filter | undefined;
  if (filterText !== undefined) {
    if (!attribute.multiValued || !attribute.subAttributes) throw invalidPath(path, `filters ${attribute.name}, which is not a multi-valued complex attribute`);
    filter = parseFilter(filterText);
    checkFilterNames(filter, attribute, path);
  }
  return { ...(extension ? { extension: extension.urn } : {}), attribute, ...(filter ? { filter } : {}), ...(sub ? { sub } : {}) };
}

/** The key of `object` that names `name` case-insensitively, else the canonical name. */
function keyOf(object: Node, name: string): string {
  return Object.keys(object).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
}

function setIn(object: Node, name: string, value: unknown): void {
  const key = keyOf(object, name);
  if (key !== name) delete object[key];
  object[name] = value;
}

function deleteIn(object: Node, name: string): void {
  delete object[keyOf(object, name)];
}

/** The value an `eq`-only filter describes (`type eq "work"` -> { type: 'work' }): a missing element to add. */
function described(filter: Filter): Node | undefined {
  if (filter.op === 'eq' && filter.compValue !== null) return Object.assign(Object.create(null) as Node, { [filter.attrPath]: filter.compValue });
  if (filter.op === 'and') {
    const parts = filter.filters.map(described);
    return parts.every(Boolean) ? Object.assign(Object.create(null) as Node, ...parts) : undefined;
  }
  return undefined;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);

/** RFC 7644 §3.5.2.1/3: add and replace on a complex single value merge the given sub-attributes. */
function merge(current: unknown, value: unknown, where: string): Node {
  if (!isObject(value)) throw invalidValue(`${where} takes an object of sub-attributes`);
  const target = isObject(current) ? current : (Object.create(null) as Node);
  for (const [key, item] of Object.entries(value)) setIn(target, key, item);
  return target;
}

function checkMutability(op: PatchOperation['op'], target: Target, path: string): void {
  const definition = target.sub ?? target.attribute;
  if (!definition) return;
  if (target.attribute?.mutability === 'readOnly' || definition.mutability === 'readOnly') throw new ScimError(400, `${path} is read-only`, 'mutability');
  if (definition.mutability === 'immutable' && target.sub && op !== 'add') throw new ScimError(400, `${path} is immutable`, 'mutability');
  if (op === 'remove' && !target.extension && !target.sub && target.attribute?.name === 'active') {
    // Unassigned would read as active for a new user and inactive for a held one: the IdP says which.
    throw invalidValue('active cannot be removed: replace it with false to deactivate the user, or true to activate');
  }
}

function applyOne(resource: Node, operation: PatchOperation, target: Target, path: string): void {
  checkMutability(operation.op, target, path);
  const { op, value } = operation;
  let container = resource;
  if (target.extension) {
    const existing = resource[keyOf(resource, target.extension)];
    if (!isObject(existing)) {
      if (op === 'remove') return;
      setIn(resource, target.extension, Object.create(null));
    }
    container = resource[keyOf(resource, target.extension)] as Node;
    if (!target.attribute) {
      if (op === 'remove') deleteIn(resource, target.extension);
      else merge(container, value, path);
      return;
    }
  }
  const attribute = target.attribute!;
  const name = attribute.name;
  const current = container[keyOf(container, name)];

  if (!attribute.multiValued) {
    if (target.sub) {
      if (op === 'remove') {
        if (isObject(current)) deleteIn(current, target.sub.name);
        // A complex value without sub-attributes is unassigned.
        if (isObject(current) && Object.keys(current).length === 0) deleteIn(container, name);
      } else setIn(container, name, merge(current, { [target.sub.name]: value }, path));
    } else if (op === 'remove') deleteIn(container, name);
    else setIn(container, name, attribute.subAttributes ? merge(current, complexOfString(attribute, value), path) : value);
    if (target.extension && Object.keys(container).length === 0) deleteIn(resource, target.extension);
    return;
  }

  const list = asList(current);
  if (!target.filter && !target.sub) {
    if (op === 'replace') setIn(container, name, asList(value));
    else if (op === 'add') {
      const seen = new Set(list.map((item) => JSON.stringify(item)));
      setIn(container, name, [...list, ...asList(value).filter((item) => !seen.has(JSON.stringify(item)))]);
    } else if (value !== undefined && attribute.subAttributes) {
      // Entra: { op: Remove, path: members, value: [{ value: id }] } removes those values only.
      const removed = new Set(
        asList(value).map((item, index) => {
          const id = isObject(item) ? item[keyOf(item, 'value')] : undefined;
          if (typeof id !== 'string' && typeof id !== 'number') throw invalidValue(`${path}: the value to remove at ${index} names no value`);
          return String(id).toLowerCase();
        }),
      );
      setIn(
        container,
        name,
        list.filter((item) => !(isObject(item) && removed.has(String(item[keyOf(item, 'value')]).toLowerCase()))),
      );
    } else deleteIn(container, name);
    return;
  }

  const selected = new Set(list.filter((item) => isObject(item) && (!target.filter || matches(item, target.filter, [name]))) as Node[]);
  if (op === 'remove') {
    if (target.sub) selected.forEach((item) => deleteIn(item, target.sub!.name));
    else
      setIn(
        container,
        name,
        list.filter((item) => !selected.has(item as Node)),
      );
    return;
  }
  if (selected.size === 0) {
    // Entra replaces `emails[type eq "work"].value` on a user without a work address: the filter describes the one to add.
    const base = target.filter ? described(target.filter) : (Object.create(null) as Node);
    if (!base) throw new ScimError(400, `${path} matches no value`, 'noTarget');
    setIn(container, name, [...list, target.sub ? merge(base, { [target.sub.name]: value }, path) : merge(base, value, path)]);
    return;
  }
  const replacement = (item: Node) => (target.sub ? merge(item, { [target.sub.name]: value }, path) : op === 'add' ? merge(item, value, path) : merge(Object.create(null), value, path));
  setIn(
    container,
    name,
    list.map((item) => (selected.has(item as Node) ? replacement(item as Node) : item)),
  );
}

/** add or replace without a path: each key of the value object is an attribute (or an extension URN, or a path). */
function applyWithoutPath(resource: Node, schema: PatchSchema, operation: PatchOperation): void {
  if (!isObject(operation.value)) throw invalidValue(`${operation.op} without a path takes an object of attributes`);
  for (const [key, value] of Object.entries(operation.value)) {
    if (key.toLowerCase() === 'schemas') continue;
    const plain = attributeName.test(key);
    const attribute = plain ? byName(schema.core, key) : undefined;
    if (plain && !attribute) continue; // unknown attributes are ignored, as in POST and PUT bodies (RFC 7644 §3.3)
    if (attribute?.mutability === 'readOnly') {
      // Okta sends the group's id along with a rename; a different id would change the resource's identity.
      if (attribute.name === 'id' && value !== resource.id) throw new ScimError(400, 'id is read-only', 'mutability');
      continue;
    }
    const target = resolvePath(schema, key);
    if (target) applyOne(resource, { op: operation.op, value }, target, key);
  }
}

/** Applies PATCH operations to a resource (as GET shows it); returns the patched copy, which the caller reads like a PUT body. */
export function applyPatch(resource: Record<string, unknown>, operations: PatchOperation[], schema: PatchSchema): Record<string, unknown> {
  const working = bare(resource) as Node;
  for (const operation of operations) {
    assertNoPrototypeKeys(operation.value);
    if (operation.path === undefined) {
      if (operation.op === 'remove') throw new ScimError(400, 'remove needs a path', 'noTarget');
      applyWithoutPath(working, schema, operation);
      continue;
    }
    const target = resolvePath(schema, operation.path);
    if (target) applyOne(working, operation, target, operation.path);
  }
  return working;
}
