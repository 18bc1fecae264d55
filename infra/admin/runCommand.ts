/**
 * How one operator command runs (infra/admin/cli.ts dispatches to the command groups beside this file): its
 * options (strict, a bad or missing one prints the usage and exits 2), the table it targets, and the
 * audited operation it runs as, whose result is printed as one JSON line.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { audited } from '../../lib/audit/operations.js';
import { DomainError, InvalidInputError } from '../../lib/errors.js';
import type { AuditActor, AuditOperation } from '../../lib/store/audit.js';
import { createStore, type Store } from '../../lib/store/client.js';
import { findLibraryIdBySlug } from '../../lib/store/library.js';
import { findOrganizationIdBySlug, getOrganization } from '../../lib/store/organization.js';
import { localConfig } from '../local/config.js';
import { auditOperationOf, usage, type OperatorCommandName } from './commands.js';

/** A group's commands, by name (cli.ts joins the groups into the table of every command). */
export type CommandHandlers = Partial<Record<OperatorCommandName, (args: string[]) => Promise<void>>>;

/** The environment of the table the CLI targets: the deployed one (see cli.ts), else the local stack's DynamoDB Local. */
export function targetEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const deployed = env.TABLE_NAME && (env.AWS_PROFILE || env.AWS_ACCESS_KEY_ID) && !env.DYNAMODB_ENDPOINT && !env.DYNAMODB_PORT;
  if (deployed || env.DYNAMODB_ENDPOINT) return env;
  const config = localConfig(env);
  return { ...env, DYNAMODB_ENDPOINT: `http://127.0.0.1:${config.dynamodbPort}`, TABLE_NAME: config.tableName };
}

/** A line on stderr and the exit status. */
export function fail(message: string, status: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(status);
}

/** The options of a command line (strict; a bad one prints the usage and exits 2 before anything runs). */
export function optionsOf(args: string[], options: Record<string, { type: 'string' | 'boolean' }>): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({ args, options, strict: true }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
}

export const text = (values: Record<string, string | boolean | undefined>, option: string): string | undefined => {
  const value = values[option];
  return typeof value === 'string' ? value : undefined;
};

/** Refuses a command whose required options are missing (exit 2, before anything runs). */
export function requireOptions(values: Record<string, string | boolean | undefined>, required: readonly string[]): void {
  const missing = required.filter((option) => values[option] === undefined || values[option] === '');
  if (missing.length) fail(`Missing ${missing.map((m) => `--${m}`).join(', ')}\n${usage}`, 2);
}

/** The operator: OPERATOR, else the OS user. */
const operatorActor = (): AuditActor => ({ type: 'operator', id: process.env.OPERATOR || userInfo().username });

/** Puts the operation in an organization's chain (with its retention) and names it among the targets. */
async function inOrganization(store: Store, operation: AuditOperation, organizationId: string | null | undefined): Promise<void> {
  if (!organizationId) return;
  const organization = await getOrganization(store, organizationId);
  operation.organizationId = organizationId;
  operation.retentionDays = organization?.auditRetentionDays;
  if (!operation.targets.includes(organizationId)) operation.targets.unshift(organizationId);
}

/**
 * Runs one operator command as an audited operation (lib/audit/operations.ts): actor the operator,
 * operation `admin.<command>`, the organization of --org-slug (when it names one) as its chain and target,
 * the options given as its summary (names only, never their values). A transaction the task commits
 * carries the entry; a read-only command, or one that writes without a transaction, gets it after the
 * task; a refusal or failure gets a DENIED or FAILED entry with its code. Prints the task's result as one
 * JSON line (nothing when it returns undefined); a refusal prints its code and message on stderr, exit 2.
 */
export async function runCommand(
  name: OperatorCommandName,
  values: Record<string, string | boolean | undefined>,
  task: (store: Store, operation: AuditOperation) => Promise<unknown>,
  options: { organizationOfSlug?: boolean } = {},
): Promise<void> {
  const store = createStore(targetEnv(process.env));
  try {
    const summary = Object.keys(values)
      .filter((option) => values[option] !== undefined && values[option] !== false)
      .map((option) => `--${option}`)
      .join(' ');
    const result = await audited(store, { organizationId: null, actor: operatorActor(), operation: auditOperationOf(name), summary, targets: [] }, async (operation) => {
      const slug = text(values, 'org-slug');
      if (slug && options.organizationOfSlug !== false) await inOrganization(store, operation, await findOrganizationIdBySlug(store, slug));
      return task(store, operation);
    });
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (error instanceof DomainError) fail(`${name} refused (${error.code}): ${error.message}${problemLines(error)}`, 2);
    throw error;
  } finally {
    store.ddb.destroy();
  }
}

/** The organization of --org-slug (BAD_USER_INPUT when there is none). */
export async function organizationOfSlug(store: Store, slug: string): Promise<string> {
  const organizationId = await findOrganizationIdBySlug(store, slug);
  if (!organizationId) throw new InvalidInputError(`No organization with slug "${slug}"`);
  return organizationId;
}

/** Runs a maintenance task on one library named by --org-slug and --library-slug, audited in its organization's chain. */
export async function libraryTask(
  name: OperatorCommandName,
  args: string[],
  extra: Record<string, { type: 'string' | 'boolean' }>,
  task: (store: Store, library: { organizationId: string; libraryId: string }, values: Record<string, string | boolean | undefined>, operation: AuditOperation) => Promise<unknown>,
): Promise<void> {
  const values = optionsOf(args, { 'org-slug': { type: 'string' }, 'library-slug': { type: 'string' }, ...extra });
  requireOptions(values, ['org-slug', 'library-slug']);
  await runCommand(name, values, async (store, operation) => {
    const organizationId = operation.organizationId;
    const libraryId = organizationId ? await findLibraryIdBySlug(store, organizationId, text(values, 'library-slug')!) : undefined;
    if (!organizationId || !libraryId) throw new InvalidInputError(`No library @${text(values, 'org-slug')}/${text(values, 'library-slug')}`);
    operation.targets.push(libraryId);
    return task(store, { organizationId, libraryId }, values, operation);
  });
}

/**
 * An operator command with named string options: the required ones must be present; the task's result
 * is printed as one JSON line (runCommand).
 */
export async function operatorTask(
  name: OperatorCommandName,
  args: string[],
  options: { required: string[]; optional?: string[] },
  task: (store: Store, values: Record<string, string>, operation: AuditOperation) => Promise<unknown>,
): Promise<void> {
  const values = optionsOf(args, Object.fromEntries([...options.required, ...(options.optional ?? [])].map((option) => [option, { type: 'string' as const }])));
  requireOptions(values, options.required);
  await runCommand(name, values, (store, operation) => task(store, values as Record<string, string>, operation));
}

/** Every problem of a refused import, one per line (stderr). */
function problemLines(error: DomainError): string {
  const problems = (error.details.problems as { path: string; code: string; message: string }[] | undefined) ?? [];
  return problems.map((p) => `\n  ${p.path}: ${p.code}: ${p.message}`).join('');
}
