import { randomBytes } from 'node:crypto';
/**
 * `npm start`: the whole local stack on embedded defaults. DynamoDB Local, cognito-local, and one HTTP
 * server on 127.0.0.1:$PORT that serves /graphql, /auth/* and /scim/v2/* through the same Lambda handlers
 * as the deployed stack, plus /health and GET /_local/mail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBlobStorage, localFilesDirectory } from '../../lib/files/blobStorage.js';
import { handlerEnv, localConfig } from './config.js';
import { ensureTable, ensureUserPool, startCognito, startDynamoDb, stopChild } from './emulators.js';
import { createFederationStandIn } from './federation.js';
import { createLocalServer, type LocalServerState } from './server.js';
import { startStreamReader } from './streamReader.js';
import { changeOrderMailStreamFilter } from '../../lib/changeOrders/mailStream.js';
import { committedWriteStreamFilter } from '../../lib/items/settleStream.js';
import { importJobStreamFilter, matchesStreamFilter } from '../../lib/transfer/jobStream.js';

const config = localConfig();
const state: LocalServerState = {};
/** Temporary folders of this run (the user pool's, the files' without PLM_DATA_DIR or FILES_DIR): removed at stop. */
const scratch: string[] = [];
const scratchDirectory = (prefix: string) => {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(directory);
  return directory;
};
const children = [startDynamoDb(config), startCognito(config, config.dataDir ? '' : scratchDirectory('plm-cognito-'))];
const server: Server = createLocalServer(state);
let stopping = false;
let streamReader: ReturnType<typeof startStreamReader> | undefined;
let retryTimer: NodeJS.Timeout | undefined;
let mailSweepTimer: NodeJS.Timeout | undefined;

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    clearInterval(retryTimer);
    clearInterval(mailSweepTimer);
    await streamReader?.stop();
    server.close();
    server.closeAllConnections();
    await Promise.all(children.map(stopChild));
    for (const directory of scratch) rmSync(directory, { recursive: true, force: true });
  }
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
for (const child of children) {
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`An emulator exited (${signal ?? code}); stopping the local stack`);
    void stop(1);
  });
}

