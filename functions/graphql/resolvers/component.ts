import { componentAsOf } from '../../../lib/items/effectivity.js';
import { effectiveAttributeAccess, viewerAccess } from '../../../lib/access/componentAccess.js';
import { markComponents, markedIds, pinnedComponents, unmarkComponents } from '../../../lib/components/pins.js';
import { attributeValuesOf, componentHistory, findComponent, type AttributeValueView } from '../../../lib/components/queries.js';
import { deleteComponents } from '../../../lib/components/delete.js';
import { createComponents, updateComponents } from '../../../lib/components/service.js';
import { validateAttributesBatch, validateAttributesFor } from '../../../lib/components/validation.js';
import { findCategory, type LibraryConfiguration } from '../../../lib/config/libraryConfig.js';
import { findComponentsByFilter } from '../../../lib/search/service.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { searchScope } from './search.js';
import { attributeChanges, libraryConfig, libraryScope, loadComponent, principalById, userById, withheldForCaller, writeContext } from './shared.js';
import { integrationLock, withholdChanges } from '../../../lib/model/attributeAccess.js';
import { compareComponents } from '../../../lib/items/compare.js';

function marked(context: GraphQLContext, kind: 'PIN' | 'BOOKMARK') {
  return context.once(`marks:${kind}`, async () => markedIds(context.store, await libraryScope(context), kind));
}

function attributeDefinition(config: LibraryConfiguration, view: AttributeValueView) {
  return findCategory(config, view.categoryId)?.attributes.find((a) => a.id === view.attributeId);
}

