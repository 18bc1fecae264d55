import { InvalidInputError } from '../errors.js';

/** What a plan entitles an organization to. Sandboxes inherit their parent's plan. */
export interface Entitlements {
  notRevisionManaged: boolean;
  scim: boolean;
  /** How many non-archived sandboxes the organization may have. */
  sandboxOrgs: number;
}

export const plans = {
  free: { notRevisionManaged: false, scim: false, sandboxOrgs: 0 },
  team: { notRevisionManaged: true, scim: false, sandboxOrgs: 1 },
  enterprise: { notRevisionManaged: true, scim: true, sandboxOrgs: 5 },
} as const satisfies Record<string, Entitlements>;

export type PlanName = keyof typeof plans;
export const defaultPlan: PlanName = 'enterprise';

export function assertPlanName(plan: string): asserts plan is PlanName {
  if (!Object.hasOwn(plans, plan)) {
    throw new InvalidInputError(`Unknown plan "${plan}": use one of ${Object.keys(plans).join(', ')}`, { field: 'plan' });
  }
}
