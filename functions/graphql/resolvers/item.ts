import { bomHistory, childrenOf, documentLinksOf, lineChild, whereUsed, type AssemblyLinkView } from '../../../lib/items/reads.js';
import { indentedBom, indentedWhereUsed } from '../../../lib/items/indentedWalk.js';
import { indentedBomAsOf } from '../../../lib/items/effectivity.js';
import { updateBom, writeItemsForRequest } from '../../../lib/items/service.js';
import type { BomLine } from '../../../lib/items/model.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { attributeChanges, libraryConfig, libraryScope, loadComponent, relationReads, userById, writeContext } from './shared.js';

const crashFault = 'crash-after-first-pending-write';

function withAttributeChanges<T extends { attributeValues?: readonly { attributeId: string; value?: unknown }[] | null; documentFormats?: unknown }>(input: T) {
  return {
    ...input,
    documentFormats: Object.hasOwn(input, 'documentFormats') ? (input.documentFormats as string[] | null) : undefined,
    attributeValues: attributeChanges(input.attributeValues),
  };
}

async function childOf(context: GraphQLContext, line: BomLine) {
  return lineChild(context.store, await libraryConfig(context), line, (id) => loadComponent(context, id));
}

export const itemResolvers: Resolvers = {
  ItemMutationNamespace: {
    create: (_parent, { inputs }, context) =>
      writeItemsForRequest(context.store, () => writeContext(context), 'create', inputs.map(withAttributeChanges), { crashAfterFirstPendingWrite: context.faults.has(crashFault) }),
    update: (_parent, { inputs }, context) =>
      writeItemsForRequest(context.store, () => writeContext(context), 'update', inputs.map(withAttributeChanges), { crashAfterFirstPendingWrite: context.faults.has(crashFault) }),
  },
  AssembliesMutationNamespace: {
    updateBOM: (_parent, { input }, context) => updateBom(context.store, () => writeContext(context), input),
  },
  Component: {
    children: (component, _args, context) => childrenOf(relationReads(context), component.id),
    documents: (component, _args, context) => documentLinksOf(relationReads(context), component.id),
    whereUsed: (component, _args, context) => whereUsed(relationReads(context), component.id),
    indentedBom: async (component, { depth, asOf, first, after }, context) =>
      asOf !== undefined && asOf !== null
        ? indentedBomAsOf(context.store, await libraryScope(context), component.id, depth ?? 10, asOf, { first, after })
        : indentedBom(context.store, await libraryScope(context), component.id, depth ?? 10, { first, after }),
    indentedWhereUsed: async (component, { depth, first, after }, context) => indentedWhereUsed(context.store, await libraryScope(context), component.id, depth ?? 10, { first, after }),
    bomHistory: async (component, { first }, context) => bomHistory(context.store, await libraryScope(context), component.id, first ?? 20),
  },
  AssemblyLink: {
    id: (link) => link.line.lineId,
    childId: (link) => link.line.childId,
    child: (link, _args, context) => (link.childAsOf !== undefined ? link.childAsOf : childOf(context, link.line)),
    quantity: (link) => link.line.quantity,
    refDes: (link) => link.line.refDes,
    itemNumber: (link) => link.line.itemNumber,
    notes: (link) => link.line.notes,
    childHistoryId: (link) => link.line.childHistoryId,
    isPinned: (link) => link.line.childHistoryId !== null,
    createdByIntegrationId: (link) => link.line.createdByIntegrationId,
    createdAt: (link) => link.line.createdAt,
    substitutes: (link) => link.line.substitutes.map((componentId, index) => ({ rank: index + 1, componentId })),
  },
  BomSubstitute: {
    component: async (substitute, _args, context) => (await loadComponent(context, substitute.componentId)) ?? null,
  },
  AssemblyLinkHistory: {
    createdAt: (snapshot) => snapshot.updatedAt,
    createdBy: (snapshot, _args, context) => userById(context, snapshot.updatedBy),
    lines: (snapshot) => snapshot.lines.map((line): AssemblyLinkView => ({ assemblyId: snapshot.assemblyId, line })),
  },
  DocumentLink: {
    id: (link) => link.linkId,
    document: async (link, _args, context) => (await loadComponent(context, link.documentId)) ?? null,
  },
  ComponentHistoryEntry: {
    id: (entry) => `${entry.componentId}:${entry.version}`,
  },
};
