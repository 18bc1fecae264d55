import { mergeResolvers } from '@graphql-tools/merge';
import type { Resolvers } from '../generated/resolvers-types.js';
import { apiKeyResolvers } from './apiKey.js';
import { libraryResolvers } from './library.js';
import { organizationResolvers } from './organization.js';
import { userResolvers } from './user.js';

export const resolvers: Resolvers = mergeResolvers([userResolvers, organizationResolvers, libraryResolvers, apiKeyResolvers]);
