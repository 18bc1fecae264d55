import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { applyChanges, maxAccessEntries, type AccessPolicy } from '../../lib/model/attributeAccess.js';

/** The access policy is one table item: past `maxAccessEntries` designations a change is refused before the write. */
describe('access policy size', () => {
  const full: AccessPolicy = {
    version: 7,
    entries: Array.from({ length: maxAccessEntries }, (_, index) => ({ attribute: `attribute-${index % 50}`, principal: `integration-${Math.floor(index / 50)}`, write: 'OPEN', read: 'READ' })),
  };

  it('refuses a designation that would pass the limit, with the field and the limit', () => {
    const refusal = (() => {
      try {
        applyChanges(full, [{ attribute: 'attribute-0', principal: 'integration-new', write: 'NO_WRITE' }]);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect(refusal).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'entries', limit: maxAccessEntries } });
  });

  it('still changes a designation the full policy holds (no new entry)', () => {
    const next = applyChanges(full, [{ attribute: 'attribute-3', principal: 'integration-2', write: 'NO_WRITE' }]);
    expect(next.entries).toHaveLength(maxAccessEntries);
    expect(next.entries.find((e) => e.attribute === 'attribute-3' && e.principal === 'integration-2')).toMatchObject({ write: 'NO_WRITE' });
  });

  it('fits one item at the limit, at the longest ids (JSON, which counts more than DynamoDB does, under 400 KB with room for the key)', () => {
    const longest = { attribute: 'a'.repeat(64), principal: '00000000-0000-4000-8000-000000000000', write: 'EXCLUSIVE_WRITE', read: 'RECEIVE_ONLY' };
    expect(Buffer.byteLength(JSON.stringify(Array.from({ length: maxAccessEntries }, () => longest)))).toBeLessThan(390_000);
  });
});
