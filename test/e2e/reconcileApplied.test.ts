import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { updateComponents } from '../../lib/components/service.js';
import { reconcile } from '../../lib/integrations/service.js';
import type { Store } from '../../lib/store/client.js';
import { newTenant, testStore } from '../support/api.js';
import { createAt, seedContext, seededInput } from './searchHelpers.js';

/**
 * reconcile's `applied` lists the changes of its own call. When another write lands between reconcile's read
 * and its transaction, the update is applied again to the component read anew: what the other writer changed
 * is not this call's (it was listed as applied before).
 */
describe('reconcile beside a concurrent write', () => {
  it('lists only its own changes as applied when its first transaction lost to another write', async () => {
    const tenant = await newTenant();
    const store = testStore();
    const component = await createAt(store, tenant, { ...seededInput(1), name: 'Before', description: 'first' }, new Date().toISOString());
    // The other write lands just before reconcile's first transaction (a real write, to DynamoDB Local).
    let landed = false;
    const racing: Store = {
      ...store,
      ddb: {
        send: async (command: unknown) => {
          if (command instanceof TransactWriteCommand && !landed) {
            landed = true;
            await updateComponents(store, await seedContext(store, tenant, new Date().toISOString()), [{ id: component.id, description: 'by someone else' }]);
          }
          return store.ddb.send(command as TransactWriteCommand);
        },
      } as unknown as Store['ddb'],
    };
    const result = await reconcile(racing, await seedContext(store, tenant, new Date().toISOString()), { componentId: component.id, name: 'After' });
    expect(landed).toBe(true);
    expect(result.component).toMatchObject({ name: 'After', description: 'by someone else', version: component.version + 2 });
    expect(result.applied).toEqual([{ field: 'name', attributeId: null }]);
  });
});
