/** The component domain's types, as resolvers and GraphQL mappers see them. */
export type { ComponentRecord as Component } from '../store/component.js';
export type { ComponentHistoryRecord as ComponentHistoryEntry } from '../store/componentHistory.js';
