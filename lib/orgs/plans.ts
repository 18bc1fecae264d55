import { InvalidInputError } from '../errors.js';
import type { OrganizationRecord } from '../store/organization.js';

/** What a plan entitles an organization to. Sandboxes inherit their parent's plan. */
export interface Entitlements {
  notRevisionManaged: boolean;
  scim: boolean;
  /** How many non-archived sandboxes the organization may have (entitlement sandbox_orgs). */
  sandboxOrgs: number;
  /**
   * Organization-creation gating: whether the Site Admins of an organization on this plan may create
   * further production organizations without an organization-creation grant (when the deployment enforces
   * gating; see ORG_CREATION_GATING).
   */
  organizationCreation: boolean;
}

export const plans = {
  free: { notRevisionManaged: false, scim: false, sandboxOrgs: 0, organizationCreation: false },
  team: { notRevisionManaged: true, scim: false, sandboxOrgs: 1, organizationCreation: true },
  enterprise: { notRevisionManaged: true, scim: true, sandboxOrgs: 5, organizationCreation: true },
} as const satisfies Record<string, Entitlements>;

export type PlanName = keyof typeof plans;
export const defaultPlan: PlanName = 'enterprise';

export function assertPlanName(plan: string): asserts plan is PlanName {
  if (!Object.hasOwn(plans, plan)) {
    throw new InvalidInputError(`Unknown plan "${plan}": use one of ${Object.keys(plans).join(', ')}`, { field: 'plan' });
  }
}

/** The entitlements of an organization (a sandbox carries its parent's plan name, kept in step by `plan set`). */
export function entitlementsOf(organization: Pick<OrganizationRecord, 'plan'>): Entitlements {
  return Object.hasOwn(plans, organization.plan) ? plans[organization.plan as PlanName] : plans.free;
}

/** Whether the deployment gates organization creation (ORG_CREATION_GATING=enforced, the default, or open). */
export function creationGatingEnforced(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.ORG_CREATION_GATING ?? 'enforced';
  if (value !== 'enforced' && value !== 'open') throw new Error(`ORG_CREATION_GATING must be enforced or open, not "${value}"`);
  return value === 'enforced';
}
