import { loadWebhookSettings } from '../../../lib/webhooks/settings.js';
import { createWebhook, deliveriesOf, removeWebhook, rotateWebhookSecret, updateWebhook, webhooksOf } from '../../../lib/webhooks/service.js';
import { redeliver, replay } from '../../../lib/webhooks/replay.js';
import { webhookPrincipal, withholdBody } from '../../../lib/webhooks/withheld.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope, principalById, withheldForCaller } from './shared.js';

export const webhookResolvers: Resolvers = {
  WebhookQueryNamespace: {
    findAll: async (_parent, _args, context) => webhooksOf(context.store, await libraryScope(context)),
  },
  WebhookMutationNamespace: {
    create: async (_parent, { input }, context) => createWebhook(context.store, await libraryScope(context), await loadWebhookSettings(), input, await context.access.principal()),
    update: async (_parent, { input }, context) => updateWebhook(context.store, await libraryScope(context), await loadWebhookSettings(), input, await context.access.principal()),
    delete: async (_parent, { id }, context) => removeWebhook(context.store, await libraryScope(context), id),
    rotateSecret: async (_parent, { id }, context) => rotateWebhookSecret(context.store, await libraryScope(context), await loadWebhookSettings(), id),
    redeliver: async (_parent, { deliveryId }, context) => redeliver(context.store, await libraryScope(context), deliveryId),
    replay: async (_parent, args, context) => replay(context.store, await libraryScope(context), args),
  },
  Webhook: {
    // An integration reads the log as it reads anything else: bodies without what the policy withholds from
    // it, deliveries of events it withholds whole left out (another principal's webhook may have received them).
    deliveries: async (webhook, { first }, context) => {
      const [deliveries, withheld] = await Promise.all([deliveriesOf(context.store, webhook, first ?? 20), withheldForCaller(context)]);
      if (withheld.size === 0) return deliveries;
      return deliveries.flatMap((delivery) => {
        const body = withholdBody(delivery.eventType, delivery.body, withheld);
        return body === undefined ? [] : [{ ...delivery, body }];
      });
    },
    principal: async (webhook, _args, context) => {
      const id = webhookPrincipal(webhook);
      return principalById(context, webhook.organizationId, id);
    },
  },
};
