import { DomainError, InputError } from '../errors.js';
import { maxRevisionLength } from '../config/revisionScheme.js';

/** Errors of component writes and reads that only lib/components raises (the shared ones, which lower floors raise too, stay in lib/errors.ts). */

export class CategoryNotFoundError extends InputError {
  constructor(categoryId: string, inputIndex?: number, archived = false) {
    super('CATEGORY_NOT_FOUND', archived ? `Category "${categoryId}" is archived` : `Category "${categoryId}" does not exist in this library`, inputIndex, { categoryId });
  }
}

export class StatusNotFoundError extends InputError {
  constructor(statusId: string, inputIndex?: number, archived = false) {
    super('STATUS_NOT_FOUND', archived ? `Status "${statusId}" is archived` : `Status "${statusId}" does not exist in this library`, inputIndex, { statusId });
  }
}

export class InvalidRevisionError extends InputError {
  constructor(message: string, revisionValue: string, inputIndex?: number) {
    // A refused value past the scheme's bound is echoed cut, not whole.
    super('INVALID_REVISION', message, inputIndex, { revisionValue: revisionValue.length > maxRevisionLength ? `${revisionValue.slice(0, maxRevisionLength)}...` : revisionValue });
  }
}

export class AttributeValidationError extends InputError {
  constructor(errors: { attributeId: string; message: string }[], inputIndex?: number) {
    super('ATTRIBUTE_VALIDATION_FAILED', errors.map((e) => e.message).join('; '), inputIndex, { errors });
  }
}

export class CpnError extends InputError {
  constructor(code: 'CPN_INVALID' | 'CPN_TAKEN' | 'CPN_COUNTER_EXHAUSTED', message: string, inputIndex?: number, details: Record<string, unknown> = {}) {
    super(code, message, inputIndex, details);
  }
}

export class NrmError extends InputError {
  constructor(code: 'NRM_NOT_ALLOWED_ON_OBSOLETE' | 'NRM_NOT_ALLOWED' | 'NRM_REVISION_FIXED' | 'NRM_REQUIRES_PRODUCTION_STATUS', message: string, inputIndex?: number) {
    super(code, message, inputIndex);
  }
}

export class TooManyInputsError extends DomainError {
  constructor(operation: string, limit: number, got: number) {
    super('BATCH_TOO_LARGE', `${operation} takes at most ${limit} inputs per call (got ${got})`, undefined, { limit, got });
  }
}

export class ValidationBatchTooLargeError extends DomainError {
  constructor(limit: number, got: number) {
    super('BATCH_TOO_LARGE', `validateAttributesBatch takes at most ${limit} requests per call (got ${got}); nothing was validated`, 400, { limit, got });
  }
}

/** A component that a current BOM uses cannot be deleted; the error names the assemblies that use it. */
export class ComponentInUseError extends DomainError {
  constructor(id: string, name: string, usedBy: { id: string; name: string; cpn: string }[], inputIndex?: number) {
    const names = usedBy.map((assembly) => `${assembly.cpn} ${assembly.name}`).join(', ');
    super('COMPONENT_IN_USE', `${name} (${id}) is used in the BOM of ${names}: remove it from ${usedBy.length > 1 ? 'those BOMs' : 'that BOM'} first`, undefined, { id, usedBy, inputIndex });
  }
}

/**
 * A write whose outcome would depend on attribute values the library's access policy withholds from the
 * calling integration: a category change while an attribute of the old or the new category is withheld (the
 * new category's rules would judge those values). Refused whatever the values, so the refusal tells nothing.
 */
export class AttributeWithheldError extends InputError {
  constructor(
    readonly field: string,
    readonly attributeIds: readonly string[],
    inputIndex?: number,
  ) {
    const message = `${field}: the library's access policy withholds ${attributeIds.join(', ')} from this integration, and this write would be judged on those values`;
    super('FORBIDDEN', message, inputIndex, { reason: 'ATTRIBUTE_WITHHELD', field, attributeIds: [...attributeIds] }, 403);
  }
}
