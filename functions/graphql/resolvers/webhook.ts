import { loadWebhookSettings } from '../../../lib/webhooks/settings.js';
import { createWebhook, deliveriesOf, removeWebhook, rotateWebhookSecret, updateWebhook, webhooksOf } from '../../../lib/webhooks/service.js';
import { redeliver, replay } from '../../../lib/webhooks/replay.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope } from './shared.js';

export const webhookResolvers: Resolvers = {
  WebhookQueryNamespace: {
    findAll: async (_parent, _args, context) => webhooksOf(context.store, await libraryScope(context)),
  },
  WebhookMutationNamespace: {
    create: async (_parent, { input }, context) => createWebhook(context.store, await libraryScope(context), await loadWebhookSettings(), input),
    update: async (_parent, { input }, context) => updateWebhook(context.store, await libraryScope(context), await loadWebhookSettings(), input),
    delete: async (_parent, { id }, context) => removeWebhook(context.store, await libraryScope(context), id),
    rotateSecret: async (_parent, { id }, context) => rotateWebhookSecret(context.store, await libraryScope(context), await loadWebhookSettings(), id),
    redeliver: async (_parent, { deliveryId }, context) => redeliver(context.store, await libraryScope(context), deliveryId),
    replay: async (_parent, args, context) => replay(context.store, await libraryScope(context), args),
  },
  Webhook: {
    deliveries: (webhook, { first }, context) => deliveriesOf(context.store, webhook, first ?? 20),
  },
};
