/** The component domain's types, as resolvers and GraphQL mappers see them. */
export type { ComponentRecord as Component, ComponentHistoryRecord as ComponentHistoryEntry } from '../store/component.js';
