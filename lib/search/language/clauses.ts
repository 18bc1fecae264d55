import type { AdvancedFilter, FilterCondition } from '../filter.js';

/**
 * What both query languages (the key:value syntax and sentences) produce: simple clauses, one field and
 * one operator each, that become the conditions of an advanced filter and the filterValues shown to users.
 */
export type ClauseField =
  | 'status.id'
  | 'status.name'
  | 'status.mapsTo'
  | 'category.id'
  | 'category.name'
  | 'category.type'
  | 'state'
  | 'revision.value'
  | 'createdBy.id'
  | 'updatedBy.id'
  | 'labels.name'
  | 'isPinned'
  | 'isBookmarked'
  | 'isArchived'
  | 'createdAt'
  | 'updatedAt'
  | 'name'
  | 'identifier.displayValue'
  | 'description'
  | 'mpn'
  | 'manufacturer.id';

export interface Clause {
  field: ClauseField;
  comparator: string;
  value: string | string[] | boolean;
  /** How to show each value (a status name for its id, a user's name for theirs). */
  display?: string[];
}

export interface NotFoundEntity {
  type: 'status' | 'category' | 'type' | 'label' | 'user' | 'revision' | 'manufacturer';
  name: string;
}

/** Clauses that must all hold, and clauses of which one must (when any). */
export interface ClauseSet {
  and: Clause[];
  or: Clause[];
}

export interface FilterValue {
  field: string;
  comparator: string;
  value: string;
  displayLabel: string;
}

export interface Interpretation {
  filter: AdvancedFilter;
  filterValues: FilterValue[];
  matchMode: 'all' | 'any';
  interpretation: string;
}

function conditionOf(clause: Clause): FilterCondition {
  const path = clause.field.split('.');
  let node: Record<string, unknown> = { [clause.comparator]: clause.value };
  for (const key of [...path].reverse()) node = { [key]: node };
  return node as FilterCondition;
}

const fieldNames: Record<ClauseField, string> = {
  'status.id': 'Status',
  'status.name': 'Status',
  'status.mapsTo': 'Lifecycle',
  'category.id': 'Category',
  'category.name': 'Category',
  'category.type': 'Type',
  state: 'State',
  'revision.value': 'Revision',
  'createdBy.id': 'Created by',
  'updatedBy.id': 'Changed by',
  'labels.name': 'Label',
  isPinned: 'Pinned',
  isBookmarked: 'Bookmarked',
  isArchived: 'Archived',
  createdAt: 'Created',
  updatedAt: 'Changed',
  name: 'Name',
  'identifier.displayValue': 'CPN',
  description: 'Description',
  mpn: 'MPN',
  'manufacturer.id': 'Manufacturer',
};

const comparatorWords: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  in: 'is',
  notIn: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  doesNotContain: 'does not contain',
  like: 'matches',
  notLike: 'does not match',
  lt: 'is below',
  gt: 'is above',
  before: 'before',
  after: 'after',
  on: 'on',
  rangeStart: 'since',
  rangeEnd: 'until',
};

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

function displayLabel(clause: Clause): string {
  const field = fieldNames[clause.field];
  if (typeof clause.value === 'boolean') return clause.value ? field : `Not ${field.toLowerCase()}`;
  const values = clause.display ?? [clause.value].flat().map((v) => (clause.field === 'state' ? titleCase(v) : v));
  const shown = values.map((v) => (clause.field === 'name' || clause.field === 'description' || clause.field === 'identifier.displayValue' || clause.field === 'mpn' ? `"${v}"` : v));
  const list = shown.length > 1 ? `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}` : (shown[0] ?? '');
  const byUser = clause.field === 'createdBy.id' || clause.field === 'updatedBy.id';
  if (byUser) return `${field} ${clause.comparator === 'eq' || clause.comparator === 'in' ? '' : 'anyone but '}${list}`;
  return `${field} ${comparatorWords[clause.comparator] ?? clause.comparator} ${list}`;
}

export function interpret(clauses: ClauseSet, notFound: NotFoundEntity[] = []): Interpretation {
  const filter: AdvancedFilter = {};
  if (clauses.and.length) filter.and = clauses.and.map(conditionOf);
  if (clauses.or.length) filter.or = clauses.or.map(conditionOf);
  const filterValues = [...clauses.and, ...clauses.or].map((clause) => ({
    field: clause.field,
    comparator: clause.comparator,
    value: typeof clause.value === 'boolean' ? String(clause.value) : [clause.value].flat().join(', '),
    displayLabel: displayLabel(clause),
  }));
  const matchMode = clauses.and.length === 0 && clauses.or.length > 0 ? 'any' : 'all';
  const all = clauses.and.map(displayLabel);
  const any = clauses.or.map(displayLabel);
  const parts = [all.join('; ')];
  if (any.length) parts.push(all.length ? `and any of: ${any.join(' | ')}` : `any of: ${any.join(' | ')}`);
  const missing = notFound.length ? ` (not found: ${notFound.map((e) => `${e.type} "${e.name}"`).join(', ')})` : '';
  const text = parts.filter(Boolean).join('; ');
  return { filter, filterValues, matchMode, interpretation: `${text || 'Every component'}${missing}` };
}
