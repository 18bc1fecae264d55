import type { Resolvers } from '../generated/resolvers-types.js';

/**
 * Every resolver module of the GraphQL function, in merge order (where two define the same field, the later
 * wins), each behind a dynamic import: the function's bundle keeps a module and the domain code it imports
 * in chunks that load on the first request resolving one of its fields, not at cold start (issue 25).
 * Which module resolves which field is generated into ../generated/resolverFields.ts by `npm run codegen`
 * (schema/codegen.ts); test/unit/resolverFields.test.ts fails while that file is stale.
 *
 * A new resolver module is added here; a new field in an existing module needs only `npm run codegen`.
 */
export const resolverModules = {
  user: () => import('./user.js').then((m) => m.userResolvers),
  organization: () => import('./organization.js').then((m) => m.organizationResolvers),
  access: () => import('./access.js').then((m) => m.accessResolvers),
  changeOrder: () => import('./changeOrder.js').then((m) => m.changeOrderResolvers),
  changeRequest: () => import('./changeRequest.js').then((m) => m.changeRequestResolvers),
  library: () => import('./library.js').then((m) => m.libraryResolvers),
  apiKey: () => import('./apiKey.js').then((m) => m.apiKeyResolvers),
  config: () => import('./config.js').then((m) => m.configResolvers),
  component: () => import('./component.js').then((m) => m.componentResolvers),
  search: () => import('./search.js').then((m) => m.searchResolvers),
  identifier: () => import('./identifier.js').then((m) => m.identifierResolvers),
  item: () => import('./item.js').then((m) => m.itemResolvers),
  file: () => import('./file.js').then((m) => m.fileResolvers),
  integration: () => import('./integration.js').then((m) => m.integrationResolvers),
  webhook: () => import('./webhook.js').then((m) => m.webhookResolvers),
  scim: () => import('./scim.js').then((m) => m.scimResolvers),
  transfer: () => import('./transfer.js').then((m) => m.transferResolvers),
  sourcing: () => import('./sourcing.js').then((m) => m.sourcingResolvers),
  comment: () => import('./comment.js').then((m) => m.commentResolvers),
  audit: () => import('./audit.js').then((m) => m.auditResolvers),
} satisfies Record<string, () => Promise<Resolvers>>;

export type ResolverModuleName = keyof typeof resolverModules;

/** Type name -> module -> the fields of that type the module resolves (space-separated). */
export type ResolverFields = Record<string, Partial<Record<ResolverModuleName, string>>>;

/** Which module resolves each field, computed by loading every module (codegen and the freshness test). */
export async function computeResolverFields(): Promise<ResolverFields> {
  const byField = new Map<string, ResolverModuleName>();
  for (const [name, load] of Object.entries(resolverModules) as [ResolverModuleName, () => Promise<Resolvers>][]) {
    for (const [typeName, typeResolvers] of Object.entries(await load())) {
      for (const [fieldName, resolver] of Object.entries(typeResolvers as Record<string, unknown>)) {
        if (typeof resolver !== 'function') throw new Error(`${name}: ${typeName}.${fieldName} is not a resolver function (only plain field resolvers load on first use)`);
        // A later module's resolver replaces an earlier one's, as in a merge.
        byField.set(`${typeName}.${fieldName}`, name);
      }
    }
  }
  const fields: ResolverFields = {};
  for (const [coordinate, name] of [...byField].sort(([a], [b]) => a.localeCompare(b))) {
    const [typeName, fieldName] = coordinate.split('.') as [string, string];
    const ofType = (fields[typeName] ??= {});
    ofType[name] = ofType[name] ? `${ofType[name]} ${fieldName}` : fieldName;
  }
  return fields;
}
