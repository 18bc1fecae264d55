import { errorCodeOf } from '../audit/operations.js';
import { currentAuditSource, finishAuditOperation, runAuditOperation, type AuditOperation } from '../store/audit.js';
import type { Store } from '../store/client.js';
import type { OrganizationRecord } from '../store/organization.js';
import { ScimError } from './errors.js';
import type { ScimResponse } from './service.js';

const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The code of a refused SCIM request in its entry: the SCIM type, else the status (never the detail, which may quote the body). */
export function scimErrorCode(error: unknown): string {
  if (error instanceof ScimError) return error.scimType ? `SCIM_${error.scimType.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}` : `SCIM_${error.status}`;
  return errorCodeOf(error);
}

/**
 * A SCIM write request (POST, PUT, PATCH, DELETE) as one audited operation of the organization: actor the
 * SCIM token, operation `scim.<METHOD> /<Resource>`, targets the resource's id (the created one for a
 * POST), SUCCESS with the provisioning's first transaction; a refusal DENIED (401, 403) or FAILED with
 * its code only. Reads are not audited.
 */
export async function auditedScimRequest(
  store: Store,
  who: { organization: OrganizationRecord; tokenId: string },
  request: { method: string; path: string },
  run: () => Promise<ScimResponse>,
): Promise<ScimResponse> {
  if (!writeMethods.has(request.method)) return run();
  const [, resource = '', id] = request.path.split('/');
  const operation: AuditOperation = {
    ...currentAuditSource(),
    organizationId: who.organization.id,
    retentionDays: who.organization.auditRetentionDays,
    actor: { type: 'scimToken', id: who.tokenId },
    operation: `scim.${request.method} /${resource.slice(0, 32)}`,
    targets: id ? [decodeURIComponent(id).slice(0, 128)] : [],
    summary: '',
  };
  let response: ScimResponse;
  try {
    response = await runAuditOperation(operation, run);
  } catch (error) {
    const denied = error instanceof ScimError && (error.status === 401 || error.status === 403);
    await finishAuditOperation(store, operation, { error, denied, errorCode: scimErrorCode(error) });
    throw error;
  }
  const created = (response.body as { id?: unknown } | undefined)?.id;
  if (request.method === 'POST' && typeof created === 'string' && !operation.written) operation.targets = [created.slice(0, 128)];
  await finishAuditOperation(store, operation, {});
  return response;
}
