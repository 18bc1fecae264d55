import { BadRequestError } from '../errors.js';
import { authenticate, type Caller } from './caller.js';
import { RequestAccess } from './requestAccess.js';
import type { Store } from '../store/client.js';

/** What a request presents: its credential and its context headers, as sent. */
export interface PresentedRequest {
  apiKey?: string | undefined;
  authorization?: string | undefined;
  organization?: string | undefined;
  library?: string | undefined;
}

export interface RequestContext {
  caller: Caller;
  access: RequestAccess;
}

/**
 * Verifies the credential (401 when it is missing or bad) and prepares the caller's access to the
 * organization and library the headers name. The one entry point of the request path: handlers call it
 * before they parse anything else.
 */
/** A UUID is 36 characters and `@org_slug/library_slug` at most 130: longer context headers are malformed. */
export const maxContextHeaderLength = 256;

function checkHeaderLength(name: string, value: string | undefined): void {
  if (value && value.length > maxContextHeaderLength) {
    throw new BadRequestError(`${name} is at most ${maxContextHeaderLength} characters (got ${value.length})`, { header: name });
  }
}

export async function resolveRequestContext(store: Store, request: PresentedRequest): Promise<RequestContext> {
  checkHeaderLength('x-organization', request.organization);
  checkHeaderLength('x-library', request.library);
  const caller = await authenticate(store, { apiKey: request.apiKey, authorization: request.authorization });
  return {
    caller,
    access: new RequestAccess(store, caller, {
      organization: request.organization?.trim() || undefined,
      library: request.library?.trim() || undefined,
    }),
  };
}