async function configOrError(context: GraphQLContext) {
  try {
    return await libraryConfig(context);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export const componentResolvers: Resolvers = {
  ComponentQueryNamespace: {
    findOne: async (_parent, { id, asOf }, context) => {
      const scope = await libraryScope(context);
      if (asOf !== undefined && asOf !== null) return componentAsOf(context.store, scope, id, asOf);
      return (await findComponent(context.store, scope.organizationId, scope.libraryId, id, context.access.readAhead)) ?? null;
    },
    findAll: async (_parent, { filter, pagination }, context) => findComponentsByFilter(await searchScope(context), { simple: filter }, pagination),
    validateAttributes: async (_parent, { categoryId, attributeValues }, context) => validateAttributesFor(await configOrError(context), categoryId, attributeChanges(attributeValues) ?? []),
    validateAttributesBatch: async (_parent, { requests }, context) =>
      validateAttributesBatch(
        await configOrError(context),
        requests.map((r) => ({ key: r.key, categoryId: r.categoryId, attributeValues: attributeChanges(r.attributeValues) ?? [] })),
      ),
    getAllPinnedComponents: async (_parent, _args, context) => pinnedComponents(context.store, await libraryScope(context)),
    compare: async (_parent, { left, right, levels }, context) => compareComponents(context.store, await libraryScope(context), left, right, levels),
  },
  ComponentMutationNamespace: {
    create: async (_parent, { inputs }, context) =>
      createComponents(
        context.store,
        await writeContext(context),
        inputs.map((input) => ({ ...input, attributeValues: attributeChanges(input.attributeValues) })),
      ),
    update: async (_parent, { inputs }, context) =>
      updateComponents(
        context.store,
        await writeContext(context),
        inputs.map((input) => ({
          ...input,
          documentFormats: Object.hasOwn(input, 'documentFormats') ? input.documentFormats : undefined,
          attributeValues: attributeChanges(input.attributeValues),
        })),
      ),
    delete: async (_parent, { ids }, context) => deleteComponents(context.store, await writeContext(context), ids ?? []),
    pin: async (_parent, { input }, context) => markComponents(context.store, await libraryScope(context), 'PIN', input.ids),
    unpin: async (_parent, { input }, context) => unmarkComponents(context.store, await libraryScope(context), 'PIN', input.ids),
    bookmark: async (_parent, { input }, context) => markComponents(context.store, await libraryScope(context), 'BOOKMARK', input.ids),
    unbookmark: async (_parent, { input }, context) => unmarkComponents(context.store, await libraryScope(context), 'BOOKMARK', input.ids),
  },
  Component: {
    revision: (component) => ({ value: component.revisionValue }),
    status: (component) => ({ id: component.statusId, ...component.status }),
    category: (component) => ({ id: component.categoryId, name: component.category.name, type: component.category.type }),
    labels: (component) => component.labels.map((name) => ({ name })),
    createdBy: (component, _args, context) => userById(context, component.createdBy),
    updatedBy: (component, _args, context) => userById(context, component.updatedBy),
    isPinned: async (component, _args, context) => (await marked(context, 'PIN')).has(component.id),
    isBookmarked: async (component, _args, context) => (await marked(context, 'BOOKMARK')).has(component.id),
    // Values withheld from an integration (receive-only or no-access) are left out; the query does not fail.
    attributeValues: async (component, _args, context) => {
      const withheld = await withheldForCaller(context);
      return attributeValuesOf(component).filter((view) => !withheld.has(view.attributeId));
    },
    attributeValue: async (component, { attributeId }, context) => ((await withheldForCaller(context)).has(attributeId) ? null : (component.attributeValues[attributeId] ?? null)),
    effectiveAttributeAccess: async (component, _args, context) => {
      const [config, permissions, principal] = await Promise.all([libraryConfig(context), context.access.libraryPermissions(), context.access.principal()]);
      return effectiveAttributeAccess(permissions, findCategory(config, component.categoryId)?.attributes ?? [], config.accessPolicy, principal, component.links);
    },
    viewerAccess: async (_component, _args, context) => viewerAccess(await context.access.libraryPermissions()),
    integrationLock: async (component, _args, context) => {
      const [config, principal] = await Promise.all([libraryConfig(context), context.access.principal()]);
      const attributes = (findCategory(config, component.categoryId)?.attributes ?? []).map((a) => a.id);
      return integrationLock(config.accessPolicy, principal, attributes, component.links);
    },
    actingIntegrationId: (_component, _args, context) => context.access.actingIntegrationId,
    originIntegration: async (component, _args, context) => {
      if (!component.originIntegrationId) return null;
      const { organization } = await context.access.organization();
      return principalById(context, organization.id, component.originIntegrationId);
    },
    linkedPrincipalIds: (component) => component.links,
    history: async (component, { first }, context) => {
      const [entries, withheld] = await Promise.all([componentHistory(context.store, component, first ?? 50), withheldForCaller(context)]);
      if (withheld.size === 0) return entries;
      return entries.map((entry) => ({ ...entry, changes: withholdChanges(entry.changes, withheld) }));
    },
  },
  ComponentComparison: {
    // Values withheld from an integration (receive-only or no-access) are left out of the differences.
    attributes: async (comparison, _args, context) => {
      const withheld = await withheldForCaller(context);
      return comparison.attributes.filter((a) => !withheld.has(a.attributeId));
    },
  },
  AttributeDifference: {
    name: async (difference, _args, context) => findCategory(await libraryConfig(context), difference.categoryId)?.attributes.find((a) => a.id === difference.attributeId)?.name ?? null,
  },
  BomLineDifference: {
    child: async (difference, _args, context) => (await loadComponent(context, difference.childId)) ?? null,
  },
  ComponentConnection: {
    pageInfo: (page) => ({ hasNextPage: page.hasNextPage, endCursor: page.endCursor }),
  },
  AttributeValue: {
    // Names and units come from the configuration, read only when asked for.
    name: async (view, _args, context) => attributeDefinition(await libraryConfig(context), view)?.name ?? null,
    unit: async (view, _args, context) => attributeDefinition(await libraryConfig(context), view)?.unit ?? null,
  },
  ComponentHistoryEntry: {
    createdAt: (entry) => entry.at,
    user: (entry, _args, context) => userById(context, entry.by),
  },
};
