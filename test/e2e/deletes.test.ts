import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, stack, tenantHeaders, type Tenant } from '../support/api.js';

/** Deletes never leave dangling BOM lines, under concurrency too; where-used follows its own index. */
let tenant: Tenant;
const itemCreate = `mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id cpn name } } }`;
const itemUpdate = `mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id children { childId } } } }`;
const deleteMutation = `mutation($ids: [ID!]) { component { delete(ids: $ids) { deletedIds notFoundIds } } }`;
const whereUsedQuery = `query($id: ID!) { component { findOne(id: $id) { id whereUsed { assemblyId childId quantity } } } }`;

type Created = { id: string; cpn: string; name: string };

async function create(inputs: Record<string, unknown>[]): Promise<Created[]> {
  return (await gqlOk<{ item: { create: Created[] } }>(tenant, itemCreate, { inputs })).item.create;
}
const part = (name: string) => ({ name, categoryId: 'resistor', attributeValues: [{ attributeId: 'resistance', value: 1 }] });
const assembly = (name: string, childIds: string[] = []) => ({ name, categoryId: 'pcba', children: childIds.map((childId) => ({ childId, quantity: 2 })) });
const remove = (ids: string[] | null) => graphql<{ component: { delete: { deletedIds: string[]; notFoundIds: string[] } } }>(deleteMutation, { ids }, tenantHeaders(tenant));
const exists = async (id: string) =>
  (await gqlOk<{ component: { findOne: { id: string } | null } }>(tenant, 'query($id: ID!) { component { findOne(id: $id) { id } } }', { id })).component.findOne !== null;
const whereUsed = async (id: string) => (await gqlOk<{ component: { findOne: { whereUsed: { assemblyId: string; childId: string }[] } } }>(tenant, whereUsedQuery, { id })).component.findOne.whereUsed;

beforeAll(async () => {
  tenant = await newTenant();
});

describe('component.delete of a BOM child', () => {
  it('is refused with COMPONENT_IN_USE naming the assemblies, and deletes nothing else in the call', async () => {
    const [child, other] = await create([part('R used'), part('R free')]);
    const [board1, board2] = await create([assembly('Board 1', [child!.id]), assembly('Board 2', [child!.id])]);
    const refused = await remove([other!.id, child!.id]);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'COMPONENT_IN_USE',
      id: child!.id,
      usedBy: expect.arrayContaining([expect.objectContaining({ id: board1!.id, name: 'Board 1' }), expect.objectContaining({ id: board2!.id, name: 'Board 2' })]),
    });
    expect(refused.body.errors?.[0]?.message).toContain('Board 1');
    expect(await exists(other!.id)).toBe(true);
    expect(await exists(child!.id)).toBe(true);
    expect((await whereUsed(child!.id)).map((line) => line.assemblyId).sort()).toEqual([board1!.id, board2!.id].sort());
  });

  it('succeeds once the lines are gone, or together with the assemblies that use it', async () => {
    const [a, b] = await create([part('R a'), part('R b')]);
    const [boardA, boardB] = await create([assembly('Board A', [a!.id]), assembly('Board B', [b!.id])]);
    await gqlOk(tenant, itemUpdate, { inputs: [{ id: boardA!.id, children: [] }] });
    expect(await whereUsed(a!.id)).toEqual([]);
    expect((await remove([a!.id])).body.data?.component.delete.deletedIds).toEqual([a!.id]);
    const together = await remove([b!.id, boardB!.id]);
    expect(together.body.errors).toBeUndefined();
    expect(together.body.data?.component.delete.deletedIds.sort()).toEqual([b!.id, boardB!.id].sort());
  });

  it('a deleted assembly stops using its children: they can be deleted next', async () => {
    const [child] = await create([part('R c')]);
    const [board] = await create([assembly('Board C', [child!.id])]);
    expect((await remove([board!.id])).body.errors).toBeUndefined();
    expect(await whereUsed(child!.id)).toEqual([]);
    expect((await remove([child!.id])).body.data?.component.delete.deletedIds).toEqual([child!.id]);
  });

  it('takes null ids as nothing to delete', async () => {
    expect((await remove(null)).body.data?.component.delete).toEqual({ deletedIds: [], notFoundIds: [] });
  });

  it('racing an item.update that adds it as a child: exactly one lands, never a dangling line (10 tries)', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const [child] = await create([part(`R race ${attempt}`)]);
      const [board] = await create([assembly(`Board race ${attempt}`)]);
      const [deleted, updated] = await Promise.all([remove([child!.id]), graphql(itemUpdate, { inputs: [{ id: board!.id, children: [{ childId: child!.id }] }] }, tenantHeaders(tenant))]);
      const deleteLanded = !deleted.body.errors && deleted.body.data?.component.delete.deletedIds.length === 1;
      const updateLanded = !updated.body.errors;
      expect(deleteLanded !== updateLanded, `attempt ${attempt}: delete ${JSON.stringify(deleted.body)} update ${JSON.stringify(updated.body)}`).toBe(true);
      const lines = (
        await gqlOk<{ component: { findOne: { children: { childId: string; child: { id: string } | null }[] } } }>(
          tenant,
          'query($id: ID!) { component { findOne(id: $id) { children { childId child { id } } } } }',
          { id: board!.id },
        )
      ).component.findOne.children;
      expect(lines.every((line) => line.child !== null)).toBe(true);
      expect(lines.length).toBe(updateLanded ? 1 : 0);
      expect(await exists(child!.id)).toBe(updateLanded);
    }
  });
});

