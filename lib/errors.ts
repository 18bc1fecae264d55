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

/**
 * A write whose outcome would depend on attribute values the library's access policy withholds from the
 * calling integration: a category change while an attribute of the old or the new category is withheld (the
 * new category's rules would judge those values). Refused whatever the values, so the refusal tells nothing.
 */
export class AttributeWithheldError extends DomainError {
  constructor(
    readonly field: string,
    readonly attributeIds: readonly string[],
    inputIndex?: number,
  ) {
    super(
      'FORBIDDEN',
      `${inputIndex === undefined ? '' : `inputs[${inputIndex}]: `}${field}: the library's access policy withholds ${attributeIds.join(', ')} from this integration, and this write would be judged on those values`,
      403,
      { reason: 'ATTRIBUTE_WITHHELD', field, attributeIds: [...attributeIds], ...(inputIndex === undefined ? {} : { inputIndex }) },
    );
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

// ---- components and item writes ------------------------------------------------------------------------

/** Prefixes a message with the input it concerns, for calls that carry several inputs. */
const at = (inputIndex: number | undefined, message: string) => (inputIndex === undefined ? message : `inputs[${inputIndex}]: ${message}`);

export class ComponentNotFoundError extends DomainError {
  constructor(id: string, inputIndex?: number) {
    super('NOT_FOUND', at(inputIndex, `Component ${id} was not found in this library`), undefined, { id, inputIndex });
  }
}

export class VersionConflictError extends DomainError {
  constructor(id: string, expectedVersion: number, currentVersion: number | undefined, inputIndex?: number) {
    super('VERSION_CONFLICT', at(inputIndex, `Component ${id} is at version ${currentVersion ?? 'unknown'}, not ${expectedVersion}: it was changed by someone else; read it again`), undefined, {
      id,
      expectedVersion,
      currentVersion,
      inputIndex,
    });
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

export class BomCycleError extends DomainError {
  constructor(path: string[]) {
    super('BOM_CYCLE', `The BOM would contain its own assembly: ${path.join(' -> ')}`, undefined, { path });
  }
}

/** An item write over the spec's limits; `details.limits` states them. */
export class ItemWriteTooLargeError extends DomainError {
  constructor(message: string, details: Record<string, unknown>) {
    super('ITEM_WRITE_TOO_LARGE', message, undefined, details);
  }
}

export class IndentedBomTooLargeError extends DomainError {
  constructor(depth: number, limit: number) {
    super('BOM_TOO_LARGE', `The indented BOM to depth ${depth} has more than ${limit} lines: ask for a smaller depth, or for each sub-assembly`, undefined, { limit, depth });
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

/** A configuration document that fails validation; every problem is listed, nothing is stored. */
export class ConfigInvalidError extends DomainError {
  constructor(
    type: string,
    readonly problems: { path: string; message: string }[],
  ) {
    super('CONFIG_INVALID', `The ${type} document is invalid: ${problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ')}`, undefined, {
      configType: type,
      problems,
    });
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
  | 'SAML_DOMAIN_NOT_VERIFIED';

/** A refused change to organizations, roles, memberships, teams or invitations; the code says which rule. */
export class AccessAdminError extends DomainError {
  constructor(code: AccessAdminErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
  }
}

// ---- account routes (flat body { code, message }) --------------------------------------------------------

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

// ---- change orders -------------------------------------------------------------------------------------

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

/** A refused change order template: every problem, each with its JSON path and the rule it breaks. */
export class TemplateInvalidError extends DomainError {
  constructor(readonly problems: readonly { path: string; rule: string; message: string }[]) {
    super(
      'TEMPLATE_INVALID',
      `The template has ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems
        .slice(0, 3)
        .map((p) => p.message)
        .join('; ')}${problems.length > 3 ? '; …' : ''}`,
      undefined,
      { problems },
    );
  }
}

export type ChangeOrderErrorCode =
  | 'CHANGE_ORDER_STATE'
  | 'NOT_A_REVIEWER'
  | 'ALREADY_DECIDED'
  | 'STAGE_WITHOUT_REVIEWERS'
  | 'CHANGE_ORDER_TOO_LARGE'
  | 'CHANGE_ORDER_EMPTY'
  | 'VALUES_INVALID'
  | 'CHANGE_ORDER_INVALID'
  /** changeRequests.promote of a request that is not APPROVED. */
  | 'CHANGE_REQUEST_NOT_APPROVED'
  /** changeRequests.promote of a request already promoted into a change order. */
  | 'CHANGE_REQUEST_PROMOTED';

/** A refused change order action; the code says which rule. */
export class ChangeOrderError extends DomainError {
  constructor(code: ChangeOrderErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
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

/** The most problems an IMPORT_INVALID error lists (the count says how many there were). */
export const maxListedImportProblems = 1000;

/** An import refused before anything was written: every problem found, each with its place in the input. */
export class ImportInvalidError extends DomainError {
  constructor(readonly problems: ImportProblem[]) {
    const listed = problems.slice(0, maxListedImportProblems);
    super(
      'IMPORT_INVALID',
      `The import was refused with ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was written. First: ${problems[0]?.path}: ${problems[0]?.message}`,
      undefined,
      { problems: listed, problemCount: problems.length },
    );
  }
}

/** LIBRARY_NOT_EMPTY (only an empty library may be imported into), LIBRARY_IMPORT_IN_PROGRESS (the library is closed while an import writes). */
export class LibraryImportError extends DomainError {
  constructor(code: 'LIBRARY_NOT_EMPTY' | 'LIBRARY_IMPORT_IN_PROGRESS' | 'IMPORT_FAILED', message: string, details: Record<string, unknown> = {}) {
    super(code, message, undefined, details);
  }
}
