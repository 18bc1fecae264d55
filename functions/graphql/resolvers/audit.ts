import { InvalidInputError } from '../../../lib/errors.js';
import { auditLogPage } from '../../../lib/audit/log.js';
import type { AuditLogFilterInput, Resolvers } from '../generated/resolvers-types.js';
import type { AuditLogFilter } from '../../../lib/audit/log.js';

/** A DateTime bound as sent (auditLogPage checks and normalizes it); a value of another type is refused, not dropped. */
const iso = (value: unknown, field: string) => {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  throw new InvalidInputError(`${field}: a DateTime is an ISO 8601 string`, { field });
};

/** AuditLogFilterInput as the log reads it (organization.auditLog and transfer.exportAuditLog). */
export function auditLogFilter(filter: AuditLogFilterInput | null | undefined): AuditLogFilter {
  return {
    actorId: filter?.actorId ?? undefined,
    targetId: filter?.targetId ?? undefined,
    operation: filter?.operation ?? undefined,
    from: iso(filter?.from, 'filter.from'),
    to: iso(filter?.to, 'filter.to'),
  };
}

export const auditResolvers: Resolvers = {
  OrganizationQueryNamespace: {
    auditLog: async (_parent, { filter, pagination }, { store, access }) => {
      const { organization } = await access.organization();
      return auditLogPage(store, organization.id, auditLogFilter(filter), pagination ?? {}) as never;
    },
  },
  AuditEntry: {
    id: (entry) => (entry as unknown as { entryId: string }).entryId,
  },
};
