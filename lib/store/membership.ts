import { z } from 'zod';
import { organizationRoles } from '../access/roles.js';
import type { Store } from './client.js';
import { getItem, queryAll } from './items.js';

export const membershipKey = (orgId: string, userId: string) => ({ PK: `ORG#${orgId}`, SK: `MEMBER#${userId}` });
/** ByUser index keys: the organizations a user belongs to. */
const membershipByUser = (userId: string, orgId: string) => ({ GSI1PK: `USER#${userId}`, GSI1SK: `ORG#${orgId}` });

export const membershipRecord = z.object({
  organizationId: z.string().uuid(),
  userId: z.string().uuid(),
  /** Organization role: default permissions in every library of the organization. */
  role: z.enum(organizationRoles),
  /** Library overrides: library id -> role, replacing the organization role in that library only. */
  libraryRoles: z.record(z.string(), z.enum(organizationRoles)),
  createdAt: z.string(),
});
export type MembershipRecord = z.infer<typeof membershipRecord>;

export function membershipPut(membership: MembershipRecord) {
  return {
    Put: {
      Item: {
        ...membershipKey(membership.organizationId, membership.userId),
        ...membershipByUser(membership.userId, membership.organizationId),
        entity: 'Membership',
        ...membership,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export function getMembership(store: Store, orgId: string, userId: string): Promise<MembershipRecord | undefined> {
  return getItem(store, membershipKey(orgId, userId), membershipRecord, 'membership');
}

/** Every organization membership of a user, through the ByUser index. */
export function listMembershipsOfUser(store: Store, userId: string): Promise<MembershipRecord[]> {
  return queryAll(
    store,
    {
      IndexName: 'ByUser',
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :org)',
      ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':org': 'ORG#' },
    },
    membershipRecord,
    'membership',
  );
}
