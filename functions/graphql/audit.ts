import { getNamedType, isInputObjectType, isListType, isNonNullType, type GraphQLArgument, type GraphQLInputType } from 'graphql';
import type { AccessRule } from '../../lib/access/requestAccess.js';
import { actorOfCaller, audited } from '../../lib/audit/operations.js';
import { auditId } from '../../lib/store/auditContext.js';
import type { GraphQLContext } from './context.js';

/**
 * The audit entry of a mutation: its targets are the ids among its arguments, and its summary names the
 * arguments and input fields it was given, never their values (no secret, name or text reaches the log;
 * the change itself is in the history of what it changed).
 */
export function auditTargets(fieldArgs: readonly GraphQLArgument[], args: Record<string, unknown>): string[] {
  const ids = new Set<string>();
  const walk = (type: GraphQLInputType, value: unknown) => {
    if (value === null || value === undefined || ids.size >= 50) return;
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) {
      if (Array.isArray(value)) for (const item of value) walk(inner.ofType, item);
      return;
    }
    if (isInputObjectType(inner)) {
      for (const field of Object.values(inner.getFields())) walk(field.type, (value as Record<string, unknown>)[field.name]);
      return;
    }
    if (inner.name === 'ID' && typeof value === 'string') ids.add(auditId(value.slice(0, 128)));
  };
  for (const arg of fieldArgs) walk(arg.type, args[arg.name]);
  return [...ids];
}

export function auditSummary(fieldArgs: readonly GraphQLArgument[], args: Record<string, unknown>): string {
  const describe = (type: GraphQLInputType, value: unknown, depth: number): string => {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (value === null) return '=null';
    if (isListType(inner)) return Array.isArray(value) ? `[${value.length}]${value[0] !== undefined && depth < 2 ? describe(inner.ofType, value[0], depth + 1) : ''}` : '';
    if (isInputObjectType(inner) && value && typeof value === 'object' && depth < 2) {
      const fields = Object.values(inner.getFields()).filter((field) => (value as Record<string, unknown>)[field.name] !== undefined);
      return `{${fields.map((field) => `${field.name}${describe(field.type, (value as Record<string, unknown>)[field.name], depth + 1)}`).join(',')}}`;
    }
    return getNamedType(inner).name === 'ID' && typeof value === 'string' ? `=${auditId(value.slice(0, 64))}` : '';
  };
  const text = fieldArgs
    .filter((arg) => args[arg.name] !== undefined)
    .map((arg) => `${arg.name}${describe(arg.type, args[arg.name], 0)}`)
    .join(' ');
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}

/** The organization the request names, when it may be known (an API key's own; else the headers' once resolved). */
async function organizationOf(context: GraphQLContext, rule: AccessRule): Promise<{ id: string; retentionDays?: number | undefined } | null> {
  if (rule.scope === 'user' && context.caller.kind !== 'apiKey') return null;
  try {
    const { organization } = await context.access.organization();
    return { id: organization.id, retentionDays: organization.auditRetentionDays };
  } catch {
    return context.caller.kind === 'apiKey' ? { id: context.caller.organizationId } : null;
  }
}

/**
 * Runs one mutation as an audited operation (lib/audit/operations.ts): the authorization, then the
 * resolver; the entry goes to the organization's chain (or, for a person's own operations without an
 * organization, to the person's).
 */
export async function auditedMutation<T>(
  path: string,
  rule: AccessRule,
  fieldArgs: readonly GraphQLArgument[],
  args: Record<string, unknown>,
  context: GraphQLContext,
  run: () => Promise<T>,
): Promise<T> {
  const what = { organizationId: null, actor: actorOfCaller(context.caller), operation: path, targets: auditTargets(fieldArgs, args), summary: auditSummary(fieldArgs, args) };
  return audited(context.store, what, async (operation) => {
    try {
      await context.access.authorize(rule);
    } finally {
      const organization = await organizationOf(context, rule);
      operation.organizationId = organization?.id ?? null;
      operation.retentionDays = organization?.retentionDays;
    }
    return run();
  });
}
