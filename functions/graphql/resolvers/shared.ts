import { componentWriteContext } from '../../../lib/components/context.js';
import { IntegrationAccessError } from '../../../lib/errors.js';
import { findPrincipal, type Principal } from '../../../lib/integrations/principals.js';
import type { WriteContext } from '../../../lib/components/rules.js';
import type { AttributeValueChange } from '../../../lib/components/commands.js';
import { loadLibraryConfiguration, type LibraryConfiguration } from '../../../lib/config/libraryConfig.js';
import { usersOfOrganization } from '../../../lib/people/users.js';
import { componentsByIds } from '../../../lib/components/queries.js';
import type { User } from '../../../lib/accounts/model.js';
import type { Component } from '../../../lib/components/model.js';
import type { GraphQLContext } from '../context.js';
import { refuseWithheldSourcing, withheldAttributes, type SourcingAttribute } from '../../../lib/model/attributeAccess.js';
import { relationBatchReads, type RelationReads } from '../../../lib/items/reads.js';

import type { LibraryScope } from '../../../lib/model/scope.js';
export type { LibraryScope };

/**
 * The organization an API key's caller is held to where a person's own standing spans organizations
 * (their invitations, their sandbox parents, like their notifications): the key's, or null for a person's
 * session or Bearer token (every organization of theirs). A key of one organization never reads what
 * another organization holds for the person.
 */
export const keyOrganizationOf = (context: GraphQLContext): string | null => (context.caller.kind === 'apiKey' ? context.caller.organizationId : null);

export async function libraryScope(context: GraphQLContext): Promise<LibraryScope> {
  const { organization, library } = await context.access.library();
  return { organizationId: organization.id, libraryId: library.id, userId: context.caller.userId };
}

/** The library configuration, read once per request. */
export function libraryConfig(context: GraphQLContext): Promise<LibraryConfiguration> {
  return context.once('libraryConfig', async () => {
    const scope = await libraryScope(context);
    return loadLibraryConfiguration(context.store, scope.organizationId, scope.libraryId);
  });
}

export function writeContext(context: GraphQLContext): Promise<WriteContext> {
  // Shares the request's configuration read with the resolvers of the returned components.
  return componentWriteContext(context.store, context.access, () => libraryConfig(context));
}

/**
 * The attributes whose values are withheld from the request's principal (receive-only or no-access for an
 * integration; never for people, who act as the native principal). Costs nothing for people; for an
 * integration it shares the request's configuration read, where the policy lives.
 */
export function withheldForCaller(context: GraphQLContext): Promise<ReadonlySet<string>> {
  return context.once('withheld', async () => {
    if (!context.access.actingIntegrationId) return new Set<string>();
    const [config, principal] = await Promise.all([libraryConfig(context), context.access.principal()]);
    return withheldAttributes(config.accessPolicy, principal);
  });
}

/**
 * A user reference inside an organization (createdBy, updatedBy, history, members; by default the
 * request's organization): the user when they are or were a member of it, else null (another tenant's user
 * named by imported data, say). The ids asked in one tick are read together. What the caller then reads of
 * the user is limited by User's field resolvers (user.ts: without organization.users.read, as a SUPPLIER,
 * nobody else's address).
 */
export async function userById(context: GraphQLContext, userId: string, organizationId?: string): Promise<User | null> {
  const orgId = organizationId ?? (await context.access.organization()).organization.id;
  return context.once(`user:${orgId}:${userId}`, async () => {
    const user = await userOfOrganization(context, orgId, userId);
    if (!user) return null;
    const reference = { ...user };
    organizationReferences.add(reference);
    return reference;
  });
}

/**
 * The stored user of a member, or former member, of an organization, as it is (every address): the ids asked
 * for in one tick are read together. What a caller may see of it is the caller's resolver's to decide
 * (userById's references, an invitation's inviter).
 */
export function userOfOrganization(context: GraphQLContext, organizationId: string, userId: string): Promise<User | undefined> {
  return context.batched(`userReferences:${organizationId}`, userId, (ids) => usersOfOrganization(context.store, organizationId, ids));
}

/** User objects that came from userById: references inside an organization, whose addresses only its user readers see. */
export const organizationReferences = new WeakSet<object>();

/** GraphQL AttributeValueInput -> domain change: an absent value key is a no-op, an explicit null deletes. */
export function attributeChanges(inputs: readonly { attributeId: string; value?: unknown }[] | null | undefined): AttributeValueChange[] | undefined {
  return inputs?.map((input) => ({ attributeId: input.attributeId, hasValue: Object.hasOwn(input, 'value'), value: input.value ?? null }));
}

/** Components by id: the ids asked for in the same tick are read in one BatchGetItem, each id once per request. */
export function loadComponent(context: GraphQLContext, id: string): Promise<Component | undefined> {
  return context.once(`component:${id}`, () =>
    context.batched('components', id, async (ids) => {
      const scope = await libraryScope(context);
      return componentsByIds(context.store, scope, ids);
    }),
  );
}

/**
 * The relation reads of one request (BOMs, where-used entries, document links), batched like
 * loadComponent: every key asked for in the same tick goes into one BatchGetItem (per 100 keys), each key
 * read once per request. `children`, `whereUsed` and `documents` of a page of 400 components cost a
 * handful of requests instead of one or more per component.
 */
export function relationReads(context: GraphQLContext): RelationReads {
  const load = <V>(name: string, id: string, loadMany: (scope: LibraryScope, ids: string[]) => Promise<Map<string, V>>) =>
    context.once(`${name}:${id}`, () => context.batched(name, id, async (ids) => loadMany(await libraryScope(context), ids)));
  return {
    bom: (id) => load('bom', id, (scope, ids) => relationBatchReads.bom(context.store, scope, ids)),
    usage: (id) => load('usage', id, (scope, ids) => relationBatchReads.usage(context.store, scope, ids)),
    documentLinks: (id) => load('documentLinks', id, (scope, ids) => relationBatchReads.documentLinks(context.store, scope, ids)),
  };
}

/** Refuses a read that would reveal sourcing withheld from the calling integration (refuseWithheldSourcing). */
export async function requireReadableSourcing(context: GraphQLContext, field: string, needs: readonly SourcingAttribute[]): Promise<void> {
  refuseWithheldSourcing(await withheldForCaller(context), field, needs);
}

/**
 * A principal of an organization by id (the native one, or an integration), read once per request; null when
 * the organization has no such integration (deleted since, or never). Any other failure is the request's.
 */
export function principalById(context: GraphQLContext, organizationId: string, id: string): Promise<Principal | null> {
  return context.once(`principal:${organizationId}:${id}`, async () => {
    try {
      return await findPrincipal(context.store, organizationId, id);
    } catch (error) {
      if (error instanceof IntegrationAccessError && error.code === 'INTEGRATION_NOT_FOUND') return null;
      throw error;
    }
  });
}
