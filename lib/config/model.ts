/** A library configuration document with its version and sync state, as resolvers and GraphQL mappers see it. */
export type { LibraryConfigRecord as LibraryConfig } from '../store/libraryConfig.js';
