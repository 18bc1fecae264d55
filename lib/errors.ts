/**
 * Every expected failure is a DomainError with a stable code (the spec's codes where it names them).
 * httpStatus is set when the failure concerns the request as a whole (context headers, credential,
 * permission: spec statuses 400, 401, 403, 429); errors about the data of one operation leave it unset and
 * travel as a GraphQL error in a 200 response. Handlers map these; nobody else formats errors.
 *
 * This file holds the base class and the errors that several floors raise (the store among them). An error
 * only one domain raises lives beside it, in that folder's errors.ts (accounts, changeOrders, components,
 * config, items, scim, sourcing, transfer).
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
  constructor(message = 'A valid credential is required: an API key in x-api-key, a Bearer token, or the session cookie with x-csrf-token') {
    super('UNAUTHENTICATED', message, 401);
  }
}

/** A session cookie came without the x-csrf-token of its session (or with another one). */
export class CsrfTokenError extends DomainError {
  constructor() {
    super('CSRF_TOKEN_INVALID', 'A request authenticated by the session cookie must send its csrfToken in x-csrf-token', 403);
  }
}

/** Missing permission (spec: 403 FORBIDDEN with requiredPermission). */
export class PermissionDeniedError extends DomainError {
  constructor(readonly requiredPermission: string) {
    super('FORBIDDEN', `Missing permission ${requiredPermission}`, 403, { requiredPermission });
  }
}

/**
 * Refused to an API key that acts with a role (every integration's key): a person's own act, or managing
 * keys other than those no stronger than itself.
 */
export class ApiKeyRoleForbiddenError extends DomainError {
  constructor(action: string) {
    super('FORBIDDEN', `${action}: an API key with a role (every integration's key) acts with that role, not as its owner`, 403, { reason: 'API_KEY_ROLE' });
  }
}

/**
 * A read that would reveal sourcing the library's access policy withholds from the calling integration
 * (withheldAttributes): a search condition on `mpn` or `manufacturer` without `sourcing.parts` (whatever the
 * operand, so that no answer confirms a guessed MPN), the sourcing risks without `sourcing.parts`, a cost
 * roll-up without `sourcing.parts` or `sourcing.quotes` (its prices are the quotes').
 */
export class SourcingWithheldError extends DomainError {
  constructor(
    readonly field: string,
    readonly withheld: 'sourcing.parts' | 'sourcing.quotes',
  ) {
    super('FORBIDDEN', `${field}: the library's access policy withholds ${withheld} from this integration, and this would reveal it`, 403, {
      reason: 'SOURCING_WITHHELD',
      field,
      attribute: withheld,
    });
  }
}

