/**
 * The change order lifecycle as pure rules (spec: Change order stages). A change order is DRAFT until
 * submitted; OPEN while its stages run in order; ON_HOLD while paused; RESOLVED once approved, rejected or
 * withdrawn (the template's resolutions decide whether it then closes itself); CLOSED at the end.
 */
export type ChangeOrderStatus = 'DRAFT' | 'OPEN' | 'ON_HOLD' | 'RESOLVED' | 'CLOSED';
export type ChangeOrderResolution = 'APPROVED' | 'REJECTED' | 'WITHDRAWN';
export type ApprovalType = 'Unanimous' | 'Majority' | 'Minimum';
export type CloseAction = 'AUTO_CLOSE' | 'MANUAL_CLOSE';

export interface StageReviewer {
  userId: string;
  /** Must take part: the stage cannot pass before they decide. */
  isRequired: boolean;
  /** Must approve: the stage cannot pass without their approval, and their rejection rejects it. */
  isRequiredToApprove: boolean;
}

export interface Decision {
  userId: string;
  decision: 'APPROVE' | 'REJECT';
  comment: string | null;
  at: string;
}

export interface StageState {
  name: string;
  approvalType: ApprovalType;
  minReviewers: number;
  reviewers: StageReviewer[];
  decisions: Decision[];
  openedAt: string | null;
  closedAt: string | null;
  outcome: 'PASSED' | 'REJECTED' | null;
}

export type StageOutcome = 'PASSED' | 'REJECTED' | 'PENDING';

/**
 * Where a stage stands after its decisions. Unanimous passes when every reviewer approves and fails on the
 * first rejection; Majority passes when more than half approve and fails when that can no longer happen;
 * Minimum passes when at least minReviewers approve and fails when too few are left to reach it. On top of
 * the type: a reviewer required to approve rejects the stage by rejecting, and holds it until they approve;
 * a required reviewer holds it until they decide.
 */
export function stageOutcome(stage: StageState): StageOutcome {
  const decided = new Map(stage.decisions.map((decision) => [decision.userId, decision.decision]));
  const total = stage.reviewers.length;
  const approvals = [...decided.values()].filter((d) => d === 'APPROVE').length;
  const rejections = [...decided.values()].filter((d) => d === 'REJECT').length;
  if (stage.reviewers.some((r) => r.isRequiredToApprove && decided.get(r.userId) === 'REJECT')) return 'REJECTED';
  let byType: StageOutcome;
  switch (stage.approvalType) {
    case 'Unanimous':
      byType = rejections > 0 ? 'REJECTED' : approvals === total ? 'PASSED' : 'PENDING';
      break;
    case 'Majority':
      byType = approvals * 2 > total ? 'PASSED' : (total - rejections) * 2 <= total ? 'REJECTED' : 'PENDING';
      break;
    case 'Minimum':
      byType = approvals >= stage.minReviewers ? 'PASSED' : total - rejections < stage.minReviewers ? 'REJECTED' : 'PENDING';
      break;
  }
  if (byType !== 'PASSED') return byType;
  const waiting = stage.reviewers.some((r) => (r.isRequiredToApprove && decided.get(r.userId) !== 'APPROVE') || (r.isRequired && !decided.has(r.userId)));
  if (!waiting) return 'PASSED';
  // Everyone has decided and a required approval is missing: the stage can no longer pass.
  return decided.size === total ? 'REJECTED' : 'PENDING';
}

/** Whether a resolution closes the change order by itself (AUTO_CLOSE) or waits for close (MANUAL_CLOSE, the default). */
export function closesItself(actions: readonly CloseAction[] | undefined): boolean {
  return !!actions?.includes('AUTO_CLOSE') && !actions.includes('MANUAL_CLOSE');
}

/** The lifecycle actions and the statuses each may start from. */
export const allowedFrom: Record<string, readonly ChangeOrderStatus[]> = {
  update: ['DRAFT'],
  delete: ['DRAFT'],
  submit: ['DRAFT'],
  approve: ['OPEN'],
  reject: ['OPEN'],
  withdraw: ['OPEN', 'ON_HOLD'],
  hold: ['OPEN'],
  resume: ['ON_HOLD'],
  close: ['RESOLVED'],
  reset: ['OPEN', 'ON_HOLD', 'RESOLVED'],
};
