import { auditLogPage } from '../../../lib/audit/log.js';
import type { AuditLogFilterInput, Resolvers } from '../generated/resolvers-types.js';
import type { AuditLogFilter } from '../../../lib/audit/log.js';

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : undefined);

/** AuditLogFilterInput as the log reads it (organization.auditLog and transfer.exportAuditLog). */
export function auditLogFilter(filter: AuditLogFilterInput | null | undefined): AuditLogFilter {
  return { actorId: filter?.actorId ?? undefined, targetId: filter?.targetId ?? undefined, operation: filter?.operation ?? undefined, from: iso(filter?.from), to: iso(filter?.to) };
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
