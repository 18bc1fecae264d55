import { elementsByName, parseCpn, renderCpn, type CpnScheme } from '../config/cpnScheme.js';

export interface CounterValue {
  element: string;
  scopeKey: string;
  value: number;
}

const counterId = (c: { element: string; scopeKey: string }) => `${c.element}\n${c.scopeKey}`;

/**
 * The counter values a CPN used, found by splitting it with the scheme (the sequence of each counter as
 * a generated CPN would have allocated it). A CPN that does not follow the scheme used no counter.
 */
export function countersOfCpn(scheme: CpnScheme, cpn: string): CounterValue[] {
  const values = parseCpn(scheme, cpn);
  if (!values) return [];
  const elements = elementsByName(scheme);
  const overrides = Object.fromEntries(Object.entries(values).filter(([name]) => !['GROUP', 'COUNTER'].includes(elements.get(name)?.type ?? 'GROUP')));
  const counters: Record<string, number> = {};
  const used: CounterValue[] = [];
  for (;;) {
    const rendered = renderCpn(scheme, { overrides, counters });
    const request = rendered.counterRequests.find((r) => counters[r.element] === undefined);
    const element = request && elements.get(request.element);
    if (!request || !element || element.type !== 'COUNTER') return used;
    const value = Number.parseInt(values[request.element] ?? '', element.base);
    if (!Number.isInteger(value)) return used;
    counters[request.element] = value;
    used.push({ element: request.element, scopeKey: request.scopeKey, value });
  }
}

/**
 * The counters an imported library needs: for each sequence the highest of the exported value, the
 * target's own and every value an imported CPN used, so that the next generated CPN is new.
 */
export function mergeCounters(scheme: CpnScheme, cpns: string[], ...known: CounterValue[][]): CounterValue[] {
  const highest = new Map<string, CounterValue>();
  const offer = (c: CounterValue) => {
    const id = counterId(c);
    if ((highest.get(id)?.value ?? -Infinity) < c.value) highest.set(id, c);
  };
  for (const list of known) list.forEach(offer);
  for (const cpn of cpns) countersOfCpn(scheme, cpn).forEach(offer);
  return [...highest.values()];
}
