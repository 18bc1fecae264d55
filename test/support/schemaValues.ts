import { randomUUID } from 'node:crypto';
import { isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, type GraphQLInputType } from 'graphql';

/**
 * A value GraphQL accepts for an input type, with required input fields only: so that a generated call
 * passes validation and reaches its resolver. Strings are `text()`, dates `dateTime`.
 */
export function minimalValue(type: GraphQLInputType, options: { text: () => string; dateTime: string }): unknown {
  if (isNonNullType(type)) return minimalValue(type.ofType, options);
  if (isListType(type)) return [];
  if (isEnumType(type)) return type.getValues()[0]!.value;
  if (isInputObjectType(type)) {
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined)
        .map((field) => [field.name, minimalValue(field.type, options)]),
    );
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'ID':
        return randomUUID();
      case 'Int':
      case 'Float':
        return 1;
      case 'Boolean':
        return false;
      case 'DateTime':
        return options.dateTime;
      case 'JSON':
        return {};
      default:
        return options.text();
    }
  }
  throw new Error(`No value for ${String(type)}`);
}
