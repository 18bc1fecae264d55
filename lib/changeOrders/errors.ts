import { DomainError } from '../errors.js';

/** Errors of change orders, their templates and change requests. */

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
