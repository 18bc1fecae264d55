import type { Caller } from '../../lib/access/caller.js';
import type { RequestAccess } from '../../lib/access/requestAccess.js';
import type { Store } from '../../lib/store/client.js';

export interface GraphQLContext {
  store: Store;
  caller: Caller;
  access: RequestAccess;
}
