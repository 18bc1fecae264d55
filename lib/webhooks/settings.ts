import { positiveSetting } from '../model/retrySchedule.js';
import type { UrlPolicy } from './urls.js';

export interface WebhookSettings {
  /** The stack key webhook secrets are derived from (lib/webhooks/signing.ts). */
  stackKey: string | undefined;
  urlPolicy: UrlPolicy;
  /** Attempts per delivery, the first included. */
  maxAttempts: number;
  /** The wait before the second attempt; it doubles for each later one (with up to 20 % jitter). */
  retryBaseMs: number;
  /** How long one attempt waits for the receiver. */
  timeoutMs: number;
}

/**
 * From the environment the handlers run in: WEBHOOK_SIGNING_KEY, WEBHOOK_ALLOW_LOOPBACK_URLS (the local
 * stack only: receivers on this machine's loopback addresses), WEBHOOK_MAX_ATTEMPTS (default 8), WEBHOOK_RETRY_BASE_MS (default 60,000: 1, 2, 4 ... 64
 * minutes), WEBHOOK_TIMEOUT_MS (default 10,000).
 */
function webhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  return {
    stackKey: env.WEBHOOK_SIGNING_KEY || undefined,
    urlPolicy: { allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK_URLS === 'true' },
    maxAttempts: Math.floor(positiveSetting(env.WEBHOOK_MAX_ATTEMPTS, 8)),
    retryBaseMs: positiveSetting(env.WEBHOOK_RETRY_BASE_MS, 60_000),
    timeoutMs: positiveSetting(env.WEBHOOK_TIMEOUT_MS, 10_000),
  };
}

let loaded: Promise<WebhookSettings> | undefined;

/**
 * The settings, with the stack key read once per process: from WEBHOOK_SIGNING_KEY, or (deployed) from the
 * Secrets Manager secret named by WEBHOOK_SIGNING_KEY_SECRET_ID, so the key never sits in a function's
 * configuration.
 */
export function loadWebhookSettings(env: NodeJS.ProcessEnv = process.env): Promise<WebhookSettings> {
  loaded ??= (async () => {
    const settings = webhookSettings(env);
    if (settings.stackKey || !env.WEBHOOK_SIGNING_KEY_SECRET_ID) return settings;
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({});
    try {
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: env.WEBHOOK_SIGNING_KEY_SECRET_ID }));
      return { ...settings, stackKey: SecretString || undefined };
    } finally {
      client.destroy();
    }
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}
