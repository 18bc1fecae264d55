import { ChangeOrderError } from './errors.js';
import type { LibraryScope } from '../model/scope.js';
import { getBoms } from '../store/bom.js';
import type { ChangeOrderRecord } from '../store/changeOrder.js';
import type { Store } from '../store/client.js';
import { getComponents, type ComponentRecord } from '../store/component.js';
import { loadEffectiveAccesses } from '../access/effective.js';
import { getMemberships } from '../store/membership.js';
import { stageOutcome } from './lifecycle.js';
import { getTemplates } from './templates.js';
import { validateValues } from './values.js';

/**
 * The checks of a change order before it is submitted (changeOrders.validate, and submit, which refuses
 * while an ERROR remains). Reads the order's components, the BOMs of its assemblies and their children:
 * a handful of BatchGetItems, whatever the library.
 */
export interface ValidationProblem {
  severity: 'ERROR' | 'WARNING';
  code: string;
  /** The component the problem is about (null for the order's own values). */
  componentId: string | null;
  message: string;
}

/** The designators of a refDes text: separated by commas, semicolons or spaces. */
export const designators = (refDes: string | null) => (refDes ?? '').split(/[\s,;]+/).filter(Boolean);

export async function validateChangeOrder(store: Store, scope: LibraryScope, record: ChangeOrderRecord): Promise<ValidationProblem[]> {
  const { organizationId: org, libraryId: lib } = scope;
  const problems: ValidationProblem[] = [];
  const ids = record.components.map((c) => c.componentId);
  const inOrder = new Set(ids);
  const components = await getComponents(store, org, lib, ids, true);
  // What submit's locks would refuse, found here first: a component deleted since it was added, or held by
  // another change order (validate answered no problem and submit then failed NOT_FOUND / COMPONENT_IN_CHANGE_ORDER).
  for (const id of ids) {
    const component = components.get(id);
    if (!component) {
      problems.push({ severity: 'ERROR', code: 'COMPONENT_NOT_FOUND', componentId: id, message: `Component ${id} of ${record.number} was deleted: remove it from the change order` });
    } else if (component.lockedBy && component.lockedBy !== record.id) {
      problems.push({
        severity: 'ERROR',
        code: 'COMPONENT_IN_CHANGE_ORDER',
        componentId: id,
        message: `${component.cpn} is held by change order ${component.lockedBy} until it resolves: remove it from ${record.number} or wait`,
      });
    }
  }
  const assemblies = [...components.values()].filter((c) => c.category.type === 'ASSEMBLY');
  const boms = await getBoms(
    store,
    org,
    lib,
    assemblies.map((a) => a.id),
    true,
  );
  const childIds = [...new Set([...boms.values()].flatMap((b) => b.childIds))].filter((id) => !components.has(id));
  const children = new Map<string, ComponentRecord>([...components, ...(await getComponents(store, org, lib, childIds))]);
  for (const assembly of assemblies) {
    const lines = boms.get(assembly.id)?.lines ?? [];
    const seen = new Map<string, number>();
    for (const line of lines) {
      const child = children.get(line.childId);
      if (!child) continue;
      if (child.state !== 'RELEASED' && !inOrder.has(child.id)) {
        problems.push({
          severity: 'ERROR',
          code: 'UNRELEASED_CHILD',
          componentId: assembly.id,
          message: `${assembly.cpn} uses ${child.cpn}, which is ${child.state} and not in ${record.number}: release it first or add it to the change order`,
        });
      }
      if (child.status.mapsTo === 'OBSOLETE') {
        problems.push({ severity: 'WARNING', code: 'OBSOLETE_CHILD', componentId: assembly.id, message: `${assembly.cpn} uses ${child.cpn}, whose status ${child.status.name} is obsolete` });
      }
      const refs = designators(line.refDes);
      const quantity = line.quantity ?? 1;
      if (refs.length > 0 && refs.length !== quantity) {
        problems.push({
          severity: 'WARNING',
          code: 'REFDES_QUANTITY_MISMATCH',
          componentId: assembly.id,
          message: `${assembly.cpn}: the line of ${child.cpn} names ${refs.length} reference designator(s) for quantity ${quantity}`,
        });
      }
      for (const ref of refs) seen.set(ref.toUpperCase(), (seen.get(ref.toUpperCase()) ?? 0) + 1);
    }
    for (const [ref, count] of seen) {
      if (count > 1) problems.push({ severity: 'ERROR', code: 'DUPLICATE_REFDES', componentId: assembly.id, message: `${assembly.cpn}: reference designator ${ref} is used ${count} times` });
    }
  }
  const template = (await getTemplates(store, scope)).find((t) => t.id === record.templateId);
  if (template) {
    try {
      validateValues(template.document, record.values);
    } catch (error) {
      if (!(error instanceof ChangeOrderError) || error.code !== 'VALUES_INVALID') throw error;
      for (const problem of (error.details.problems ?? []) as { field: string; message: string }[]) {
        const required = problem.message.endsWith('is required');
        problems.push({ severity: 'ERROR', code: required ? 'REQUIRED_FIELD_EMPTY' : 'VALUE_INVALID', componentId: null, message: problem.message });
      }
    }
  }
  problems.push(...(await reviewerProblems(store, scope, record)));
  return problems;
}

