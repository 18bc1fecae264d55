import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { refusal } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/** Watches of targets deleted since (found by probing from outside). */

const watchM = 'mutation($id: ID!) { watch(input: { targetId: $id }) { targetId } }';
const unwatchM = 'mutation($id: ID!) { unwatch(targetId: $id) }';
const watchingQ = '{ user { watching { targetId } } }';

describe('watch edges', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
  });

  it('ends the watch of a component deleted since (unwatch answered NOT_FOUND and the watch stayed listed)', async () => {
    const [part] = await createParts(tenant, ['Watched then deleted']);
    await ok(admin, watchM, { id: part!.id });
    await ok(admin, 'mutation($ids: [ID!]!) { component { delete(ids: $ids) { deletedIds } } }', { ids: [part!.id] });
    const targets = async () => ((await ok(admin, watchingQ)).user.watching as { targetId: string }[]).map((w) => w.targetId);
    expect(await targets()).toContain(part!.id);
    expect((await ok(admin, unwatchM, { id: part!.id })).unwatch).toBe(true);
    expect(await targets()).not.toContain(part!.id);
    // A target that never was, and never watched, is still NOT_FOUND.
    expect((await refusal(admin, unwatchM, { id: '00000000-0000-4000-8000-000000000000' })).code).toBe('NOT_FOUND');
  });
});
