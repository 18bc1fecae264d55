import { describe, expect, it } from 'vitest';
import { effectivityOf } from '../../lib/changeOrders/actions.js';
import { requestTransitions } from '../../lib/changeOrders/requests.js';
import { parseAsOf, versionInEffect } from '../../lib/items/effectivity.js';

const record = (version: number, action: 'CREATE' | 'UPDATE' | 'RELEASE', at: string, effectiveAt?: string) => ({ version, action, at, effectiveAt: effectiveAt ?? null });

describe('versionInEffect', () => {
  const history = [
    record(1, 'CREATE', '2026-01-01T00:00:00.000Z'),
    record(2, 'RELEASE', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z'),
    record(3, 'UPDATE', '2026-01-03T00:00:00.000Z'),
    record(4, 'RELEASE', '2026-01-04T00:00:00.000Z', '2026-02-01T00:00:00.000Z'),
  ];
  it('takes the latest release in effect, not one dated later', () => {
    expect(versionInEffect(history, '2026-01-05T00:00:00.000Z')).toBe(2);
    expect(versionInEffect(history, '2026-02-01T00:00:00.000Z')).toBe(4);
  });
  it('before any release: the last version written; before creation: null', () => {
    expect(versionInEffect(history, '2026-01-01T12:00:00.000Z')).toBe(1);
    expect(versionInEffect(history, '2025-12-31T00:00:00.000Z')).toBeNull();
  });
  it('before a first release dated later: the version before it, not the release nor what was written after it', () => {
    const dated = [record(1, 'CREATE', '2026-01-01T00:00:00.000Z'), record(2, 'RELEASE', '2026-01-02T00:00:00.000Z', '2026-02-01T00:00:00.000Z'), record(3, 'UPDATE', '2026-01-03T00:00:00.000Z')];
    expect(versionInEffect(dated, '2026-01-04T00:00:00.000Z')).toBe(1);
    expect(versionInEffect(dated, '2026-02-01T00:00:00.000Z')).toBe(2);
  });
  it('a release recorded before effectivity takes effect when written', () => {
    expect(versionInEffect([record(1, 'CREATE', '2026-01-01T00:00:00.000Z'), { version: 2, action: 'RELEASE', at: '2026-01-02T00:00:00.000Z' }], '2026-01-03T00:00:00.000Z')).toBe(2);
  });
  it('normalizes asOf and refuses what is no date-time', () => {
    expect(parseAsOf('2026-01-01T01:00:00+01:00')).toBe('2026-01-01T00:00:00.000Z');
    expect(() => parseAsOf('tomorrow')).toThrow(/asOf/);
  });
});

describe('effectivityOf', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');
  it('keeps what an update does not name, defaults to IMMEDIATE, refuses a past ON_DATE', () => {
    expect(effectivityOf({}, now)).toBeUndefined();
    expect(effectivityOf({ effectivity: 'IMMEDIATE' }, now)).toEqual({ effectivity: 'IMMEDIATE', effectiveAt: null });
    expect(effectivityOf({ effectiveAt: '2026-01-02T00:00:00Z' }, now)).toEqual({ effectivity: 'ON_DATE', effectiveAt: '2026-01-02T00:00:00.000Z' });
    expect(() => effectivityOf({ effectivity: 'ON_DATE', effectiveAt: '2025-12-31T00:00:00Z' }, now)).toThrow(/past/);
    expect(() => effectivityOf({ effectivity: 'ON_DATE' }, now)).toThrow(/ON_DATE needs/);
  });
});

describe('change request transitions', () => {
  it('DRAFT -> SUBMITTED -> APPROVED | REJECTED | DEFERRED -> CLOSED', () => {
    expect(requestTransitions.submit).toEqual({ from: ['DRAFT'], to: 'SUBMITTED' });
    for (const decision of ['approve', 'reject', 'defer'] as const) expect(requestTransitions[decision].from).toEqual(['SUBMITTED']);
    expect(requestTransitions.close.from).toEqual(['APPROVED', 'REJECTED', 'DEFERRED']);
  });
});