try {
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(config.port, '127.0.0.1', resolveListen);
  });
  await ensureTable(config);
  const { userPoolId, clientId } = await ensureUserPool(config);
  // Signs the local file URLs as S3 signs presigned ones; new at every start, like a rotated key.
  const filesSigningSecret = randomBytes(32).toString('base64url');
  // FILES_DIR chooses the folder (the tests share it with the admin CLI); else PLM_DATA_DIR/files, else a new temporary one.
  const filesDir = process.env.FILES_DIR || (config.dataDir ? localFilesDirectory(config.dataDir, '') : scratchDirectory('plm-files-'));
  // SAML sign-in: the stand-in plays the user pool's hosted domain, identity providers and federated client.
  const federation = createFederationStandIn({ baseUrl: `http://127.0.0.1:${config.port}`, userPoolId, callbackUrl: `http://127.0.0.1:${config.port}/auth/saml/callback` });
  state.federation = federation;
  Object.assign(process.env, handlerEnv(config), {
    COGNITO_USER_POOL_ID: userPoolId,
    COGNITO_CLIENT_ID: clientId,
    FILES_DIR: filesDir,
    FILES_BASE_URL: `http://127.0.0.1:${config.port}`,
    FILES_SIGNING_SECRET: filesSigningSecret,
    SAML_FEDERATION_URL: federation.url,
    SAML_TOKEN_ISSUER: federation.url,
    SAML_CALLBACK_URL: `http://127.0.0.1:${config.port}/auth/saml/callback`,
    COGNITO_FEDERATED_CLIENT_ID: federation.clientId,
    COGNITO_FEDERATION_ENDPOINT: federation.url,
  });
  state.files = new LocalBlobStorage(filesDir, `http://127.0.0.1:${config.port}`, filesSigningSecret);

  // Handlers read their environment when loaded, as a Lambda does at cold start: load them now.
  const [graphql, auth, scim, mail, webhooks, jobs] = await Promise.all([
    import('../../functions/graphql/handler.js'),
    import('../../functions/auth/handler.js'),
    import('../../functions/scim/handler.js'),
    import('../../lib/mail/mailer.js'),
    import('../../functions/webhooks/handler.js'),
    import('../../functions/jobs/handler.js'),
  ]);
  state.handlers = { graphql: graphql.handler, auth: auth.handler, scim: scim.handler };
  // The stream of DynamoDB Local feeds the stream-fed functions as Lambda's event source mappings would, read
  // once for both. Webhooks (and notifications, audit sealing): every record, batch after batch. Import jobs,
  // the settling of large writes (a large release's commit) and change order mails (the INSERT of their
  // outbox item): the deployed mapping's filters applied here, each record run on its own without waiting
  // (a long import holds up neither webhooks nor other jobs). A timer stands in for the webhooks' retry schedule.
  streamReader = startStreamReader({
    endpoint: `http://127.0.0.1:${config.dynamodbPort}`,
    tableName: config.tableName,
    consumers: [
      {
        name: 'webhooks',
        onRecords: async (records) => {
          await webhooks.handler({ Records: records } as never);
        },
      },
      {
        name: 'jobs',
        onRecords: async (records) => {
          const filters = [importJobStreamFilter, committedWriteStreamFilter, changeOrderMailStreamFilter];
          for (const record of records.filter((r) => filters.some((filter) => matchesStreamFilter(filter, r)))) {
            void jobs.handler({ Records: [record] } as never).catch((error: unknown) => console.error('jobs: a job, settling or mail failed:', error));
          }
        },
      },
    ],
  });
  const sweepMs = Number(process.env.WEBHOOK_RETRY_SWEEP_MS) || 1000;
  retryTimer = setInterval(() => void webhooks.handler({ source: 'local.schedule' } as never).catch((error: unknown) => console.error('webhooks: retry run failed:', error)), sweepMs);
  // The change order mails the stream did not send (lib/changeOrders/mailRetry.ts): a timer stands in for the
  // jobs function's one-minute schedule (CHANGE_ORDER_MAIL_SWEEP_MS). CHANGE_ORDER_MAIL_SWEEPS runs that
  // many at once per tick, as overlapping Lambda runs would (the tests: their claims keep them apart).
  const mailSweepMs = Number(process.env.CHANGE_ORDER_MAIL_SWEEP_MS) || 60_000;
  const mailSweeps = Math.max(1, Math.floor(Number(process.env.CHANGE_ORDER_MAIL_SWEEPS) || 1));
  let mailSweeping = false;
  mailSweepTimer = setInterval(() => {
    if (mailSweeping) return;
    mailSweeping = true;
    void Promise.all(Array.from({ length: mailSweeps }, () => jobs.handler({ changeOrderMailSweep: true })))
      .catch((error: unknown) => console.error('jobs: change order mail sweep failed:', error))
      .finally(() => {
        mailSweeping = false;
      });
  }, mailSweepMs);
  state.outbox = () => mail.localOutbox.sent;
  // Test hook (PLM_FAULT_INJECTION=true only): SES refuses the next sends to an address (PUT /_local/mail/faults).
  if (process.env.PLM_FAULT_INJECTION === 'true') state.mailFaults = (address, failures, subject) => mail.localOutbox.failNext(address, failures, subject);

  const base = `http://127.0.0.1:${config.port}`;
  console.log(
    [
      'PLM local stack is ready',
      `  GraphQL    ${base}/graphql  (GraphiQL in a browser)`,
      `  Auth       ${base}/auth/config`,
      `  SCIM       ${base}/scim/v2`,
      `  Health     ${base}/health`,
      `  Mail       ${base}/_local/mail`,
      `  SAML SSO   ${base}/auth/saml/start?email=…  (user pool federation stand-in at ${federation.url})`,
      `  DynamoDB   http://127.0.0.1:${config.dynamodbPort}  table ${config.tableName}${config.dataDir ? ` (persisted in ${config.dataDir})` : ' (in memory)'}`,
      `  Cognito    http://127.0.0.1:${config.cognitoPort}  pool ${userPoolId}`,
      'Create a tenant: npm run admin -- bootstrap --org-name Acme --org-slug acme --library-name Main --library-slug main --email you@example.com',
    ].join('\n'),
  );
} catch (error) {
  console.error('The local stack failed to start:', error);
  await stop(1);
}
