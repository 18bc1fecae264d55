import { getMe } from '../../../lib/accounts/me.js';
import type { Resolvers } from '../generated/resolvers-types.js';

export const userResolvers: Resolvers = {
  UserQueryNamespace: {
    me: (_parent, _args, { store, caller }) => getMe(store, caller),
  },
};
