import { elementsByName, normalizeCpn, parseCpn, renderCpn, validateFreeformCpn, type CpnScheme } from '../config/cpnScheme.js';
import type { CategoryDefinition } from '../config/categories.js';
import type { Store } from '../store/client.js';
import { allocateCounter } from '../store/counter.js';
import { isCpnTaken } from '../store/cpn.js';
import type { CpnOverride, CreateComponentCommand } from './commands.js';
import { ComponentInputError } from '../errors.js';
import { CpnError } from './errors.js';

/** How a new component gets its CPN: chosen by the caller, or rendered with counters still to allocate. */
export type CpnPlan = { kind: 'chosen'; cpn: string } | { kind: 'generated'; categoryPrefix: string; overrides: Record<string, string> };

/** An element named more than once: which value counts would be left to chance, so each is a problem. */
export function repeatedOverrideElements(overrides: readonly CpnOverride[]): { element: string; message: string }[] {
  const first = new Map<string, number>();
  const problems: { element: string; message: string }[] = [];
  overrides.forEach((override, position) => {
    const earlier = first.get(override.element);
    if (earlier === undefined) first.set(override.element, position);
    else problems.push({ element: override.element, message: `given twice (overrides[${earlier}] and overrides[${position}]): give each element once` });
  });
  return problems;
}

function overridesOf(input: CreateComponentCommand, index: number): Record<string, string> {
  const overrides = input.cpnOverrides ?? [];
  const repeated = repeatedOverrideElements(overrides);
  if (repeated.length > 0) throw new CpnError('CPN_INVALID', repeated.map((e) => `${e.element}: ${e.message}`).join('; '), index, { errors: repeated });
  return Object.fromEntries(overrides.map((o) => [o.element, o.value]));
}

/** Checks the CPN part of a create input before anything is allocated or written. */
export function planCpn(scheme: CpnScheme, input: CreateComponentCommand, category: CategoryDefinition, index: number): CpnPlan {
  const chosen = input.cpn?.trim();
  if (chosen && (input.cpnOverrides?.length ?? 0) > 0) {
    throw new ComponentInputError('give a complete cpn or cpnOverrides, not both (the overrides would be ignored)', 'cpnOverrides', index);
  }
  if (chosen) {
    if (scheme.settings.allow_freeform) {
      const problem = validateFreeformCpn(scheme, chosen);
      if (problem) throw new CpnError('CPN_INVALID', problem, index, { cpn: chosen });
      return { kind: 'chosen', cpn: chosen };
    }
    if (!scheme.settings.allow_override) throw new CpnError('CPN_INVALID', 'This library generates CPNs: overrides are not allowed', index, { cpn: chosen });
    const values = parseCpn(scheme, chosen);
    const rendered = values ? renderCpn(scheme, { categoryPrefix: category.prefix, overrides: values }) : undefined;
    if (!rendered || rendered.errors.length > 0 || !rendered.isDeterministic || normalizeCpn(scheme, rendered.displayValue) !== normalizeCpn(scheme, chosen)) {
      const reasons = rendered?.errors.map((e) => `${e.element}: ${e.message}`).join('; ');
      throw new CpnError('CPN_INVALID', `CPN "${chosen}" does not fit the library's CPN scheme${reasons ? ` (${reasons})` : ''}`, index, { cpn: chosen });
    }
    return { kind: 'chosen', cpn: rendered.displayValue };
  }
  const overrides = overridesOf(input, index);
  const rendered = renderCpn(scheme, { categoryPrefix: category.prefix, overrides });
  if (rendered.errors.length > 0) {
    throw new CpnError('CPN_INVALID', rendered.errors.map((e) => `${e.element}: ${e.message}`).join('; '), index, { errors: rendered.errors });
  }
  if (!rendered.isDeterministic && rendered.counterRequests.length === 0) {
    throw new CpnError('CPN_INVALID', `The CPN cannot be completed: supply values for the unresolved elements (${rendered.displayValue})`, index);
  }
  return { kind: 'generated', categoryPrefix: category.prefix, overrides };
}

/**
 * Refuses a hand-chosen CPN that the library already has (CPNs are never reused) before any counter is
 * allocated, so that a call refused for its input uses up no generated number. The claim written with
 * the component still guards against a concurrent writer choosing the same CPN.
 */
export async function assertChosenCpnsFree(store: Store, orgId: string, libraryId: string, scheme: CpnScheme, plans: { plan: CpnPlan; inputIndex: number }[]): Promise<void> {
  const chosen = plans.filter((entry): entry is { plan: Extract<CpnPlan, { kind: 'chosen' }>; inputIndex: number } => entry.plan.kind === 'chosen');
  const taken = await Promise.all(chosen.map(({ plan }) => isCpnTaken(store, orgId, libraryId, normalizeCpn(scheme, plan.cpn))));
  const first = taken.findIndex((claim) => claim.taken);
  if (first >= 0) {
    const { plan, inputIndex } = chosen[first]!;
    throw new CpnError('CPN_TAKEN', `CPN "${plan.cpn}" is already used in this library (CPNs are never reused)`, inputIndex, { cpn: plan.cpn });
  }
}

/** Allocates the counters a generated CPN needs (atomically, never twice) and renders it. */
export async function allocateCpn(store: Store, orgId: string, libraryId: string, scheme: CpnScheme, plan: CpnPlan, index: number): Promise<string> {
  if (plan.kind === 'chosen') return plan.cpn;
  const counters: Record<string, number> = {};
  const elements = elementsByName(scheme);
  for (;;) {
    const rendered = renderCpn(scheme, { categoryPrefix: plan.categoryPrefix, overrides: plan.overrides, counters });
    if (rendered.isDeterministic) return rendered.displayValue;
    const request = rendered.counterRequests.find((r) => counters[r.element] === undefined);
    if (!request) throw new CpnError('CPN_INVALID', `The CPN cannot be completed (${rendered.displayValue})`, index);
    const element = elements.get(request.element);
    if (!element || element.type !== 'COUNTER') throw new Error(`CPN scheme has no counter "${request.element}"`);
    const value = await allocateCounter(store, orgId, libraryId, request.element, request.scopeKey, element.min);
    if (value > element.max) {
      throw new CpnError('CPN_COUNTER_EXHAUSTED', `CPN counter "${request.element}" (${request.scopeKey}) has reached its maximum ${element.max}`, index);
    }
    counters[request.element] = value;
  }
}
