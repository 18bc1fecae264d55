import { resolveVendor, vendorsByIds, vendorsOf, createVendor, updateVendor } from '../../../lib/sourcing/directory.js';
import { findPartsByMpn, sourcingOf, withholdQuotes, withholdSourcing, type ComponentSourcingView, type PartView, type Vendor } from '../../../lib/sourcing/model.js';
import { createPart, createQuote, deletePart, deleteQuote, setPrimarySource, updatePart, updateQuote } from '../../../lib/sourcing/parts.js';
import { exchangeRatesOf, setExchangeRates } from '../../../lib/sourcing/rates.js';
import { sourcingRisks } from '../../../lib/sourcing/risks.js';
import { costRollup } from '../../../lib/sourcing/rollup.js';
import type { SourcingActor } from '../../../lib/sourcing/writes.js';
import { ComponentNotFoundError } from '../../../lib/errors.js';
import { SourcingError } from '../../../lib/sourcing/errors.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope, loadComponent, requireReadableSourcing, withheldForCaller } from './shared.js';

async function actor(context: GraphQLContext): Promise<SourcingActor> {
  return { ...(await libraryScope(context)), actingIntegrationId: context.access.actingIntegrationId };
}

/** Vendors by id: those asked for in the same tick are read in one BatchGetItem. */
async function loadVendor(context: GraphQLContext, id: string): Promise<Vendor> {
  const { organizationId } = await libraryScope(context);
  const vendor = await context.once(`vendor:${id}`, () => context.batched('vendors', id, (ids) => vendorsByIds(context.store, organizationId, ids)));
  if (!vendor) throw new SourcingError('VENDOR_NOT_FOUND', `Vendor ${id} is no longer in the directory`, { id });
  return vendor;
}

/** A component's sourcing as the caller may read it (withheld pseudo-attributes left out: withholdSourcing). */
async function readableSourcing(context: GraphQLContext, componentId: string) {
  const [view, withheld] = await Promise.all([libraryScope(context).then((scope) => sourcingOf(context.store, scope, componentId)), withheldForCaller(context)]);
  return withholdSourcing(view, withheld);
}

/**
 * A mutation's answer as the caller may read it, as componentSourcing would give it: the ComponentSourcing of
 * deletePart, deleteQuote and setPrimarySource through withholdSourcing, and a written Part without its quotes
 * when sourcing.quotes is withheld. A Part or Quote the caller cannot read (sourcing.parts withheld; for a
 * Quote either) comes from the operation already as what the caller sent (readsRow in lib/sourcing/writes.ts:
 * sentPart, sentQuote), never the stored row.
 */
async function readableAfterWrite(context: GraphQLContext, sourcing: ComponentSourcingView): Promise<ComponentSourcingView> {
  return withholdSourcing(sourcing, await withheldForCaller(context));
}
async function readablePart(context: GraphQLContext, part: PartView): Promise<PartView> {
  return (await withheldForCaller(context)).has('sourcing.quotes') ? withholdQuotes(part) : part;
}

const component = (id: string) => async (_parent: unknown, _args: unknown, context: GraphQLContext) => (await loadComponent(context, id)) ?? null;