/** An action reserved to Site Admins (enabling SCIM): holding the permission through another role is not enough. */
export class SiteAdminRequiredError extends DomainError {
  constructor(action: string, requiredPermission: string) {
    super('FORBIDDEN', `${action} needs a Site Admin`, 403, { requiredPermission, requiredRole: 'SITE_ADMIN' });
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

// ---- components and item writes (those only lib/components raises: lib/components/errors.ts) -------------

/**
 * An error about one input of a call that may carry several (`inputs[]`): the message names the input
 * (`inputs[2]: ...`) and `details.inputIndex` holds it; without an index it is the call's own.
 */
export class InputError extends DomainError {
  constructor(code: string, message: string, inputIndex: number | undefined, details: Record<string, unknown> = {}, httpStatus?: number) {
    super(code, inputIndex === undefined ? message : `inputs[${inputIndex}]: ${message}`, httpStatus, { ...details, inputIndex });
  }
}

export class ComponentNotFoundError extends InputError {
  constructor(id: string, inputIndex?: number) {
    super('NOT_FOUND', `Component ${id} was not found in this library`, inputIndex, { id });
  }
}

export class VersionConflictError extends InputError {
  constructor(id: string, expectedVersion: number, currentVersion: number | undefined, inputIndex?: number) {
    super('VERSION_CONFLICT', `Component ${id} is at version ${currentVersion ?? 'unknown'}, not ${expectedVersion}: it was changed by someone else; read it again`, inputIndex, {
      id,
      expectedVersion,
      currentVersion,
    });
  }
}

export class ComponentInputError extends InputError {
  constructor(message: string, field: string, inputIndex?: number) {
    super('BAD_USER_INPUT', message, inputIndex, { field });
  }
}

export class FeatureNotInPlanError extends InputError {
  constructor(feature: string, inputIndex?: number) {
    super('FEATURE_NOT_IN_PLAN', `The organization's plan does not include ${feature}`, inputIndex, { feature });
  }
}

/** Another write touched the same data at the same moment; nothing was written. Read again and retry. */
export class ConcurrentWriteError extends InputError {
  constructor(what: string, inputIndex?: number) {
    super('VERSION_CONFLICT', `${what} changed concurrently; nothing was written: read it again and retry`, inputIndex);
  }
}

/** Another request changed the record between this request's read and its write; read it again. */
export class ConflictError extends DomainError {
  constructor(what: string, id: string, options?: { cause?: unknown }) {
    super('CONFLICT', `${what} ${id} was changed by another request; read it again`, undefined, { id }, options);
  }
}

// ---- BOMs, item writes, files, API keys, configuration ---------------------------------------------------

export class BomError extends DomainError {
  constructor(
    code: 'NOT_AN_ASSEMBLY' | 'CHILD_NOT_FOUND' | 'DOCUMENT_NOT_FOUND' | 'INVALID_BOM_LINE' | 'NOT_A_DOCUMENT' | 'DOCUMENT_LINK_NOT_FOUND',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, undefined, details);
  }
}

// ---- request cost and rate ---------------------------------------------------------------------------------

/** DynamoDB use of one request: the budget or what was used of it. */
export interface DynamoDbUse {
  requests: number;
  readCapacityUnits: number;
}

/**
 * A query that would read more than its per-request DynamoDB budget: stopped before the call that would
 * go over it, answered 400 with the budget and what was used (extensions.budget, extensions.used).
 */
export class QueryBudgetExceededError extends DomainError {
  constructor(
    readonly budget: DynamoDbUse,
    readonly used: DynamoDbUse,
  ) {
    super(
      'QUERY_BUDGET_EXCEEDED',
      `The query needs more than its budget of ${budget.requests} DynamoDB requests and ${budget.readCapacityUnits} read capacity units: select fewer relations per component or a smaller page`,
      400,
      { budget, used },
    );
  }
}

/** The client went away: the request's work stops before its next DynamoDB call. Nobody reads the answer. */
export class RequestAbortedError extends DomainError {
  constructor() {
    super('REQUEST_ABORTED', 'The client closed the connection; the request was stopped', 499);
  }
}

/** Too many requests from one caller (API key, user, SCIM token): 429 with Retry-After. */
export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    limit: { limit: number; windowSeconds: number },
  ) {
    super('RATE_LIMITED', `Too many requests from this credential: at most ${limit.limit} per ${limit.windowSeconds} s; retry after ${retryAfterSeconds} s`, 429, {
      retryAfterSeconds,
      ...limit,
    });
  }
}

type FileErrorCode = 'FILE_NOT_FOUND' | 'FILE_NOT_READY' | 'FILE_UPLOAD_MISMATCH';

export class FileError extends DomainError {
  constructor(code: FileErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
  }

  /** The same failure, naming the input of a call that carries several. */
  forInput(inputIndex: number): FileError {
    return new FileError(this.code as FileErrorCode, `inputs[${inputIndex}]: ${this.message}`, { ...this.details, inputIndex });
  }
}

export class ApiKeyRevokedError extends DomainError {
  constructor(keyId: string) {
    super('API_KEY_REVOKED', `API key ${keyId} is revoked`, undefined, { id: keyId });
  }
}

export class ConfigVersionConflictError extends DomainError {
  constructor(type: string, expected: number, actual: number) {
    super('VERSION_CONFLICT', `The ${type} configuration is at version ${actual}, not ${expected}; read it again`, undefined, {
      configType: type,
      expectedVersion: expected,
      currentVersion: actual,
    });
  }
}

