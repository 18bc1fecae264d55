import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
/**
 * The local stack's settings and their embedded defaults, shared by `npm start`, the admin CLI, the
 * benchmark and the tests, so that all of them talk to the same emulators.
 */
export interface LocalConfig {
  port: number;
  dynamodbPort: number;
  cognitoPort: number;
  dataDir: string | undefined;
  tableName: string;
  appUrl: string;
  allowedOrigins: string[];
  /** The key webhook secrets derive from: WEBHOOK_SIGNING_KEY, else kept in dataDir, else new each start. */
  webhookSigningKey: string;
}

function portFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, not "${value}"`);
  return port;
}

export function localConfig(env: NodeJS.ProcessEnv = process.env): LocalConfig {
  const port = portFrom(env.PORT, 4000, 'PORT');
  // The local stack serves the account pages itself (infra/local/pages.ts), so emailed links work as they are.
  const appUrl = (env.APP_URL || `http://127.0.0.1:${port}`).replace(/\/+$/, '');
  return {
    port,
    dynamodbPort: portFrom(env.DYNAMODB_PORT, 8000, 'DYNAMODB_PORT'),
    cognitoPort: portFrom(env.COGNITO_PORT, 9229, 'COGNITO_PORT'),
    dataDir: env.PLM_DATA_DIR || undefined,
    tableName: env.TABLE_NAME || 'plm',
    appUrl,
    webhookSigningKey: env.WEBHOOK_SIGNING_KEY || localSigningKey(env.PLM_DATA_DIR || undefined),
    allowedOrigins: (env.AUTH_ALLOWED_ORIGINS || new URL(appUrl).origin)
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
  };
}

/** Environment the handlers and the store read, pointing at the local emulators. */
export function handlerEnv(config: LocalConfig): Record<string, string> {
  return {
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${config.dynamodbPort}`,
    COGNITO_ENDPOINT: `http://127.0.0.1:${config.cognitoPort}`,
    ORG_CREATION_GATING: process.env.ORG_CREATION_GATING || 'enforced',
    AWS_REGION: process.env.AWS_REGION || 'us-east-1',
    TABLE_NAME: config.tableName,
    APP_URL: config.appUrl,
    AUTH_ALLOWED_ORIGINS: config.allowedOrigins.join(','),
    MAIL_TRANSPORT: 'outbox',
    PLM_GRAPHIQL: 'true',
    WEBHOOK_SIGNING_KEY: config.webhookSigningKey,
    // Receivers on this machine (http://127.0.0.1:...) are what integrators develop against locally.
    WEBHOOK_ALLOW_LOOPBACK_URLS: 'true',
    WEBHOOK_RETRY_BASE_MS: process.env.WEBHOOK_RETRY_BASE_MS || '5000',
    WEBHOOK_MAX_ATTEMPTS: process.env.WEBHOOK_MAX_ATTEMPTS || '5',
    WEBHOOK_TIMEOUT_MS: process.env.WEBHOOK_TIMEOUT_MS || '5000',
  };
}

/** A persisted stack keeps its key with its data, so that its webhooks' secrets survive a restart. */
function localSigningKey(dataDir: string | undefined): string {
  if (!dataDir) return randomBytes(32).toString('base64url');
  const file = join(dataDir, 'webhook-signing.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, key, { mode: 0o600 });
  return key;
}
