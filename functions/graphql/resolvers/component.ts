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
import { attributeChanges, libraryConfig, libraryScope, userById, writeContext } from './shared.js';

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
    findOne: async (_parent, { id }, context) => {
      const scope = await libraryScope(context);
      return (await findComponent(context.store, scope.organizationId, scope.libraryId, id)) ?? null;
    },
    findAll: async (_parent, { filter, pagination }, context) => findComponentsByFilter(await searchScope(context), { simple: filter }, pagination),
    validateAttributes: async (_parent, { categoryId, attributeValues }, context) =>
      validateAttributesFor(await configOrError(context), categoryId, attributeChanges(attributeValues) ?? []),
    validateAttributesBatch: async (_parent, { requests }, context) =>
      validateAttributesBatch(
        await configOrError(context),
        requests.map((r) => ({ key: r.key, categoryId: r.categoryId, attributeValues: attributeChanges(r.attributeValues) ?? [] })),
      ),
    getAllPinnedComponents: async (_parent, _args, context) => pinnedComponents(context.store, await libraryScope(context)),
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
    attributeValues: (component) => attributeValuesOf(component),
    attributeValue: (component, { attributeId }) => component.attributeValues[attributeId] ?? null,
    effectiveAttributeAccess: async (component, _args, context) => {
      const [config, permissions] = await Promise.all([libraryConfig(context), context.access.libraryPermissions()]);
      return effectiveAttributeAccess(permissions, findCategory(config, component.categoryId)?.attributes ?? []);
    },
    viewerAccess: async (_component, _args, context) => viewerAccess(await context.access.libraryPermissions()),
    // Integrations (principals, attribute managers, locks) arrive with their own work: no integration acts yet.
    integrationLock: () => ({ locked: false, integrationId: null }),
    actingIntegrationId: () => null,
    originIntegration: () => null,
    history: (component, { first }, context) => componentHistory(context.store, component, first ?? 50),
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
