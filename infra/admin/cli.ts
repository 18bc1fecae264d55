/**
 * Operator CLI; every command prints one JSON line. `npm run -s admin -- bootstrap --org-name NAME --org-slug SLUG --library-name NAME
 * --library-slug SLUG --email EMAIL [--plan PLAN]` creates a tenant and prints one JSON line.
 *
 * Target table: the local stack's DynamoDB Local (DYNAMODB_PORT, TABLE_NAME, same defaults as npm start),
 * unless TABLE_NAME is set together with AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID) and no
 * DYNAMODB_ENDPOINT/DYNAMODB_PORT: then the deployed table in AWS_REGION.
 */
import { auditCommands } from './audit.js';
import { backupCommands } from './backup.js';
import { commandOf, usage, type OperatorCommandName } from './commands.js';
import { libraryMaintenanceCommands } from './libraryMaintenance.js';
import { mailCommands } from './mails.js';
import { notificationCommands } from './notifications.js';
import { organizationCommands } from './organizations.js';
import { fail, targetEnv } from './runCommand.js';
import { samlCommands } from './saml.js';
import { transferCommands } from './transfer.js';

/**
 * Every command of the CLI (infra/admin/commands.ts), from the groups beside this file (how one runs:
 * runCommand.ts): the type makes a new name without a handler a compile error.
 */
const handlers: Record<OperatorCommandName, (args: string[]) => Promise<void>> = {
  ...organizationCommands,
  ...libraryMaintenanceCommands,
  ...backupCommands,
  ...transferCommands,
  ...samlCommands,
  ...auditCommands,
  ...notificationCommands,
  ...mailCommands,
};

/** A connection that could not be made (nothing listening, unknown host), however the SDK wrapped it. */
function connectionFailure(error: unknown, depth = 0): { code: string; address?: string } | undefined {
  if (!error || typeof error !== 'object' || depth > 5) return undefined;
  const { code, address, port } = error as { code?: unknown; address?: unknown; port?: unknown };
  if (typeof code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code)) {
    return { code, address: typeof address === 'string' ? `${address}${typeof port === 'number' ? `:${port}` : ''}` : undefined };
  }
  const nested = [(error as { cause?: unknown }).cause, ...(error instanceof AggregateError ? error.errors : [])];
  for (const inner of nested) {
    const found = connectionFailure(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The table endpoint could not be reached: one line naming it and what to set, exit status 2 (no stack trace). */
function unreachable(failure: { code: string; address?: string }): never {
  const env = targetEnv(process.env);
  const endpoint = env.DYNAMODB_ENDPOINT ?? `DynamoDB in ${env.AWS_REGION || 'the default region'}`;
  const at = failure.address ? ` (${failure.address}: ${failure.code})` : ` (${failure.code})`;
  fail(
    `Cannot reach ${endpoint}${at}. Start the local stack (npm start) or set DYNAMODB_PORT (or DYNAMODB_ENDPOINT) to where its DynamoDB Local listens; for a deployed table set TABLE_NAME and AWS credentials, without DYNAMODB_PORT/DYNAMODB_ENDPOINT.`,
    2,
  );
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const command = commandOf(argv);
  if (!command) fail(argv[0] ? `Unknown command "${argv.join(' ')}"\n${usage}` : usage, 2);
  await handlers[command.name](command.args);
}

try {
  await main();
} catch (error) {
  const failure = connectionFailure(error);
  if (failure) unreachable(failure);
  throw error;
}
