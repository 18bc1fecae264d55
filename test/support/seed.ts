import { createLibrary } from '../../lib/orgs/libraries.js';
import type { ComponentRecord } from '../../lib/store/component.js';
import type { CreateComponentCommand } from '../../lib/components/commands.js';
import { memberWithRole, type Member } from '../e2e/accessHelpers.js';
import { compactSearchIndex, seedComponents } from '../e2e/searchHelpers.js';
import { newTenant, testStore, uniqueSlug, type Tenant } from './api.js';
import { blockRows } from '../../lib/search/table/compaction.js';
import { loadSearchLibrary } from './bulkSearchLibrary.js';

export interface Seeded {
  /** The organization, its first library, its Site Admin and that admin's API key (bootstrapTenant). */
  tenant: Tenant;
  /** The members asked for, in order: each with an API key acting as them in the first library. */
  members: Member[];
  /** The further libraries asked for, in order (empty, default configuration). */
  libraries: { id: string; slug: string }[];
  /** The components seeded into the first library, in creation order. */
  components: ComponentRecord[];
}

interface ComponentSeed {
  count: number;
  input?: (n: number) => CreateComponentCommand;
  /**
   * 'batch' puts the items createComponents would write without a transaction: for large fixtures. 'bulk'
   * writes the library as an import does (bulkSearchLibrary.ts: component items and search blocks, no
   * history, CPN claims or deltas): for large fixtures a test only reads and pages, fastest.
   */
  write?: 'transaction' | 'batch' | 'bulk';
  /** Calls (or batches of 25) at once; seedComponents' default unless told. */
  concurrency?: number;
  /** Fold the search index's deltas into blocks once seeded (what a search does later anyway). */
  compact?: boolean;
}

/**
 * The one way a test builds its world: an organization with its first library (what `npm run admin --
 * bootstrap` writes), then members by role, more libraries and components, each through the existing
 * helpers. Nothing is written until build().
 *
 *   const { tenant, members: [viewer], components } = await seed().org({ plan: 'team' }).member('VIEWER').components(300).build();
 */
export function seed(): SeedBuilder {
  return new SeedBuilder();
}

export class SeedBuilder {
  #org: { email?: string; plan?: string } = {};
  #roles: string[] = [];
  #libraries: string[] = [];
  #components: ComponentSeed | undefined;

  /** The organization's plan and first Site Admin's email (defaults: the default plan, a new address). */
  org(options: { email?: string; plan?: string } = {}): this {
    this.#org = options;
    return this;
  }

  /** One member per role, in this order. */
  member(...roles: string[]): this {
    this.#roles.push(...roles);
    return this;
  }

  /** A further library of the organization (the first one comes with it). */
  library(slug = uniqueSlug('lib')): this {
    this.#libraries.push(slug);
    return this;
  }

  /** count components in the first library, from the seeded catalogue (searchHelpers.seededInput) unless told. */
  components(count: number, options: Omit<ComponentSeed, 'count'> = {}): this {
    this.#components = { count, ...options };
    return this;
  }

  async build(): Promise<Seeded> {
    const store = testStore();
    const tenant = await newTenant(this.#org);
    const members: Member[] = [];
    for (const role of this.#roles) members.push(await memberWithRole(tenant, role));
    const libraries: Seeded['libraries'] = [];
    for (const slug of this.#libraries) {
      const library = await createLibrary(store, tenant.organization.id, { name: `Library ${slug}`, slug }, tenant.user.id);
      libraries.push({ id: library.id, slug });
    }
    let components: ComponentRecord[] = [];
    if (this.#components) {
      const { count, compact, write, ...options } = this.#components;
      if (write === 'bulk') {
        // Blocks of compaction's first size (1,000 rows), the layout seedComponents and a compaction leave.
        components = new Array<ComponentRecord>(count);
        const kept = components;
        await loadSearchLibrary(store, tenant, count, {
          input: options.input,
          blockRows,
          concurrency: options.concurrency ?? 8,
          records: (records, first) => records.forEach((record, i) => (kept[first + i] = record)),
        });
      } else components = await seedComponents(store, tenant, count, { write, ...options });
      if (compact) await compactSearchIndex(store, tenant);
    }
    return { tenant, members, libraries, components };
  }
}
