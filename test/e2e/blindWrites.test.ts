import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, ok, type Member } from './accessHelpers.js';

/**
 * Blind writes: an integration from which an attribute's value is withheld (RECEIVE_ONLY or NO_ACCESS) but
 * which may write it (OPEN) gets the same outcome whether it sends the stored value or another: every
 * withheld attribute it sends is a write (a new version, a history change of it, listed by reconcile as
 * applied), so the outcome of a write never confirms a guess of the stored value. People who read the
 * attribute see the change in history, from and to as stored.
 */

const updateMutation = 'mutation($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id version } } }';
const itemUpdateMutation = 'mutation($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id version } } }';
const reconcileMutation = 'mutation($input: ReconcileInput!) { reconcile(input: $input) { component { version } applied { field attributeId } refused { attributeId code } } }';
const historyQuery = 'query($id: ID!) { component { findOne(id: $id) { version history(first: 1) { version action actingIntegrationId changes { field from to } } } } }';

type Entry = { version: number; action: string; actingIntegrationId: string | null; changes: { field: string; from: unknown; to: unknown }[] };

describe('a write of a withheld attribute the integration may write is a write whatever the stored value', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let alice: Member;
  let erp: { id: string; headers: Record<string, string> };

  const latest = async (headers: Record<string, string>, id: string): Promise<{ version: number; entry: Entry }> => {
    const found = (await ok(headers, historyQuery, { id })).component.findOne;
    return { version: found.version, entry: found.history[0] };
  };
  const create = async (attributeValues: { attributeId: string; value: unknown }[]) =>
    (
      await ok(admin, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id version } } }', {
        inputs: [{ name: 'Guessed bracket', categoryId: 'mechanical', attributeValues }],
      })
    ).component.create[0] as { id: string; version: number };

  /**
   * What the integration observes of one write of `attributeId` = `value` on `path`: how far the version
   * moved, the newest history entry as it reads it (without its version), and reconcile's answer. People
   * (alice) read the same entry with the change.
   */
  async function probe(path: 'component.update' | 'item.update' | 'reconcile', id: string, attributeId: string, value: unknown) {
    const before = await latest(admin, id);
    const attributeValues = [{ attributeId, value }];
    let answer: unknown = null;
    if (path === 'component.update') answer = (await ok(erp.headers, updateMutation, { inputs: [{ id, attributeValues }] })).component.update[0].version - before.version;
    if (path === 'item.update') answer = (await ok(erp.headers, itemUpdateMutation, { inputs: [{ id, attributeValues }] })).item.update[0].version - before.version;
    if (path === 'reconcile') {
      const result = (await ok(erp.headers, reconcileMutation, { input: { componentId: id, attributeValues } })).reconcile;
      answer = { ...result, component: { version: result.component.version - before.version } };
    }
    const seen = await latest(erp.headers, id);
    const { version: entryVersion, ...entry } = seen.entry;
    const read = await latest(alice.headers, id);
    return { answer, moved: seen.version - before.version, entryIsNew: entryVersion === seen.version && entryVersion > before.version, entry, forReader: read.entry };
  }

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    alice = await memberWithRole(tenant, 'EDITOR');
    const created = (await ok(admin, 'mutation($input: CreateIntegrationInput!) { integration { create(input: $input) { id } } }', { input: { name: 'NetSuite ERP' } })).integration.create;
    const key = (await ok(admin, 'mutation($input: CreateApiKeyInput!) { apiKey { create(input: $input) { secret } } }', { input: { name: 'ERP key', integrationId: created.id } })).apiKey.create;
    erp = { id: created.id, headers: { ...admin, 'x-api-key': key.secret } };
    // Both open (nobody manages them): ERP may write them, but reads neither.
    await ok(admin, 'mutation($entries: [AttributeAccessEntryInput!]!) { setAttributeAccess(entries: $entries) { version } }', {
      entries: [
        { attribute: 'finish', principal: erp.id, read: 'RECEIVE_ONLY' },
        { attribute: 'mass', principal: erp.id, read: 'NO_ACCESS' },
      ],
    });
  }, 60_000);

  for (const path of ['component.update', 'item.update', 'reconcile'] as const) {
    it(`${path}: the stored value and another one get the same outcome, and readers see the change`, async () => {
      const part = await create([
        { attributeId: 'finish', value: 'anodized-stored' },
        { attributeId: 'mass', value: 12.5 },
        { attributeId: 'material', value: 'Al 6061' },
      ]);
      for (const [attributeId, stored, other] of [
        ['finish', 'anodized-stored', 'anodized-other'],
        ['mass', 12.5, 13.75],
      ] as const) {
        // Right guess first (the value stays), then a wrong one (the value changes).
        const right = await probe(path, part.id, attributeId, stored);
        const wrong = await probe(path, part.id, attributeId, other);
        const { forReader: rightForReader, ...rightSeen } = right;
        const { forReader: wrongForReader, ...wrongSeen } = wrong;
        expect(rightSeen).toEqual(wrongSeen);
        // A write: one new version whose history entry is ERP's, with the change withheld from ERP.
        expect(right.moved).toBe(1);
        expect(right.entryIsNew).toBe(true);
        expect(right.entry).toEqual({ action: 'UPDATE', actingIntegrationId: erp.id, changes: [] });
        if (path === 'reconcile') {
          expect(right.answer).toEqual({ component: { version: 1 }, applied: [{ field: `attributeValues.${attributeId}`, attributeId }], refused: [] });
        } else {
          expect(right.answer).toBe(1);
        }
        // A person who reads the attribute sees both writes as changes of it, from and to as stored.
        expect(rightForReader.changes).toEqual([{ field: `attributeValues.${attributeId}`, from: stored, to: stored }]);
        expect(wrongForReader.changes).toEqual([{ field: `attributeValues.${attributeId}`, from: stored, to: other }]);
      }
    });
  }

  it('a person (who reads the attribute) writing the stored value again writes nothing', async () => {
    const part = await create([{ attributeId: 'finish', value: 'anodized-stored' }]);
    const updated = (await ok(alice.headers, updateMutation, { inputs: [{ id: part.id, attributeValues: [{ attributeId: 'finish', value: 'anodized-stored' }] }] })).component.update[0];
    expect(updated.version).toBe(part.version);
  });
});
