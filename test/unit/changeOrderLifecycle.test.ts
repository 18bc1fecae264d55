import { describe, expect, it } from 'vitest';
import { closesItself, stageOutcome, type ApprovalType, type StageState } from '../../lib/changeOrders/lifecycle.js';

function stage(type: ApprovalType, reviewers: number, decisions: ('A' | 'R' | '-')[], options: { min?: number; required?: number[]; toApprove?: number[] } = {}): StageState {
  return {
    name: 's',
    approvalType: type,
    minReviewers: options.min ?? 1,
    reviewers: Array.from({ length: reviewers }, (_, i) => ({ userId: `u${i}`, isRequired: !!options.required?.includes(i), isRequiredToApprove: !!options.toApprove?.includes(i) })),
    decisions: decisions.flatMap((d, i) => (d === '-' ? [] : [{ userId: `u${i}`, decision: d === 'A' ? ('APPROVE' as const) : ('REJECT' as const), comment: null, at: '' }])),
    openedAt: '',
    closedAt: null,
    outcome: null,
  };
}

describe('stage outcomes', () => {
  it('Unanimous: all must approve; one rejection rejects', () => {
    expect(stageOutcome(stage('Unanimous', 3, ['A', 'A', '-']))).toBe('PENDING');
    expect(stageOutcome(stage('Unanimous', 3, ['A', 'A', 'A']))).toBe('PASSED');
    expect(stageOutcome(stage('Unanimous', 3, ['A', 'R', '-']))).toBe('REJECTED');
  });

  it('Majority: more than half approve; rejected once a majority is out of reach', () => {
    expect(stageOutcome(stage('Majority', 4, ['A', 'A', '-', '-']))).toBe('PENDING');
    expect(stageOutcome(stage('Majority', 4, ['A', 'A', 'A', '-']))).toBe('PASSED');
    expect(stageOutcome(stage('Majority', 4, ['R', 'R', '-', '-']))).toBe('REJECTED');
    expect(stageOutcome(stage('Majority', 3, ['A', 'A', '-']))).toBe('PASSED');
    expect(stageOutcome(stage('Majority', 3, ['R', '-', '-']))).toBe('PENDING');
  });

  it('Minimum: at least minReviewers approve; rejected when too few are left', () => {
    expect(stageOutcome(stage('Minimum', 3, ['A', '-', '-'], { min: 2 }))).toBe('PENDING');
    expect(stageOutcome(stage('Minimum', 3, ['A', 'R', 'A'], { min: 2 }))).toBe('PASSED');
    expect(stageOutcome(stage('Minimum', 3, ['R', 'R', '-'], { min: 2 }))).toBe('REJECTED');
  });

  it('honours isRequired and isRequiredToApprove', () => {
    expect(stageOutcome(stage('Minimum', 3, ['A', '-', '-'], { required: [2] }))).toBe('PENDING');
    expect(stageOutcome(stage('Minimum', 3, ['A', '-', 'R'], { required: [2] }))).toBe('PASSED');
    expect(stageOutcome(stage('Majority', 3, ['A', 'A', '-'], { toApprove: [2] }))).toBe('PENDING');
    expect(stageOutcome(stage('Majority', 3, ['A', 'A', 'R'], { toApprove: [2] }))).toBe('REJECTED');
    expect(stageOutcome(stage('Minimum', 2, ['A', 'A'], { toApprove: [1] }))).toBe('PASSED');
  });

  it('closes by itself only with AUTO_CLOSE', () => {
    expect(closesItself(['AUTO_CLOSE'])).toBe(true);
    expect(closesItself(['MANUAL_CLOSE'])).toBe(false);
    expect(closesItself(undefined)).toBe(false);
  });
});
