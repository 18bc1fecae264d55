import { commentCounts, createComment, deleteComment, listTargetComments, setThreadLocked, setThreadResolved, updateComment, type CommentDeps } from '../../../lib/comments/service.js';
import { markAllRead, markRead, memberAccessOf, notificationSettingsOf, notificationsOf, setNotificationSettings, unwatch, watch, watchingOf } from '../../../lib/notifications/service.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { keyOrganizationOf, libraryScope, userById } from './shared.js';

const deps = async (context: GraphQLContext): Promise<CommentDeps> => ({
  store: context.store,
  scope: await libraryScope(context),
  permissions: await context.access.libraryPermissions(),
});
const user = (context: GraphQLContext, id: string | null) => (id ? userById(context, id) : null);

/** commentCount of the components and change orders of one response, read together. */
async function commentCount(context: GraphQLContext, targetId: string): Promise<number> {
  const scope = await libraryScope(context);
  const count = await context.batched(`commentCounts`, targetId, (ids) => commentCounts(context.store, scope, [...ids]));
  return count ?? 0;
}

export const commentResolvers: Resolvers = {
  CommentQueryNamespace: {
    list: async (_parent, { targetId, pagination }, context) => listTargetComments(await deps(context), targetId, pagination ?? {}),
  },
  CommentMutationNamespace: {
    create: async (_parent, { input }, context) => createComment(await deps(context), input),
    update: async (_parent, { input }, context) => updateComment(await deps(context), input),
    delete: async (_parent, { id }, context) => deleteComment(await deps(context), id),
    resolve: async (_parent, { id }, context) => setThreadResolved(await deps(context), id, true),
    reopen: async (_parent, { id }, context) => setThreadResolved(await deps(context), id, false),
    lock: async (_parent, { id }, context) => setThreadLocked(await deps(context), id, true),
    unlock: async (_parent, { id }, context) => setThreadLocked(await deps(context), id, false),
  },
  Mutation: {
    watch: async (_parent, { input }, context) => watch(await deps(context), input),
    unwatch: async (_parent, { targetId }, context) => unwatch(await deps(context), targetId),
    markRead: (_parent, { ids }, context) => markRead(context.store, context.caller.userId, ids, keyOrganizationOf(context)),
    markAllRead: (_parent, _args, context) => markAllRead(context.store, context.caller.userId, keyOrganizationOf(context)),
    setNotificationSettings: (_parent, { input }, context) => setNotificationSettings(context.store, context.caller.userId, input),
  },
  UserQueryNamespace: {
    watching: (_parent, _args, context) => watchingOf(context.store, context.caller.userId, keyOrganizationOf(context)),
    notifications: (_parent, { unreadOnly, pagination }, context) => {
      const caller = context.caller;
      // What the caller may read now decides which notifications show (an API key: capped by its role).
      const access = memberAccessOf(context.store, caller.userId, caller.kind === 'apiKey' ? caller : undefined);
      return notificationsOf(context.store, caller.userId, unreadOnly ?? false, pagination ?? {}, keyOrganizationOf(context), access);
    },
    notificationSettings: (_parent, _args, context) => notificationSettingsOf(context.store, context.caller.userId),
  },
  Comment: {
    mentions: async (comment, _args, context) => (await Promise.all(comment.mentions.map((id) => userById(context, id)))).filter((u) => u !== null),
    createdBy: (comment, _args, context) => user(context, comment.createdBy),
    editedBy: (comment, _args, context) => user(context, comment.editedBy),
    deletedBy: (comment, _args, context) => user(context, comment.deletedBy),
    resolvedBy: (comment, _args, context) => user(context, comment.resolvedBy),
  },
  Component: { commentCount: (component, _args, context) => commentCount(context, component.id) },
  ChangeOrder: { commentCount: (changeOrder, _args, context) => commentCount(context, changeOrder.id) },
};
