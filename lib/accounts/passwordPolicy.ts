/** Password policy of the account routes (spec: Password policy). Chosen per deployment with PASSWORD_POLICY. */
export type PasswordPolicyMode = 'standard' | 'nist';

export interface PasswordPolicy {
  mode: PasswordPolicyMode;
  minLength: number;
  maxLength: number;
  /** Lowercase, uppercase, digit and symbol each required. */
  requireClasses: boolean;
}

export const passwordPolicies: Record<PasswordPolicyMode, PasswordPolicy> = {
  standard: { mode: 'standard', minLength: 12, maxLength: 256, requireClasses: true },
  nist: { mode: 'nist', minLength: 15, maxLength: 256, requireClasses: false },
};

export function passwordPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): PasswordPolicy {
  const mode = env.PASSWORD_POLICY ?? 'standard';
  if (mode !== 'standard' && mode !== 'nist') throw new Error(`PASSWORD_POLICY must be standard or nist, not "${mode}"`);
  return passwordPolicies[mode];
}
