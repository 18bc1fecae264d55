import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, Kind, type DocumentNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';

/**
 * The schema is built at cold start from the SDL without its descriptions (generated/leanTypeDefs.ts, 40 % of
 * the SDL's bytes); the descriptions (generated/descriptions.ts) are set on it the first time a request
 * introspects, before that request executes, so every introspection answers them as the full SDL would.
 */
const described = new WeakMap<GraphQLSchema, Promise<void>>();

export function describeSchema(schema: GraphQLSchema): Promise<void> {
  let pending = described.get(schema);
  if (!pending) {
    pending = import('./generated/descriptions.js').then(({ descriptions }) => applyDescriptions(schema, descriptions));
    described.set(schema, pending);
  }
  return pending;
}

function applyDescriptions(schema: GraphQLSchema, descriptions: Record<string, string>): void {
  const set = (coordinate: string, target: { description?: string | null | undefined }) => {
    const description = descriptions[coordinate];
    if (description !== undefined) target.description = description;
  };
  set('schema', schema);
  for (const directive of schema.getDirectives()) {
    set(`@${directive.name}`, directive);
    for (const arg of directive.args) set(`@${directive.name}(${arg.name})`, arg);
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    set(type.name, type);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        set(`${type.name}.${field.name}`, field);
        for (const arg of field.args) set(`${type.name}.${field.name}(${arg.name})`, arg);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) set(`${type.name}.${field.name}`, field);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) set(`${type.name}.${value.name}`, value);
    }
  }
}

/** Whether a document asks for the schema (`__schema` or `__type` anywhere, fragments included). */
export function introspects(document: DocumentNode): boolean {
  const inSelections = (selectionSet: SelectionSetNode | undefined): boolean =>
    !!selectionSet?.selections.some((selection) =>
      selection.kind === Kind.FIELD
        ? selection.name.value === '__schema' || selection.name.value === '__type' || inSelections(selection.selectionSet)
        : selection.kind === Kind.INLINE_FRAGMENT && inSelections(selection.selectionSet),
    );
  return document.definitions.some((definition) => (definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION) && inSelections(definition.selectionSet));
}
