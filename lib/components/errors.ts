import { DomainError } from '../errors.js';

/** Prefixes a message with the input it concerns, for calls that carry several inputs. */
const at = (inputIndex: number | undefined, message: string) => (inputIndex === undefined ? message : `inputs[${inputIndex}]: ${message}`);

export class ComponentNotFoundError extends DomainError {
  constructor(id: string, inputIndex?: number) {
    super('NOT_FOUND', at(inputIndex, `Component ${id} was not found in this library`), undefined, { id, inputIndex });
  }
}

export class VersionConflictError extends DomainError {
  constructor(id: string, expectedVersion: number, currentVersion: number | undefined, inputIndex?: number) {
    super(
      'VERSION_CONFLICT',
      at(inputIndex, `Component ${id} is at version ${currentVersion ?? 'unknown'}, not ${expectedVersion}: it was changed by someone else; read it again`),
      undefined,
      { id, expectedVersion, currentVersion, inputIndex },
    );
  }
}

export class CategoryNotFoundError extends DomainError {
  constructor(categoryId: string, inputIndex?: number, archived = false) {
    super('CATEGORY_NOT_FOUND', at(inputIndex, archived ? `Category "${categoryId}" is archived` : `Category "${categoryId}" does not exist in this library`), undefined, {
      categoryId,
      inputIndex,
    });
  }
}

export class StatusNotFoundError extends DomainError {
  constructor(statusId: string, inputIndex?: number, archived = false) {
    super('STATUS_NOT_FOUND', at(inputIndex, archived ? `Status "${statusId}" is archived` : `Status "${statusId}" does not exist in this library`), undefined, {
      statusId,
      inputIndex,
    });
  }
}

export class InvalidRevisionError extends DomainError {
  constructor(message: string, revisionValue: string, inputIndex?: number) {
    super('INVALID_REVISION', at(inputIndex, message), undefined, { revisionValue, inputIndex });
  }
}

export class AttributeValidationError extends DomainError {
  constructor(errors: { attributeId: string; message: string }[], inputIndex?: number) {
    super('ATTRIBUTE_VALIDATION_FAILED', at(inputIndex, errors.map((e) => e.message).join('; ')), undefined, { errors, inputIndex });
  }
}

export class ComponentInputError extends DomainError {
  constructor(message: string, field: string, inputIndex?: number) {
    super('BAD_USER_INPUT', at(inputIndex, message), undefined, { field, inputIndex });
  }
}

export class CpnError extends DomainError {
  constructor(code: 'CPN_INVALID' | 'CPN_TAKEN' | 'CPN_COUNTER_EXHAUSTED', message: string, inputIndex?: number, details: Record<string, unknown> = {}) {
    super(code, at(inputIndex, message), undefined, { ...details, inputIndex });
  }
}

export class NrmError extends DomainError {
  constructor(code: 'NRM_NOT_ALLOWED_ON_OBSOLETE' | 'NRM_NOT_ALLOWED' | 'NRM_REVISION_FIXED' | 'NRM_REQUIRES_PRODUCTION_STATUS', message: string, inputIndex?: number) {
    super(code, at(inputIndex, message), undefined, { inputIndex });
  }
}

export class FeatureNotInPlanError extends DomainError {
  constructor(feature: string, inputIndex?: number) {
    super('FEATURE_NOT_IN_PLAN', at(inputIndex, `The organization's plan does not include ${feature}`), undefined, { feature, inputIndex });
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

/** Another write touched the same data at the same moment; nothing was written. Read again and retry. */
export class ConcurrentWriteError extends DomainError {
  constructor(what: string, inputIndex?: number) {
    super('VERSION_CONFLICT', at(inputIndex, `${what} changed concurrently; nothing was written: read it again and retry`), undefined, { inputIndex });
  }
}

/** A component that a current BOM uses cannot be deleted; the error names the assemblies that use it. */
export class ComponentInUseError extends DomainError {
  constructor(id: string, name: string, usedBy: { id: string; name: string; cpn: string }[], inputIndex?: number) {
    const names = usedBy.map((assembly) => `${assembly.cpn} ${assembly.name}`).join(', ');
    super('COMPONENT_IN_USE', `${name} (${id}) is used in the BOM of ${names}: remove it from ${usedBy.length > 1 ? 'those BOMs' : 'that BOM'} first`, undefined, { id, usedBy, inputIndex });
  }
}
