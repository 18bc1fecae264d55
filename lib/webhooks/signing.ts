import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures. A webhook's secret is never stored: it is HMAC-SHA256(stack key, webhook id and
 * secret version), so the delivery function derives it again and a table dump reveals nothing. Rotating
 * bumps the version. The stack key comes from WEBHOOK_SIGNING_KEY (a Secrets Manager secret in the
 * deployed stack; generated, and kept in PLM_DATA_DIR when set, by the local stack).
 *
 * Each attempt sends `x-plm-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the
 * receiver recomputes it over the raw body and rejects a mismatch or a timestamp older than 5 minutes.
 */
export function deriveWebhookSecret(stackKey: string, webhookId: string, secretVersion: number): string {
  return `whsec_${createHmac('sha256', stackKey).update(`webhook:${webhookId}:${secretVersion}`).digest('base64url')}`;
}

export function signatureHeader(secret: string, body: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`;
}

/** What a receiver does: true when the header signs this body with this secret within the tolerance. */
export function verifySignature(secret: string, body: string, header: string, nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || !parts.v1 || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureHeader(secret, body, timestamp).split('v1=')[1]!, 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
