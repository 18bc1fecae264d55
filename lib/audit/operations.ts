import type { Caller } from '../access/caller.js';
import { DomainError } from '../errors.js';
import type { Store } from '../store/client.js';
import { currentAuditSource, finishAuditOperation, runAuditOperation, type AuditActor, type AuditOperation } from '../store/audit.js';

/**
 * Audited operations: every mutation of the API, every account, SAML and SCIM action and every operator
 * command runs through `audited`, which records one entry (lib/store/README.md, "Audit log").
 */

/** Who acts, in the entry's words: the API key (and the integration it acts for) or the person. */
export function actorOfCaller(caller: Caller): AuditActor {
  if (caller.kind === 'apiKey') {
    return caller.integrationId
      ? { type: 'integration', id: caller.apiKeyId, userId: caller.userId, integrationId: caller.integrationId }
      : { type: 'apiKey', id: caller.apiKeyId, userId: caller.userId };
  }
  return { type: 'user', id: caller.userId, userId: caller.userId };
}

const deniedCodes = new Set(['FORBIDDEN', 'UNAUTHENTICATED', 'ORGANIZATION_ACCESS_DENIED', 'LIBRARY_ACCESS_DENIED', 'CSRF_TOKEN_INVALID', 'INTEGRATION_DISABLED', 'API_KEY_REVOKED']);

/** A refusal (the caller may not do this) rather than a failure (it could not be done). */
export function isDenial(error: unknown): boolean {
  if (!(error instanceof DomainError)) return false;
  return error.httpStatus === 401 || error.httpStatus === 403 || deniedCodes.has(error.code) || /_(FORBIDDEN|DENIED)$/.test(error.code);
}

export function errorCodeOf(error: unknown): string {
  return error instanceof DomainError ? error.code : 'INTERNAL_SERVER_ERROR';
}

export interface AuditedOperation {
  organizationId: string | null;
  actor: AuditActor;
  operation: string;
  targets?: string[];
  summary?: string;
  retentionDays?: number | undefined;
}

/**
 * Runs `fn` as one audited operation: a transaction it commits carries the entry (SUCCESS); if none did,
 * the entry is written after it; a refusal (DENIED) or failure (FAILED) is written with its error code
 * and nothing else of the request, and the error is thrown on.
 */
export async function audited<T>(store: Store, what: AuditedOperation, fn: (operation: AuditOperation) => Promise<T>): Promise<T> {
  const operation: AuditOperation = { ...currentAuditSource(), targets: [], summary: '', ...what };
  let result: T;
  try {
    result = await runAuditOperation(operation, () => fn(operation));
  } catch (error) {
    await finishAuditOperation(store, operation, { error, denied: isDenial(error), errorCode: errorCodeOf(error) });
    throw error;
  }
  await finishAuditOperation(store, operation, {});
  return result;
}
