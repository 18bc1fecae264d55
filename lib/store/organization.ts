import * as z from 'zod';
import { AlreadyExistsError, NotFoundError } from '../errors.js';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from './client.js';
import { batchGetRecords, getItem, parseItem, queryAll, updateIf, type WriteItem } from './items.js';

export const organizationKey = (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'ORG' });
/** Global uniqueness of organization slugs; the item maps a slug to its organization id. */
export const organizationSlugKey = (slug: string) => ({ PK: `ORGSLUG#${slug}`, SK: 'ORGSLUG' });
/** ByUser index keys of a sandbox: the sandboxes of a parent organization. */
const sandboxOf = (parentId: string, orgId: string) => ({ GSI1PK: `SANDBOXOF#${parentId}`, GSI1SK: `ORG#${orgId}` });

export const organizationRecord = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  type: z.enum(['PRODUCTION', 'SANDBOX']),
  parentOrganizationId: z.string().uuid().nullable(),
  /** A sandbox carries its parent's plan: `plan set` on the parent updates its sandboxes too. */
  plan: z.string(),
  createdAt: z.string(),
  archived: z.boolean().default(false),
  archivedAt: z.string().nullable().default(null),
  /** Non-archived sandboxes of this organization; the sandbox quota is a condition on it. */
  sandboxCount: z.number().int().default(0),
  /** Members whose direct organization role is SITE_ADMIN; demoting the last one is a condition on it. */
  siteAdminCount: z.number().int().optional(),
  /** Verified email domains (each also held by a global DOMAIN# item). */
  domains: z.array(z.string()).default([]),
  /** SAML single sign-on (saml.configure); SCIM needs it enabled. */
  saml: z
    .object({
      enabled: z.boolean(),
      entityId: z.string(),
      ssoUrl: z.string(),
      certificateSha256: z.string(),
      certificateNotAfter: z.string(),
      domains: z.array(z.string()),
      providerName: z.string(),
      /** COGNITO: registered as an identity provider of the user pool; RECORDED: by the local stack's federation stand-in (cognito-local cannot). */
      registration: z.enum(['COGNITO', 'RECORDED']),
      updatedAt: z.string(),
    })
    .nullable()
    .default(null),
  /** SCIM provisioning (configureScim); checked on every SCIM request together with the token. */
  scimEnabled: z.boolean().default(false),
  /** Days an audit entry of the organization is kept (TTL; default 400: lib/store/auditContext.ts). */
  auditRetentionDays: z.number().int().positive().optional(),
  /** The one ACTIVE SCIM token; creating a token is conditioned on the id read, so two creations cannot both win. */
  scimActiveTokenId: z.string().nullable().default(null),
});
export type OrganizationRecord = z.infer<typeof organizationRecord>;

/** The organization's SAML configuration while it signs people in: enabled, and the organization not archived. */
export const enabledSamlConfiguration = (organization: OrganizationRecord | undefined) => (organization && !organization.archived && organization.saml?.enabled ? organization.saml : undefined);

const slugRecord = z.object({ organizationId: z.string().uuid() });

