import { z } from 'zod';
import type { Store } from './client.js';
import { getItem } from './items.js';

export const organizationKey = (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'ORG' });
/** Global uniqueness of organization slugs; the item maps a slug to its organization id. */
export const organizationSlugKey = (slug: string) => ({ PK: `ORGSLUG#${slug}`, SK: 'ORGSLUG' });

export const organizationRecord = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  type: z.enum(['PRODUCTION', 'SANDBOX']),
  parentOrganizationId: z.string().uuid().nullable(),
  plan: z.string(),
  createdAt: z.string(),
});
export type OrganizationRecord = z.infer<typeof organizationRecord>;

const slugRecord = z.object({ organizationId: z.string().uuid() });

export function organizationPuts(org: OrganizationRecord) {
  return [
    { Put: { Item: { ...organizationKey(org.id), entity: 'Organization', ...org }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...organizationSlugKey(org.slug), entity: 'OrganizationSlug', organizationId: org.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
  ];
}

export function getOrganization(store: Store, orgId: string): Promise<OrganizationRecord | undefined> {
  return getItem(store, organizationKey(orgId), organizationRecord, 'organization');
}

export async function findOrganizationIdBySlug(store: Store, slug: string): Promise<string | undefined> {
  return (await getItem(store, organizationSlugKey(slug), slugRecord, 'organization slug'))?.organizationId;
}