describe('whereUsed', () => {
  it('reads the where-used entry and the BOMs it names, not the library', async () => {
    const [child] = await create([part('R wu')]);
    await create([assembly('Board WU', [child!.id])]);
    // Many unrelated assemblies do not make where-used read more.
    await create(Array.from({ length: 10 }, (_, i) => assembly(`Unrelated ${i}`)));
    const response = await fetch(`${stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...tenantHeaders(tenant) },
      body: JSON.stringify({ query: whereUsedQuery, variables: { id: child!.id } }),
    });
    const capacity = JSON.parse(response.headers.get('x-plm-consumed-capacity') ?? '{}') as { requests?: number };
    const body = (await response.json()) as { data: { component: { findOne: { whereUsed: unknown[] } } } };
    expect(body.data.component.findOne.whereUsed).toHaveLength(1);
    // context (2) + component + where-used entry + the BOMs it names
    expect(capacity.requests).toBeLessThanOrEqual(5);
  });
});

describe('indentedBom', () => {
  it('answers within its line cap and refuses beyond with BOM_TOO_LARGE', async () => {
    const parts = await create(Array.from({ length: 10 }, (_, i) => part(`P${i}`)));
    const level3 = await create(
      Array.from({ length: 10 }, (_, i) =>
        assembly(
          `T${i}`,
          parts.map((p) => p.id),
        ),
      ),
    );
    const level2 = await create(
      Array.from({ length: 10 }, (_, i) =>
        assembly(
          `S${i}`,
          level3.map((t) => t.id),
        ),
      ),
    );
    const [top] = await create([
      assembly(
        'Top',
        level2.map((s) => s.id),
      ),
    ]);
    const query = 'query($id: ID!, $depth: Int) { component { findOne(id: $id) { indentedBom(depth: $depth) { level } } } }';
    const shallow = await gqlOk<{ component: { findOne: { indentedBom: unknown[] } } }>(tenant, query, { id: top!.id, depth: 2 });
    expect(shallow.component.findOne.indentedBom).toHaveLength(110);
    const deep = await graphql(query, { id: top!.id, depth: 3 }, tenantHeaders(tenant));
    expect(deep.body.errors?.[0]?.extensions).toMatchObject({ code: 'BOM_TOO_LARGE', limit: 1000 });
  });
});
