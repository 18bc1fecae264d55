/** The accounts domain's types, as resolvers and GraphQL mappers see them. */
export type { UserRecord as User } from '../store/user.js';
