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
  };
}