/** A new organization and its slug; a taken slug is `slugTaken` (default: AlreadyExistsError on input.slug). */
export function organizationPuts(org: OrganizationRecord, slugTaken?: () => Error): WriteItem[] {
  const sandboxKeys = org.parentOrganizationId ? sandboxOf(org.parentOrganizationId, org.id) : {};
  return [
    { Put: { Item: { ...organizationKey(org.id), ...sandboxKeys, entity: 'Organization', ...org }, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Put: { Item: { ...organizationSlugKey(org.slug), entity: 'OrganizationSlug', organizationId: org.id }, ConditionExpression: 'attribute_not_exists(PK)' },
      onConditionFailed: slugTaken ?? (() => new AlreadyExistsError(`An organization with slug "${org.slug}" already exists`, { field: 'input.slug' })),
    },
  ];
}

/**
 * An update that SETs attributes of an organization item that exists (and meets `also`, when given): the one
 * place such an update expression is written. Attribute names go through placeholders (`plan` and `type`
 * are reserved words).
 */
function organizationSet(orgId: string, values: Partial<OrganizationRecord> & Record<string, unknown>, also?: string) {
  const names = Object.keys(values);
  return {
    Key: organizationKey(orgId),
    UpdateExpression: `SET ${names.map((_, i) => `#a${i} = :a${i}`).join(', ')}`,
    ConditionExpression: also ? `attribute_exists(PK) AND ${also}` : 'attribute_exists(PK)',
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:a${i}`, values[name]])),
  };
}

/** Takes one of a production organization's sandbox slots, while it is active and has one left. */
export function sandboxSlotTake(parentId: string, limit: number, onConditionFailed: () => Error): WriteItem {
  return {
    Update: {
      Key: organizationKey(parentId),
      UpdateExpression: 'SET sandboxCount = if_not_exists(sandboxCount, :zero) + :one',
      ConditionExpression: 'attribute_exists(PK) AND #type = :production AND (attribute_not_exists(archived) OR archived = :false) AND (attribute_not_exists(sandboxCount) OR sandboxCount < :limit)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':production': 'PRODUCTION', ':false': false, ':limit': limit },
    },
    onConditionFailed,
  };
}

/** Archives a sandbox and frees its slot in its parent's quota (two items of one transaction). */
export function sandboxArchiveItems(sandbox: OrganizationRecord, at: string, alreadyArchived: () => Error): WriteItem[] {
  return [
    {
      Update: {
        Key: organizationKey(sandbox.id),
        UpdateExpression: 'SET archived = :true, archivedAt = :at',
        ConditionExpression: '#type = :sandbox AND (attribute_not_exists(archived) OR archived = :false)',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':true': true, ':false': false, ':at': at, ':sandbox': 'SANDBOX' },
      },
      onConditionFailed: alreadyArchived,
    },
    {
      Update: {
        Key: organizationKey(sandbox.parentOrganizationId!),
        UpdateExpression: 'ADD sandboxCount :minusOne',
        ConditionExpression: 'attribute_exists(PK) AND sandboxCount > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      },
    },
  ];
}

/** Sets an organization's plan (an operator's `plan set`). */
export function organizationPlanSet(orgId: string, plan: string): WriteItem {
  return { Update: organizationSet(orgId, { plan }), onConditionFailed: () => new NotFoundError('Organization', orgId) };
}

/** Turns SCIM on (only while SAML is enabled: false when it is not) or off. */
export function setScimEnabled(store: Store, orgId: string, enabled: boolean): Promise<boolean> {
  return enabled
    ? updateIf(store, {
        Key: organizationKey(orgId),
        UpdateExpression: 'SET scimEnabled = :on',
        ConditionExpression: 'attribute_exists(PK) AND saml.enabled = :on',
        ExpressionAttributeValues: { ':on': true },
      })
    : updateIf(store, organizationSet(orgId, { scimEnabled: false }));
}

/** Disables SAML (the configuration is kept as `saml`) and SCIM with it, in one write; false when the organization is gone. */
export function setSamlDisabled(store: Store, orgId: string, saml: NonNullable<OrganizationRecord['saml']>): Promise<boolean> {
  return updateIf(store, organizationSet(orgId, { saml, scimEnabled: false }));
}

/** Saves an organization's SAML configuration (the organization exists). */
export function samlConfigurationSet(orgId: string, saml: NonNullable<OrganizationRecord['saml']>): WriteItem {
  return { Update: organizationSet(orgId, { saml }) };
}

/** Moves the organization's active SCIM token from `previousId` (null: none) to `tokenId`, unless it moved meanwhile. */
export function scimActiveTokenSet(orgId: string, previousId: string | null, tokenId: string): WriteItem {
  return {
    Update: {
      Key: organizationKey(orgId),
      UpdateExpression: 'SET scimActiveTokenId = :new',
      ConditionExpression: previousId ? 'scimActiveTokenId = :old' : 'attribute_not_exists(scimActiveTokenId) OR scimActiveTokenId = :null',
      ExpressionAttributeValues: previousId ? { ':new': tokenId, ':old': previousId } : { ':new': tokenId, ':null': null },
    },
  };
}

/** The organization has no active SCIM token any more, if `tokenId` still was it. */
export function scimActiveTokenClear(orgId: string, tokenId: string): WriteItem {
  return {
    Update: {
      Key: organizationKey(orgId),
      UpdateExpression: 'SET scimActiveTokenId = :null',
      ConditionExpression: 'scimActiveTokenId = :id',
      ExpressionAttributeValues: { ':null': null, ':id': tokenId },
    },
  };
}

/** Adds a verified domain to an organization's list. */
export function organizationDomainAdd(orgId: string, domain: string): WriteItem {
  return {
    Update: {
      Key: organizationKey(orgId),
      UpdateExpression: 'SET domains = list_append(if_not_exists(domains, :empty), :domain)',
      ExpressionAttributeValues: { ':empty': [], ':domain': [domain] },
    },
  };
}

export function getOrganization(store: Store, orgId: string): Promise<OrganizationRecord | undefined> {
  return getItem(store, organizationKey(orgId), organizationRecord, 'organization');
}

/** Organizations by id in one BatchGetItem per 100; missing ids are absent. */
export function getOrganizations(store: Store, orgIds: readonly string[]): Promise<Map<string, OrganizationRecord>> {
  return batchGetRecords(store, orgIds, organizationKey, organizationRecord, 'organization');
}

export async function findOrganizationIdBySlug(store: Store, slug: string): Promise<string | undefined> {
  return (await getItem(store, organizationSlugKey(slug), slugRecord, 'organization slug'))?.organizationId;
}

/** The sandboxes created under an organization, archived ones included. */
export function listSandboxes(store: Store, parentId: string): Promise<OrganizationRecord[]> {
  return queryAll(store, { IndexName: 'ByUser', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': `SANDBOXOF#${parentId}` } }, organizationRecord, 'organization');
}

/**
 * Moves the site-admin count of an organization by `change` in a transaction that changes someone's direct
 * organization role. A decrement is conditioned on leaving at least one: the last Site Admin stays.
 */
/** Sets the site-admin count of an organization that has none yet (counted from its members). */
export async function initSiteAdminCount(store: Store, orgId: string, count: number): Promise<void> {
  await updateIf(store, organizationSet(orgId, { siteAdminCount: count }, 'attribute_not_exists(siteAdminCount)'));
}

export function siteAdminCountUpdate(orgId: string, change: number): WriteItem {
  return {
    Update: {
      Key: organizationKey(orgId),
      UpdateExpression: 'ADD siteAdminCount :change',
      ConditionExpression: change < 0 ? 'attribute_exists(PK) AND siteAdminCount > :floor' : 'attribute_exists(PK)',
      ExpressionAttributeValues: change < 0 ? { ':change': change, ':floor': -change } : { ':change': change },
    },
  };
}

/**
 * Every organization in the table: one Scan filtered on the organization items. An operator's listing
 * (a stack serves one tenant: a handful of organizations and their sandboxes), never a request path.
 */
export async function scanOrganizations(store: Store): Promise<OrganizationRecord[]> {
  const found: OrganizationRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.ddb.send(
      new ScanCommand({
        TableName: store.tableName,
        FilterExpression: 'SK = :org AND entity = :entity',
        ExpressionAttributeValues: { ':org': 'ORG', ':entity': 'Organization' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) found.push(parseItem(organizationRecord, item, 'organization'));
    start = page.LastEvaluatedKey;
  } while (start);
  return found.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** How long the organization's audit entries are kept (operator CLI: audit retention). */
export async function setAuditRetention(store: Store, orgId: string, days: number): Promise<boolean> {
  return updateIf(store, organizationSet(orgId, { auditRetentionDays: days }));
}
