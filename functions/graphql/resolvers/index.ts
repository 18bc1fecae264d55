import { mergeResolvers } from '@graphql-tools/merge';
import type { Resolvers } from '../generated/resolvers-types.js';
import { accessResolvers } from './access.js';
import { apiKeyResolvers } from './apiKey.js';
import { changeOrderResolvers } from './changeOrder.js';
import { changeRequestResolvers } from './changeRequest.js';
import { auditResolvers } from './audit.js';
import { commentResolvers } from './comment.js';
import { componentResolvers } from './component.js';
import { configResolvers } from './config.js';
import { fileResolvers } from './file.js';
import { identifierResolvers } from './identifier.js';
import { itemResolvers } from './item.js';
import { integrationResolvers } from './integration.js';
import { webhookResolvers } from './webhook.js';
import { jsonScalar } from './scalars.js';
import { libraryResolvers } from './library.js';
import { organizationResolvers } from './organization.js';
import { scimResolvers } from './scim.js';
import { searchResolvers } from './search.js';
import { sourcingResolvers } from './sourcing.js';
import { transferResolvers } from './transfer.js';
import { userResolvers } from './user.js';

export const resolvers: Resolvers = mergeResolvers([
  { JSON: jsonScalar },
  userResolvers,
  organizationResolvers,
  accessResolvers,
  changeOrderResolvers,
  changeRequestResolvers,
  libraryResolvers,
  apiKeyResolvers,
  configResolvers,
  componentResolvers,
  searchResolvers,
  identifierResolvers,
  itemResolvers,
  fileResolvers,
  integrationResolvers,
  webhookResolvers,
  scimResolvers,
  transferResolvers,
  sourcingResolvers,
  commentResolvers,
  auditResolvers,
]);
