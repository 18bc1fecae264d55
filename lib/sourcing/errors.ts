import { DomainError } from '../errors.js';

/**
 * Refusals of sourcing writes (each writes nothing). Codes: BAD_USER_INPUT (shape, with `field`),
 * INVALID_PRICE, UNKNOWN_CURRENCY, DUPLICATE_MPN, MANUFACTURER_NOT_FOUND, DISTRIBUTOR_NOT_FOUND,
 * PART_NOT_FOUND, QUOTE_NOT_FOUND, PRIMARY_NOT_APPROVED, ALREADY_EXISTS (a vendor name or alias),
 * VENDOR_NOT_FOUND, TOO_MANY_SOURCING_ROWS.
 */
export class SourcingError extends DomainError {
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
  }
}