/**
 * Reviewers who cannot decide: no longer members of the organization, or without change_orders.approve in the
 * library (a template names its reviewers once, and people leave). Such a stage was submitted and then waited
 * for good (a Unanimous stage, a reviewer required to approve): an ERROR when the stage cannot pass with the
 * others' approvals alone, else a WARNING.
 */
async function reviewerProblems(store: Store, scope: LibraryScope, record: ChangeOrderRecord): Promise<ValidationProblem[]> {
  const ids = [...new Set(record.stages.flatMap((stage) => stage.reviewers.map((r) => r.userId)))];
  if (ids.length === 0) return [];
  const memberships = await getMemberships(store, scope.organizationId, ids, true);
  const access = await loadEffectiveAccesses(store, scope.organizationId, [...memberships.values()]);
  const able = (userId: string) => !!access.get(userId)?.libraryPermissions(scope.libraryId).has('change_orders.approve');
  const problems: ValidationProblem[] = [];
  record.stages.forEach((stage, index) => {
    const unable = stage.reviewers.filter((r) => !able(r.userId));
    if (unable.length === 0) return;
    const othersApprove = stage.reviewers.filter((r) => able(r.userId)).map((r) => ({ userId: r.userId, decision: 'APPROVE' as const, comment: null, at: '' }));
    const passes = stageOutcome({ ...stage, decisions: othersApprove }) === 'PASSED';
    for (const reviewer of unable) {
      problems.push({
        severity: passes ? 'WARNING' : 'ERROR',
        code: 'REVIEWER_CANNOT_APPROVE',
        componentId: null,
        message: `Reviewer ${reviewer.userId} of stage ${index} "${stage.name}" is not a member of this organization with change_orders.approve in this library${
          passes
            ? ''
            : `: the stage cannot pass without them (${stage.approvalType}${reviewer.isRequiredToApprove ? ', required to approve' : ''}); give the stage reviewers who can decide, or use a template that does not name them`
        }`,
      });
    }
  });
  return problems;
}

/** Refuses with CHANGE_ORDER_INVALID (extensions.problems: every problem) while an ERROR remains; answers the warnings. */
export function requireValid(record: ChangeOrderRecord, problems: ValidationProblem[]): ValidationProblem[] {
  const errors = problems.filter((p) => p.severity === 'ERROR');
  if (errors.length > 0) {
    throw new ChangeOrderError(
      'CHANGE_ORDER_INVALID',
      `${record.number} cannot be submitted: ${errors
        .slice(0, 3)
        .map((p) => p.message)
        .join('; ')}${errors.length > 3 ? '; …' : ''}`,
      { problems },
    );
  }
  return problems.filter((p) => p.severity === 'WARNING');
}
