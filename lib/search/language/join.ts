import type { Clause, ClauseField, ClauseSet } from './clauses.js';

/** How the reader's clauses join: "and", "or", and commas that take the next explicit joiner. */

export type Joiner = 'and' | 'or' | ',';

export interface Item {
  clause: Clause;
  joiner: Joiner | null;
  /** A name word nobody claimed. */
  leftover?: boolean;
}

/** Fields a component has one value of: two positive values of one of them can only mean either. */
const singleValued = new Set<ClauseField>(['status.id', 'status.mapsTo', 'category.id', 'category.type', 'createdBy.id', 'updatedBy.id', 'revision.value']);

/**
 * Joins the items: positive values of one single-valued field become one in-list (resistors and
 * capacitors, production or maintenance), negative ones one notIn; other alternatives joined by "or"
 * become the filter's `or`.
 */
export function combineItems(read: readonly Item[]): ClauseSet {
  const items: Item[] = [];
  for (const item of read) {
    const { field, comparator } = item.clause;
    const positive = comparator === 'eq' || comparator === 'in';
    const negative = comparator === 'neq' || comparator === 'notIn';
    const earlier =
      singleValued.has(field) && (positive || negative)
        ? items.find((e) => e.clause.field === field && (positive ? ['eq', 'in'] : ['neq', 'notIn']).includes(e.clause.comparator))
        : field === 'labels.name' && negative
          ? items.find((e) => e.clause.field === field && ['neq', 'notIn'].includes(e.clause.comparator))
          : undefined;
    if (!earlier) {
      items.push({ ...item });
      continue;
    }
    const values = [...new Set([earlier.clause.value, item.clause.value].flat() as string[])];
    earlier.clause = {
      field,
      comparator: positive ? (values.length > 1 ? 'in' : 'eq') : values.length > 1 ? 'notIn' : 'neq',
      value: values.length > 1 ? values : values[0]!,
      display: [...(earlier.clause.display ?? [earlier.clause.value].flat().map(String)), ...(item.clause.display ?? [item.clause.value].flat().map(String))],
    };
  }
  const explicit = (from: number): Joiner | null => items.slice(from).find((item) => item.joiner === 'and' || item.joiner === 'or')?.joiner ?? null;
  const terms: Clause[][] = [];
  items.forEach((item, index) => {
    const joiner = item.joiner === ',' ? (explicit(index + 1) === 'or' ? 'or' : 'and') : item.joiner;
    if (joiner === 'or' && terms.length > 0) terms.at(-1)!.push(item.clause);
    else terms.push([item.clause]);
  });
  return { and: terms.filter((t) => t.length === 1).flat(), or: terms.filter((t) => t.length > 1).flat() };
}
