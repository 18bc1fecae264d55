import * as z from 'zod';
import { normalizeEmail } from './user.js';
import type { Store } from './client.js';
import { AccessAdminError } from '../errors.js';
import { getItem, queryAll, type WriteItem, queryPrefix } from './items.js';

const orgPartition = (orgId: string) => `ORG#${orgId}`;
export const invitationKey = (orgId: string, invitationId: string) => ({ PK: orgPartition(orgId), SK: `INVITE#${invitationId}` });
/** ByUser index keys: the invitations addressed to an email, in every organization (joining consumes them). */
const invitationByEmail = (email: string, orgId: string, invitationId: string) => ({
  GSI1PK: `INVITEEMAIL#${normalizeEmail(email)}`,
  GSI1SK: `ORG#${orgId}#INVITE#${invitationId}`,
});

export const invitationRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  /** Lower-cased address; an invitation matches a verified address case-insensitively. */
  email: z.string(),
  /** Organization role id given on acceptance. */
  roleId: z.string(),
  /** Library overrides given on acceptance: library id -> library role id. */
  libraryRoles: z.record(z.string(), z.string()),
  invitedById: z.string().uuid(),
  status: z.enum(['PENDING', 'ACCEPTED', 'DECLINED']),
  createdAt: z.string(),
  respondedAt: z.string().nullable(),
  acceptedByUserId: z.string().nullable(),
});
export type InvitationRecord = z.infer<typeof invitationRecord>;

export function invitationPut(invitation: InvitationRecord) {
  return {
    Put: {
      Item: {
        ...invitationKey(invitation.organizationId, invitation.id),
        ...invitationByEmail(invitation.email, invitation.organizationId, invitation.id),
        entity: 'Invitation',
        ...invitation,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** Settles a pending invitation (accepted or declined); fails if it was settled meanwhile. */
/** Settles a pending invitation; one settled meanwhile is INVITATION_NOT_PENDING. */
export function invitationSettle(invitation: InvitationRecord, status: 'ACCEPTED' | 'DECLINED', at: string, userId: string | null): WriteItem {
  return {
    onConditionFailed: () => new AccessAdminError('INVITATION_NOT_PENDING', 'This invitation was settled meanwhile', { id: invitation.id }),
    Update: {
      Key: invitationKey(invitation.organizationId, invitation.id),
      UpdateExpression: 'SET #status = :status, respondedAt = :at, acceptedByUserId = :user',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status, ':at': at, ':user': userId, ':pending': 'PENDING' },
    },
  };
}

export function getInvitation(store: Store, orgId: string, invitationId: string): Promise<InvitationRecord | undefined> {
  return getItem(store, invitationKey(orgId, invitationId), invitationRecord, 'invitation');
}

export function listInvitationsOfOrganization(store: Store, orgId: string): Promise<InvitationRecord[]> {
  return queryPrefix(store, orgPartition(orgId), 'INVITE#', invitationRecord, 'invitation');
}

/** Every invitation addressed to an email, in any organization (through the ByUser index). */
export function listInvitationsForEmail(store: Store, email: string): Promise<InvitationRecord[]> {
  return queryAll(
    store,
    {
      IndexName: 'ByUser',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': `INVITEEMAIL#${normalizeEmail(email)}` },
    },
    invitationRecord,
    'invitation',
  );
}
