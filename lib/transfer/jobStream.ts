/**
 * Which stream records start an import job: INSERTs of an ImportJob item, QUEUED (as importLibrary writes it). One pattern, in Lambda event
 * filtering's syntax (a field matches when its value is one of the listed ones), used by the deployed
 * event source mapping (FilterCriteria, infra/stack/streamFunctions.ts) and applied in code by the local stack's poller
 * (infra/local/start.ts), so that both hand the jobs function the same records. Kept free of imports: the
 * CDK app loads it.
 */
export const importJobStreamFilter = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { entity: { S: ['ImportJob'] }, status: { S: ['QUEUED'] } } },
} as const;

type Pattern = { readonly [field: string]: Pattern | readonly string[] };

/** Whether a record matches a pattern of exact values (the subset of Lambda's filter rules used here). */
export function matchesStreamFilter(pattern: Pattern, record: unknown): boolean {
  if (!record || typeof record !== 'object') return false;
  return Object.entries(pattern).every(([field, rule]) => {
    const value = (record as Record<string, unknown>)[field];
    return Array.isArray(rule) ? rule.includes(value as string) : matchesStreamFilter(rule as Pattern, value);
  });
}
