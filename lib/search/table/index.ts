import type { Store } from '../../store/client.js';
import type { FilterContext, SearchFilter } from '../filter.js';
import type { ComponentSearchIndex, GroupBy, GroupCount, HitPage, SearchRequest } from '../port.js';
import { columnsOf, type ColumnName } from './columns.js';
import { compact, needsCompaction } from './compaction.js';
import { compileFilter, type CompiledFilter } from './evaluate.js';
import { groupFields, groupsOf } from './groups.js';
import { orderFieldOf, pageRows } from './paging.js';
import type { FieldName } from './rows.js';
import { LibrarySnapshot, MissingPartError } from './snapshot.js';
import type { LibraryRef } from './storage.js';

/**
 * The search port over the library's own table: one snapshot per instance (create one per request), read
 * lazily and shared by the calls of that request. A search that finds enough outstanding deltas folds
 * them into blocks before it returns (compaction.ts), so the next searches read less.
 */
export class TableSearchIndex implements ComponentSearchIndex {
  private snapshot: Promise<LibrarySnapshot> | undefined;
  private compacted = false;

  constructor(
    private readonly store: Store,
    private readonly library: LibraryRef,
  ) {}

  /**
   * Runs work on the request's snapshot, read with the columns it needs (or loading them when the snapshot
   * exists already); when a compaction replaced a block meanwhile, reads a new snapshot (at most 3 times).
   */
  private async read<T>(columns: Iterable<ColumnName>, work: (snapshot: LibrarySnapshot) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      this.snapshot ??= LibrarySnapshot.read(this.store, this.library, columns);
      try {
        const snapshot = await this.snapshot;
        await snapshot.ensure(columns);
        const result = await work(snapshot);
        await this.maintain(snapshot);
        return result;
      } catch (error) {
        this.snapshot = undefined;
        if (!(error instanceof MissingPartError) || attempt >= 3) throw error;
        await new Promise((r) => setTimeout(r, 25 * attempt));
      }
    }
  }

  private async maintain(snapshot: LibrarySnapshot): Promise<void> {
    if (this.compacted || !needsCompaction(snapshot)) return;
    this.compacted = true;
    try {
      if ((await compact(this.store, snapshot)) === 'committed') this.snapshot = undefined;
    } catch (error) {
      // The search already has its answer, and a failed compaction leaves the index as it was.
      console.error('search compaction failed', this.library, error);
    }
  }

  private plan(filter: SearchFilter, context: FilterContext, fields: FieldName[]) {
    const compiled = compileFilter(filter, context);
    return { compiled, columns: columnsOf([...compiled.fields, ...fields]) };
  }

  /**
   * The filter's row test on this snapshot: name and CPN needles go through their indexes when the plan
   * did not read the names or CPNs anyway (snapshot.nameMatcher).
   */
  private async testOf(snapshot: LibrarySnapshot, filter: SearchFilter, context: FilterContext, planned: CompiledFilter): Promise<CompiledFilter['test']> {
    if (planned.needles.size === 0 && planned.cpnNeedles.size === 0) return planned.test;
    const [names, cpns] = await Promise.all([
      planned.needles.size ? snapshot.nameMatcher(planned.needles) : undefined,
      planned.cpnNeedles.size ? snapshot.nameMatcher(planned.cpnNeedles, 'cpn') : undefined,
    ]);
    return compileFilter(filter, context, names, cpns).test;
  }

  find(request: SearchRequest): Promise<HitPage> {
    const group = request.group;
    const { compiled, columns } = this.plan(request.filter, request.context, [orderFieldOf[request.order.field], ...(group ? groupFields[group.by] : [])]);
    return this.read(columns, async (snapshot) => {
      const test = await this.testOf(snapshot, request.filter, request.context, compiled);
      let rows = snapshot.rows().filter(test);
      if (group) rows = rows.filter((row) => groupsOf(row, group.by).some((g) => g.key === group.key));
      return pageRows(rows, request, (page) => snapshot.loadIds(page));
    });
  }

  groups(filter: SearchFilter, context: FilterContext, by: GroupBy): Promise<GroupCount[]> {
    const { compiled, columns } = this.plan(filter, context, groupFields[by]);
    return this.read(columns, async (snapshot) => {
      const test = await this.testOf(snapshot, filter, context, compiled);
      const counts = new Map<string, GroupCount>();
      for (const row of snapshot.rows().filter(test)) {
        for (const { key, label } of groupsOf(row, by)) {
          const group = counts.get(key) ?? { key, label, totalCount: 0 };
          group.totalCount += 1;
          counts.set(key, group);
        }
      }
      return [...counts.values()];
    });
  }

  terms(): Promise<{ labels: string[]; userIds: string[] }> {
    return this.read(['l', 'w'], async (snapshot) => {
      const labels = new Set<string>();
      const userIds = new Set<string>();
      for (const row of snapshot.rows()) {
        for (const label of row.labels ?? []) labels.add(label);
        if (row.createdBy) userIds.add(row.createdBy);
        if (row.updatedBy) userIds.add(row.updatedBy);
      }
      return { labels: [...labels].sort(), userIds: [...userIds].sort() };
    });
  }
}