// ---- organizations, roles, teams, invitations ------------------------------------------------------------

export type AccessAdminErrorCode =
  | 'SYSTEM_ROLE_IMMUTABLE'
  | 'ROLE_IN_USE'
  | 'LAST_SITE_ADMIN'
  | 'NOT_A_MEMBER'
  | 'SANDBOX_PARENT_FORBIDDEN'
  | 'SANDBOX_ARCHIVE_FORBIDDEN'
  | 'ORG_CREATION_NOT_ALLOWED'
  | 'INVITATION_NOT_FOR_YOU'
  | 'INVITATION_NOT_PENDING'
  | 'TEAM_ARCHIVED'
  | 'DOMAIN_TAKEN'
  | 'TEAM_MANAGED_BY_SCIM'
  | 'SAML_NOT_ENABLED'
  | 'SAML_METADATA_INVALID'
  | 'SAML_DOMAIN_NOT_VERIFIED'
  | 'ALLOWLIST_DOMAIN_NOT_VERIFIED';

/** A refused change to organizations, roles, memberships, teams or invitations; the code says which rule. */
export class AccessAdminError extends DomainError {
  constructor(code: AccessAdminErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
  }
}

// ---- change orders (the rest of their errors: lib/changeOrders/errors.ts) -------------------------------

/** A component held by an open change order is edited or deleted only through it. */
export class ComponentLockedError extends DomainError {
  constructor(componentId: string, changeOrderId: string, inputIndex?: number) {
    super(
      'COMPONENT_IN_CHANGE_ORDER',
      `${inputIndex === undefined ? '' : `inputs[${inputIndex}]: `}Component ${componentId} is in change order ${changeOrderId}, which holds it until it resolves: withdraw or reset the change order to edit it`,
      undefined,
      { id: componentId, changeOrderId, inputIndex },
    );
  }
}

// ---- integrations and attribute access -----------------------------------------------------------------

export type IntegrationAccessErrorCode =
  /** EXCLUSIVE_WRITE requested while another principal holds WRITE or EXCLUSIVE_WRITE on the attribute. */
  | 'EXCLUSIVE_WRITE_CONFLICT'
  /** WRITE requested while another principal manages the attribute exclusively. */
  | 'ATTRIBUTE_MANAGED_EXCLUSIVELY'
  /** The service's own principal configured as receive-only or no-access. */
  | 'STORE_PRINCIPAL_ALWAYS_READS'
  /** A write of a managed attribute by a principal that is not a linked manager, or by one designated NO_WRITE. */
  | 'ATTRIBUTE_WRITE_DENIED'
  /** A write of a managed attribute that no linked principal manages: nobody writes it until one is linked. */
  | 'ATTRIBUTE_FROZEN'
  /** A filter on an attribute whose value is withheld from the caller. */
  | 'ATTRIBUTE_NOT_READABLE'
  | 'ATTRIBUTE_NOT_FOUND'
  | 'INTEGRATION_NOT_FOUND'
  | 'INTEGRATION_DISABLED'
  | 'NATIVE_PRINCIPAL_IMMUTABLE'
  | 'INTEGRATION_NAME_TAKEN';

/** A refusal of the principal and attribute access model; the code says which rule. Nothing was changed. */
export class IntegrationAccessError extends DomainError {
  constructor(code: IntegrationAccessErrorCode, message: string, details: Record<string, unknown> = {}, httpStatus?: number) {
    super(code, message, httpStatus, details);
  }
}

// ---- library export and import ---------------------------------------------------------------------------

/** One thing wrong with an import: where (file, row or JSON path), which rule, and what. */
export interface ImportProblem {
  path: string;
  code: string;
  message: string;
}

/** LIBRARY_NOT_EMPTY (only an empty library may be imported into), LIBRARY_IMPORT_IN_PROGRESS (the library is closed while an import writes). */
export class LibraryImportError extends DomainError {
  constructor(code: 'LIBRARY_NOT_EMPTY' | 'LIBRARY_IMPORT_IN_PROGRESS' | 'IMPORT_FAILED', message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
  }
}
