import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { stack } from './api.js';

const run = promisify(execFile);

/**
 * The operator CLI (`npm run -s admin -- …`) against the test stack's DynamoDB Local, on its table or another
 * (`env`: more variables): infra/admin/cli.ts as globalSetup bundled it for the run.
 */
export function adminCli(args: string[], options: { table?: string; env?: Record<string, string> } = {}) {
  return run(process.execPath, [stack.adminCli, ...args], {
    env: {
      ...process.env,
      NODE_NO_WARNINGS: '1',
      DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
      TABLE_NAME: options.table ?? stack.tableName,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      ...options.env,
    },
    maxBuffer: 64 * 1024 * 1024,
  });
}
