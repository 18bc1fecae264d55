import * as z from 'zod';
import type { Store } from './client.js';
import { AccessAdminError } from '../errors.js';
import { getItem, type WriteItem } from './items.js';

/** A verified email domain: global, so that one domain belongs to at most one organization. */
export const verifiedDomainKey = (domain: string) => ({ PK: `DOMAIN#${domain.toLowerCase()}`, SK: 'DOMAIN' });

export const verifiedDomainRecord = z.object({
  domain: z.string(),
  organizationId: z.string().uuid(),
  verifiedAt: z.string(),
  verifiedBy: z.string(),
});
export type VerifiedDomainRecord = z.infer<typeof verifiedDomainRecord>;

export function verifiedDomainPut(record: VerifiedDomainRecord): WriteItem {
  return {
    Put: {
      Item: { ...verifiedDomainKey(record.domain), entity: 'VerifiedDomain', ...record },
      // Another organization's domain is never taken over; verifying again for the same organization is fine.
      ConditionExpression: 'attribute_not_exists(PK) OR organizationId = :org',
      ExpressionAttributeValues: { ':org': record.organizationId },
    },
    onConditionFailed: () => new AccessAdminError('DOMAIN_TAKEN', `${record.domain} is verified for another organization`, { domain: record.domain }),
  };
}

export function getVerifiedDomain(store: Store, domain: string): Promise<VerifiedDomainRecord | undefined> {
  return getItem(store, verifiedDomainKey(domain), verifiedDomainRecord, 'verified domain');
}
