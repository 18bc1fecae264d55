import { DomainError } from '../errors.js';

/** The account routes' refusals (flat body { code, message }), raised by lib/accounts and the SAML sign-in. */

export type AccountErrorCode =
  | 'AUTH_ORIGIN_REJECTED'
  | 'AUTH_TOKEN_INVALID'
  | 'AUTH_RATE_LIMITED'
  | 'AUTH_REQUEST_REJECTED'
  | 'AUTH_INVALID_CREDENTIALS'
  | 'SSO_NOT_CONFIGURED'
  | 'SSO_STATE_INVALID'
  | 'SSO_ASSERTION_REJECTED'
  | 'SSO_NOT_ADMITTED';

/** A refusal of the account routes, answered as the spec's flat body with its status. */
export class AccountError extends DomainError {
  constructor(code: AccountErrorCode, httpStatus: number, message: string, details: Record<string, unknown> = {}) {
    super(code, message, httpStatus, details);
  }
}