export const sourcingResolvers: Resolvers = {
  VendorSourcingQueryNamespace: {
    vendors: async (_parent, { kind }, context) => vendorsOf(context.store, (await libraryScope(context)).organizationId, kind ?? undefined),
    resolveVendor: async (_parent, { kind, name }, context) => {
      // The query's own argument (resolveVendor of a part or quote names manufacturerName / distributorName).
      if (name.trim() === '') throw new SourcingError('BAD_USER_INPUT', 'name: give a name or alias', { field: 'name' });
      return resolveVendor(context.store, (await libraryScope(context)).organizationId, kind, null, name).catch((error: unknown) => {
        if (error instanceof SourcingError && error.code.endsWith('_NOT_FOUND')) return null;
        throw error;
      });
    },
    componentSourcing: async (_parent, { componentId }, context) => {
      // A component this library does not have (never created, deleted, another library's) is NOT_FOUND, not an empty sourcing.
      const [component, sourcing] = await Promise.all([loadComponent(context, componentId), readableSourcing(context, componentId)]);
      if (!component) throw new ComponentNotFoundError(componentId);
      return sourcing;
    },
    exchangeRates: async (_parent, _args, context) => exchangeRatesOf(context.store, await libraryScope(context)),
    risks: async (_parent, _args, context) => {
      await requireReadableSourcing(context, 'risks', ['sourcing.parts']);
      return sourcingRisks(context.store, await libraryScope(context));
    },
    findPartsByMpn: async (_parent, { mpn }, context) => {
      const [parts, withheld] = await Promise.all([findPartsByMpn(context.store, await libraryScope(context), mpn), withheldForCaller(context)]);
      if (withheld.has('sourcing.parts')) return [];
      return withheld.has('sourcing.quotes') ? parts.map(withholdQuotes) : parts;
    },
  },
  VendorSourcingMutationNamespace: {
    createVendor: async (_parent, { input }, context) => createVendor(context.store, (await libraryScope(context)).organizationId, input),
    updateVendor: async (_parent, { input }, context) => updateVendor(context.store, (await libraryScope(context)).organizationId, input),
    createPart: async (_parent, { input }, context) => readablePart(context, await createPart(context.store, await actor(context), input)),
    updatePart: async (_parent, { input }, context) => readablePart(context, await updatePart(context.store, await actor(context), input)),
    deletePart: async (_parent, { componentId, id }, context) => readableAfterWrite(context, await deletePart(context.store, await actor(context), componentId, id)),
    createQuote: async (_parent, { input }, context) => createQuote(context.store, await actor(context), input),
    updateQuote: async (_parent, { input }, context) => updateQuote(context.store, await actor(context), input),
    deleteQuote: async (_parent, { componentId, id }, context) => readableAfterWrite(context, await deleteQuote(context.store, await actor(context), componentId, id)),
    setPrimarySource: async (_parent, { input }, context) => readableAfterWrite(context, await setPrimarySource(context.store, await actor(context), input)),
    setExchangeRates: async (_parent, { input }, context) => setExchangeRates(context.store, await libraryScope(context), input),
  },
  ComponentQueryNamespace: {
    costRollup: async (_parent, { id, quantity, currency }, context) => {
      await requireReadableSourcing(context, 'costRollup', ['sourcing.parts', 'sourcing.quotes']);
      return costRollup(context.store, await libraryScope(context), id, quantity, currency);
    },
  },
  Component: {
    vendorSourcing: async (parent, _args, context) => readableSourcing(context, parent.id),
  },
  ComponentSourcing: {
    primarySource: (sourcing) => {
      const part = sourcing.parts.find((p) => p.id === sourcing.primaryPartId);
      return part ? { part, quote: part.quotes.find((q) => q.id === sourcing.primaryQuoteId) ?? null } : null;
    },
  },
  Part: {
    manufacturer: (part, _args, context) => loadVendor(context, part.manufacturerId),
  },
  Quote: {
    distributor: (quote, _args, context) => loadVendor(context, quote.distributorId),
    unitPrice: (quote) => quote.priceBreaks[0]?.unitPrice ?? null,
    priceBreaks: (quote) => quote.priceBreaks.map((b) => ({ ...b, currency: quote.currency })),
  },
  CostRollupLine: { component: (line, args, context) => component(line.componentId)(line, args, context) },
  CostRollupMissing: { component: (line, args, context) => component(line.componentId)(line, args, context) },
  SourcingRisk: { component: (risk, args, context) => component(risk.componentId)(risk, args, context) },
  RiskAssembly: { assembly: (entry, args, context) => component(entry.assemblyId)(entry, args, context) },
  ExchangeRates: {
    rates: (rates) =>
      Object.entries(rates.rates)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([currency, rate]) => ({ currency, rate })),
  },
};
