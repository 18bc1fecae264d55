import { beforeAll, describe, expect, it } from 'vitest';
import type { WriteContext } from '../../lib/components/rules.js';
import { writeItemsForRequest } from '../../lib/items/service.js';
import { getUsages } from '../../lib/store/usage.js';
import { newTenant, ok, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { expectCode } from '../support/errors.js';
import { seedContext } from './searchHelpers.js';

/**
 * An item write removes the where-used entries of the lines it dropped after its transaction commits. A
 * write of the same assembly that commits in between and puts such a child back adds the assembly to an
 * entry that still names it; the late removal then took it out again, leaving a BOM line without its
 * where-used entry: whereUsed missed the assembly, and the child could be deleted under the line. The
 * removal now happens only while the assembly's BOM is still the one its write made.
 */
describe('where-used entries under concurrent writes of one BOM', () => {
  let tenant: Tenant;
  let headers: Record<string, string>;

  beforeAll(async () => {
    tenant = await newTenant();
    headers = tenantHeaders(tenant);
  });

  const writeContext = (): Promise<WriteContext> => seedContext(testStore(), tenant, new Date().toISOString());

  it('a child put back by a write that commits before the removal keeps its entry', async () => {
    const [bolt, nut] = (await ok(headers, 'mutation { item { create(inputs: [{ name: "Race bolt", categoryId: "mechanical" }, { name: "Race nut", categoryId: "mechanical" }]) { id } } }')).item
      .create as { id: string }[];
    const [assembly] = (
      await ok(headers, 'mutation($bolt: ID!) { item { create(inputs: [{ name: "Race assembly", categoryId: "pcba", children: [{ childId: $bolt }] }]) { id } } }', { bolt: bolt!.id })
    ).item.create as { id: string }[];

    // Write A drops the bolt; between its commit and its where-used removal, write B (over HTTP) puts it back.
    await writeItemsForRequest(testStore(), writeContext, 'update', [{ id: assembly!.id, children: [{ childId: nut!.id }] }], {
      afterCommit: async () => {
        await ok(headers, 'mutation($id: ID!, $bolt: ID!, $nut: ID!) { item { update(inputs: [{ id: $id, children: [{ childId: $nut }, { childId: $bolt }] }]) { id } } }', {
          id: assembly!.id,
          bolt: bolt!.id,
          nut: nut!.id,
        });
      },
    });

    const current = (await ok(headers, 'query($id: ID!) { component { findOne(id: $id) { children { childId } } } }', { id: assembly!.id })).component.findOne;
    expect(current.children.map((line: { childId: string }) => line.childId).sort()).toEqual([bolt!.id, nut!.id].sort());
    const entry = (await getUsages(testStore(), tenant.organization.id, tenant.library.id, [bolt!.id], true)).get(bolt!.id);
    expect([...(entry?.assemblies ?? [])]).toEqual([assembly!.id]);
    const whereUsed = (await ok(headers, 'query($id: ID!) { component { findOne(id: $id) { whereUsed { assemblyId } } } }', { id: bolt!.id })).component.findOne.whereUsed;
    expect(whereUsed).toEqual([{ assemblyId: assembly!.id }]);
    // The guard the entry is for: the bolt is on a current BOM, so it cannot be deleted under the line.
    await expectCode(tenant, 'mutation($id: ID!) { component { delete(ids: [$id]) { deletedIds } } }', { id: bolt!.id }, 'COMPONENT_IN_USE');
  });

  it('a line the write removed for good loses its entry', async () => {
    const [bolt, nut] = (await ok(headers, 'mutation { item { create(inputs: [{ name: "Gone bolt", categoryId: "mechanical" }, { name: "Kept nut", categoryId: "mechanical" }]) { id } } }')).item
      .create as { id: string }[];
    const [assembly] = (
      await ok(headers, 'mutation($bolt: ID!, $nut: ID!) { item { create(inputs: [{ name: "Plain assembly", categoryId: "pcba", children: [{ childId: $bolt }, { childId: $nut }] }]) { id } } }', {
        bolt: bolt!.id,
        nut: nut!.id,
      })
    ).item.create as { id: string }[];
    await ok(headers, 'mutation($id: ID!, $nut: ID!) { item { update(inputs: [{ id: $id, children: [{ childId: $nut, quantity: 2 }] }]) { id } } }', { id: assembly!.id, nut: nut!.id });
    const entries = await getUsages(testStore(), tenant.organization.id, tenant.library.id, [bolt!.id, nut!.id], true);
    expect([...(entries.get(bolt!.id)?.assemblies ?? [])]).toEqual([]);
    expect([...(entries.get(nut!.id)?.assemblies ?? [])]).toEqual([assembly!.id]);
    await ok(headers, 'mutation($id: ID!) { component { delete(ids: [$id]) { deletedIds } } }', { id: bolt!.id });
  });
});
