/** The organization domain's types, as resolvers and GraphQL mappers see them (stored records underneath). */
export type { OrganizationRecord as Organization } from '../store/organization.js';
export type { LibraryRecord as Library, LibraryStatsRecord as LibraryStats } from '../store/library.js';
