import { auditLogPage } from '../../../lib/audit/log.js';
import type { Resolvers } from '../generated/resolvers-types.js';

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : undefined);

export const auditResolvers: Resolvers = {
  OrganizationQueryNamespace: {
    auditLog: async (_parent, { filter, pagination }, { store, access }) => {
      const { organization } = await access.organization();
      return auditLogPage(
        store,
        organization.id,
        { actorId: filter?.actorId ?? undefined, targetId: filter?.targetId ?? undefined, operation: filter?.operation ?? undefined, from: iso(filter?.from), to: iso(filter?.to) },
        pagination ?? {},
      ) as never;
    },
  },
  AuditEntry: {
    id: (entry) => (entry as unknown as { entryId: string }).entryId,
  },
};
