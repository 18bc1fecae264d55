/**
 * Every expected failure is a DomainError with a stable code (the spec's codes where it names them).
 * httpStatus is set when the failure concerns the request as a whole (context headers, credential,
 * permission: spec statuses 400, 401, 403, 429); errors about the data of one operation leave it unset and
 * travel as a GraphQL error in a 200 response. Handlers map these; nobody else formats errors.
 */
export class DomainError extends Error {
  readonly code: string;
  readonly httpStatus: number | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, httpStatus: number | undefined, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.httpStatus = httpStatus;
    this.details = details;
  }
}

/** Required context headers are missing (spec: 400 naming the headers). */
export class MissingHeadersError extends DomainError {
  constructor(readonly headers: string[]) {
    super('MISSING_CONTEXT_HEADERS', `Missing required header${headers.length > 1 ? 's' : ''}: ${headers.join(', ')}`, 400, { headers });
  }
}

export class BadRequestError extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('BAD_REQUEST', message, 400, details);
  }
}

/** Input that is well-formed GraphQL but breaks a domain rule. */
export class InvalidInputError extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('BAD_USER_INPUT', message, undefined, details);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'A valid credential is required: send an API key in x-api-key') {
    super('UNAUTHENTICATED', message, 401);
  }
}

/** Missing permission (spec: 403 FORBIDDEN with requiredPermission). */
export class PermissionDeniedError extends DomainError {
  constructor(readonly requiredPermission: string) {
    super('FORBIDDEN', `Missing permission ${requiredPermission}`, 403, { requiredPermission });
  }
}

/** The caller may not act in this organization; says nothing about whether it exists. */
export class OrganizationAccessDeniedError extends DomainError {
  constructor() {
    super('ORGANIZATION_ACCESS_DENIED', 'You do not have access to the organization named in x-organization', 403);
  }
}

/** The caller may not act in this library; says nothing about whether it exists. */
export class LibraryAccessDeniedError extends DomainError {
  constructor(message = 'You do not have access to the library named in x-library') {
    super('LIBRARY_ACCESS_DENIED', message, 403);
  }
}

export class NotFoundError extends DomainError {
  constructor(entity: string, id: string) {
    super('NOT_FOUND', `${entity} ${id} was not found`, undefined, { entity, id });
  }
}

/** A unique name (slug, email) is taken. */
export class AlreadyExistsError extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('ALREADY_EXISTS', message, undefined, details);
  }
}
