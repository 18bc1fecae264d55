import * as z from 'zod';
import { AccessAdminError, AlreadyExistsError, ConflictError, NotFoundError } from '../errors.js';
import type { Store } from './client.js';
import { batchGetRecords, getItem, type WriteItem, queryPrefix } from './items.js';

const orgPartition = (orgId: string) => `ORG#${orgId}`;
/** A custom role of an organization (system roles live in code, not in the table). */
export const roleKey = (orgId: string, roleId: string) => ({ PK: orgPartition(orgId), SK: `ROLE#${roleId}` });
/** Uniqueness of a custom role's name in its organization (case-insensitive). */
export const roleNameKey = (orgId: string, name: string) => ({ PK: orgPartition(orgId), SK: `ROLENAME#${name.trim().toLowerCase()}` });

export const roleRecord = z.object({
  id: z.string().uuid(),
  organizationId: z.string().uuid(),
  name: z.string(),
  description: z.string(),
  type: z.enum(['ORG', 'LIBRARY']),
  permissions: z.array(z.string()),
  /**
   * How many grants name this role: direct organization roles, library overrides, team roles and pending
   * invitations. Every assignment changes it in its own transaction, so a delete conditioned on 0 cannot
   * race an assignment.
   */
  holders: z.number().int().default(0),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RoleRecord = z.infer<typeof roleRecord>;

/** Claims a custom role's name in its organization; taken: AlreadyExistsError. */
function roleNamePut(role: RoleRecord): WriteItem {
  return {
    Put: { Item: { ...roleNameKey(role.organizationId, role.name), entity: 'RoleName', roleId: role.id }, ConditionExpression: 'attribute_not_exists(PK)' },
    onConditionFailed: () => new AlreadyExistsError(`A role named "${role.name}" already exists in this organization`, { field: 'input.name' }),
  };
}

export function rolePuts(role: RoleRecord): WriteItem[] {
  const { holders: _holders, ...fields } = role;
  return [
    {
      Put: { Item: { ...roleKey(role.organizationId, role.id), entity: 'Role', ...fields, holders: 0 }, ConditionExpression: 'attribute_not_exists(PK)' },
      onConditionFailed: () => new ConflictError('Role', role.id),
    },
    roleNamePut(role),
  ];
}

/** Updates name, description and permissions; the name item moves when the name changes (same transaction). */
export function roleUpdateItems(before: RoleRecord, after: RoleRecord): WriteItem[] {
  const items: WriteItem[] = [
    {
      Update: {
        Key: roleKey(after.organizationId, after.id),
        UpdateExpression: 'SET #name = :name, description = :description, #permissions = :permissions, updatedAt = :at',
        ConditionExpression: 'attribute_exists(PK) AND updatedAt = :before',
        ExpressionAttributeNames: { '#name': 'name', '#permissions': 'permissions' },
        ExpressionAttributeValues: { ':name': after.name, ':description': after.description, ':permissions': after.permissions, ':at': after.updatedAt, ':before': before.updatedAt },
      },
      onConditionFailed: () => new ConflictError('Role', before.id),
    },
  ];
  if (before.name.trim().toLowerCase() !== after.name.trim().toLowerCase()) {
    items.push({ Delete: { Key: roleNameKey(before.organizationId, before.name) } });
    items.push(roleNamePut(after));
  }
  return items;
}

/**
 * Deletes a custom role only while nobody holds it: ROLE_IN_USE naming the holders found, NotFoundError
 * (for `reference`, the id as asked) when it was deleted meanwhile.
 */
export function roleDeleteItems(role: RoleRecord, reference: string = role.id): WriteItem[] {
  return [
    {
      Delete: {
        Key: roleKey(role.organizationId, role.id),
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(holders) OR holders = :zero)',
        ExpressionAttributeValues: { ':zero': 0 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
      onConditionFailed: (old) => {
        if (!old) return new NotFoundError('Role', reference);
        const holders = roleRecord.shape.holders.parse(old.holders);
        return new AccessAdminError('ROLE_IN_USE', `Role "${role.name}" is held by ${holders} grant(s): reassign its holders (people, teams, pending invitations) first`, { id: role.id, holders });
      },
    },
    { Delete: { Key: roleNameKey(role.organizationId, role.name) } },
  ];
}

/**
 * Keeps the holder counts of custom roles true when grants change: one Update per role whose count moves,
 * each conditioned on the role still existing (an assignment of a role deleted meanwhile fails).
 */
export function roleHolderUpdates(orgId: string, before: readonly string[], after: readonly string[], isCustom: (roleId: string) => boolean) {
  const delta = new Map<string, number>();
  for (const id of before) if (isCustom(id)) delta.set(id, (delta.get(id) ?? 0) - 1);
  for (const id of after) if (isCustom(id)) delta.set(id, (delta.get(id) ?? 0) + 1);
  return [...delta]
    .filter(([, change]) => change !== 0)
    .map(([roleId, change]) => ({
      Update: {
        Key: roleKey(orgId, roleId),
        UpdateExpression: 'ADD holders :change',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':change': change },
      },
    }));
}

export function getRole(store: Store, orgId: string, roleId: string): Promise<RoleRecord | undefined> {
  return getItem(store, roleKey(orgId, roleId), roleRecord, 'role');
}

export function getRoles(store: Store, orgId: string, roleIds: readonly string[]): Promise<Map<string, RoleRecord>> {
  return batchGetRecords(store, roleIds, (id) => roleKey(orgId, id), roleRecord, 'role');
}

export async function findRoleIdByName(store: Store, orgId: string, name: string): Promise<string | undefined> {
  return (await getItem(store, roleNameKey(orgId, name), z.object({ roleId: z.string() }), 'role name'))?.roleId;
}

export function listRoles(store: Store, orgId: string): Promise<RoleRecord[]> {
  return queryPrefix(store, orgPartition(orgId), 'ROLE#', roleRecord, 'role');
}
