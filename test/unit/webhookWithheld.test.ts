import { describe, expect, it } from 'vitest';
import { withholdBody, withholdEventData } from '../../lib/webhooks/withheld.js';

/** What an integration's webhook receives of an event, by what the policy withholds from it (lib/webhooks/withheld.ts). */
const ids = (added: string[] = [], updated: string[] = [], removed: string[] = []) => ({ added, updated, removed });
const sourcing = (fields: Record<string, unknown>) => ({
  componentId: 'c1',
  rev: 2,
  parts: ids(),
  quotes: ids(),
  primary: { partId: null, quoteId: null },
  previousPrimary: { partId: null, quoteId: null },
  primaryChanged: false,
  partCount: 1,
  ...fields,
});
const parts = new Set(['sourcing.parts']);
const quotes = new Set(['sourcing.quotes']);

describe('webhook events withheld from an integration', () => {
  it('sends no sourcing.changed without sourcing.parts, and the other events whole', () => {
    expect(withholdEventData('SOURCING_CHANGED', sourcing({ parts: ids(['p1']) }), parts)).toBeUndefined();
    expect(withholdEventData('SOURCING_CHANGED', sourcing({ parts: ids(['p1']) }), new Set(['sourcing.parts', 'sourcing.quotes']))).toBeUndefined();
    const summary = { component: { id: 'c1', name: 'Part' } };
    expect(withholdEventData('COMPONENT_UPDATED', summary, new Set(['sourcing.parts', 'mass']))).toBe(summary);
    expect(withholdEventData('SOURCING_CHANGED', sourcing({}), new Set(['mass']))).toEqual(sourcing({}));
  });

  it('drops quote ids without sourcing.quotes, and the events that concerned quotes only', () => {
    const both = sourcing({ parts: ids(['p2']), quotes: ids(['q2'], ['q1']), primary: { partId: 'p2', quoteId: 'q2' }, previousPrimary: { partId: 'p1', quoteId: 'q1' }, primaryChanged: true });
    expect(withholdEventData('SOURCING_CHANGED', both, quotes)).toEqual(
      sourcing({ parts: ids(['p2']), primary: { partId: 'p2', quoteId: null }, previousPrimary: { partId: 'p1', quoteId: null }, primaryChanged: true }),
    );
    // A quote added, the primary quote changed: nothing left to send.
    expect(withholdEventData('SOURCING_CHANGED', sourcing({ quotes: ids(['q1']) }), quotes)).toBeUndefined();
    const quoteOnly = sourcing({ primary: { partId: 'p1', quoteId: 'q1' }, previousPrimary: { partId: 'p1', quoteId: null }, primaryChanged: true });
    expect(withholdEventData('SOURCING_CHANGED', quoteOnly, quotes)).toBeUndefined();
    // The primary part changed: sent, without its quote.
    const partChange = sourcing({ primary: { partId: 'p1', quoteId: 'q1' }, previousPrimary: { partId: null, quoteId: null }, primaryChanged: true });
    expect(withholdEventData('SOURCING_CHANGED', partChange, quotes)).toMatchObject({ primary: { partId: 'p1', quoteId: null }, primaryChanged: true });
  });

  it('reshapes a recorded body: the same string when nothing is withheld from it, none when all is', () => {
    const body = JSON.stringify({ id: 'e1', type: 'sourcing.changed', webhookId: 'w1', data: sourcing({ parts: ids(['p1']), quotes: ids(['q1']) }) });
    expect(withholdBody('SOURCING_CHANGED', body, new Set())).toBe(body);
    expect(withholdBody('SOURCING_CHANGED', body, parts)).toBeUndefined();
    const shaped = JSON.parse(withholdBody('SOURCING_CHANGED', body, quotes)!);
    expect(shaped).toMatchObject({ id: 'e1', type: 'sourcing.changed', webhookId: 'w1', data: { parts: ids(['p1']), quotes: ids() } });
    // A body recorded before previousPrimary existed cannot tell a primary part change from a quote's: taken as the quote's.
    const { previousPrimary: _dropped, ...old } = sourcing({ primary: { partId: 'p1', quoteId: 'q1' }, primaryChanged: true });
    expect(withholdBody('SOURCING_CHANGED', JSON.stringify({ id: 'e2', data: old }), quotes)).toBeUndefined();
  });
});
